import { dirname, join } from 'node:path';
import { runHook } from '../hook/run-hook.js';
import type { ConfigValidator } from '../config/load.js';
import type { HandOff } from '../hook/process-event.js';

/**
 * Entry of the hook bundle (dist/hook.cjs). Loads only Node built-ins and the hook path; the zod
 * validator (dist/validate.cjs) and the daemon client are required only when needed.
 */
declare const require: (id: string) => unknown;

export async function hookMain(binPath: string): Promise<void> {
  const validator = () => (require('./validate.cjs') as { validator: ConfigValidator }).validator;
  const handOff: HandOff = (message, options) =>
    (require('./client.cjs') as { handOff: HandOff }).handOff(message, options);
  const code = await runHook({
    // HOOKD_HOOKS_DIR lets configs point at the example commands shipped in hooks/.
    env: { HOOKD_HOOKS_DIR: join(dirname(binPath), '..', 'hooks'), ...process.env },
    cwd: process.cwd(),
    stdin: process.stdin,
    writeStdout: (text) => process.stdout.write(text),
    writeStderr: (text) => process.stderr.write(text),
    validator,
    handOff,
    daemonArgv: [process.execPath, binPath, 'daemon', 'run'],
  });
  // Exit at once: lingering handles (a background child's pipes, sockets) must not hold the agent.
  process.stdout.write('', () => process.exit(code));
}

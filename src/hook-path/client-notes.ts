import { closeSync, constants, openSync } from 'node:fs';
import { join } from 'node:path';
import { createLineLogger } from '../logging/line-logger.js';
import { logFilePath, runtimeDir, stateDir } from '../paths.js';
import { ensurePrivateDir } from '../util/private-fs.js';

// What the hook says about the fast client that fell back to it, when that client was refused or is
// older than this hookd: rare, so the hook loads this from its own chunk (rare.ts).

/**
 * The fast client found a runtime dir, socket or listener that is not the user's own and came here
 * instead (HOOKD_CLIENT_REFUSED names which): logged, never shown to commands.
 */
export function logClientRefusal(): void {
  const refused = process.env.HOOKD_CLIENT_REFUSED;
  if (refused === undefined) return;
  delete process.env.HOOKD_CLIENT_REFUSED;
  if (!/^[a-z-]{1,32}$/.test(refused)) return;
  const what =
    refused === 'peer'
      ? 'the process listening on the fast socket runs as another user'
      : 'the runtime dir or its fast socket is not private to this user';
  const logger = createLineLogger(logFilePath(process.env));
  logger.log(
    'warn',
    { kind: 'fast', refused, runtimeDir: runtimeDir(process.env) },
    `the fast client refused to talk to the daemon: ${what}; this event took the Node path (hookd doctor)`,
  );
  logger.close();
}

/** The fast client's stdin copy named by HOOKD_CLIENT_STDIN_COPY was not one: logged, left in place. */
export function logStdinCopyProblem(copy: string, problem: string): void {
  const logger = createLineLogger(logFilePath(process.env));
  logger.log(
    'warn',
    { kind: 'fast', stdinCopy: copy, problem },
    `HOOKD_CLIENT_STDIN_COPY is not a stdin copy of the fast client (${problem}); left in place`,
  );
  logger.close();
}

/**
 * Whether an older fast client ran this event through the Node path: the commands install writes for a
 * fast client set HOOKD_NODE, and this hookd's native client says its protocol when it falls back
 * (HOOKD_CLIENT_PROTOCOL=3; the retired bash script says `bash`). Logged on every such event, and said
 * once on the agent's stderr (a marker in the state dir), with the fix. The variables never reach a
 * command. Called for such a client only (its protocol, if it said one); returns what to say on stderr.
 */
export function olderClientNotice(protocol: string | undefined): () => string | undefined {
  const which =
    protocol === 'bash'
      ? 'the retired bash fast client (it runs the Node path now)'
      : 'a fast client of an older hookd, which this daemon does not serve';
  const text = `the agent's settings run ${which}: every event starts Node; \`hookd install\` wires this hookd's client`;
  const logger = createLineLogger(logFilePath(process.env));
  logger.log('warn', { kind: 'old-client', client: protocol ?? 'older' }, text);
  logger.close();
  // Said on stderr only with an exit 0 (never in a block reason the model reads), once.
  return () => {
    try {
      const dir = join(stateDir(process.env), 'notices');
      ensurePrivateDir(dir);
      closeSync(
        openSync(
          join(dir, `old-client-${protocol === 'bash' ? 'bash' : 'older'}`),
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
          0o600,
        ),
      );
      return `hookd: ${text}\n`;
    } catch {
      return undefined; // said before (or the state dir is not usable: the log has it)
    }
  };
}

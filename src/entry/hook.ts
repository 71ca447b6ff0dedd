import { writeSync } from 'node:fs';
import { runHook } from '../hook-path/run-hook.js';
import { readStdin } from '../events/read-stdin.js';
import { isDeclaredAgent } from '../events/parse.js';
import { recoverWorkingDir } from '../hook-path/working-dir.js';
import type { ConfigValidator } from '../config/load.js';
import type { HandOff } from '../hook-path/process-event.js';
import type { AskRemote, ClaimOnce } from '../hook-path/hand-off.js';
import { runtimeDir } from '../paths.js';
import { FAST_EVENT_ID_VAR, takeClientFallback } from '../hook-path/client-fallback.js';
import { hookdLocation } from '../util/hookd-location.js';
import { fileStdin, isRegularFile, keptStdin, pipeStdin } from '../hook-path/file-stdin.js';
import { daemonRunArgv } from '../link/daemon-argv.js';
import { queueForDaemon } from '../link/spool.js';
import { logClientRefusal, logStdinCopyProblem, olderClientNotice } from '../hook-path/rare.js';

/**
 * Entry of the hook bundle (dist/hook.cjs). Loads only Node built-ins and the hook path; the zod
 * validator (dist/validate.cjs) and the daemon client are required only when needed.
 */
declare const require: (id: string) => unknown;

/**
 * Writes to a standard descriptor synchronously, without creating process.stdout (a pipe stream would
 * load `net`). Retries while a non-blocking pipe is full.
 */
function writeAll(fd: number, text: string): void {
  let buf = Buffer.from(text);
  for (let tries = 0; buf.length > 0 && tries < 10_000; tries++) {
    try {
      buf = buf.subarray(writeSync(fd, buf));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

/**
 * `agent`: from `hookd hook --agent droid|claude` (the dispatcher passes only those two); `event`: from
 * `--event <name>`, the event this command is wired to (used when its input cannot be read).
 */
export async function hookMain(binPath: string, agent?: string, event?: string): Promise<void> {
  // What the fast client said when it fell back (rare: client-notes.ts, from its own chunk).
  if (process.env.HOOKD_CLIENT_REFUSED !== undefined) logClientRefusal();
  const protocol = process.env.HOOKD_CLIENT_PROTOCOL;
  delete process.env.HOOKD_CLIENT_PROTOCOL;
  const olderClient =
    process.env.HOOKD_NODE !== undefined && protocol !== '3' ? olderClientNotice(protocol) : undefined;
  // The fast client's fallback: its stdin copy released, and the id of an event a daemon acknowledged
  // before it died (its own chunk: an ordinary event never loads it).
  const fallback =
    process.env.HOOKD_CLIENT_STDIN_COPY !== undefined || process.env[FAST_EVENT_ID_VAR] !== undefined
      ? takeClientFallback(process.env, runtimeDir(process.env))
      : undefined;
  if (fallback?.copyProblem) logStdinCopyProblem(fallback.copyProblem.copy, fallback.copyProblem.problem);
  const eventId = fallback?.eventId;
  const validator = () => (require('./validate.cjs') as { validator: ConfigValidator }).validator;
  const client = () =>
    require('./client.cjs') as { handOff: HandOff; askRemote: AskRemote; claimOnce: ClaimOnce };
  // The hand-off is the event's last step: the process exits right after it. While a daemon watches the
  // spool the event is left there (no connection, no client chunk); else the client connects.
  const handOff: HandOff = async (message, options = {}) =>
    queueForDaemon(message, options.env ?? process.env, options.fsync)
      ? { outcome: 'queued' }
      : client().handOff(message, { ...options, exitAfter: true });
  const askRemote: AskRemote = (message, options) => client().askRemote(message, options);
  const claimOnce: ClaimOnce = (key, options) => client().claimOnce(key, options);
  const where = recoverWorkingDir(process.env);
  const self = hookdLocation(binPath);
  const code = await runHook({
    // HOOKD_HOOKS_DIR lets configs point at the example commands shipped in hooks/.
    env: { HOOKD_HOOKS_DIR: self.hooks, ...process.env },
    cwd: where.cwd,
    ...(where.lost ? { lostCwd: where.lost } : {}),
    // A regular file (the fast client's copy) always ends: read on the main thread, without the stream
    // classes. So is a pipe as far as it can be read without waiting (the agent wrote the event and
    // closed it); the rest, and a socket, through a stream: a blocking read in libuv's thread pool would
    // hold process.exit when an agent never closes it.
    readInput: (limits) =>
      readStdin(isRegularFile(0) ? fileStdin(0) : (pipeStdin(0, keptStdin) ?? keptStdin()), limits),
    writeStdout: (text) => writeAll(1, text),
    writeStderr: (text) => writeAll(2, text),
    validator,
    handOff,
    askRemote,
    claimOnce,
    daemonArgv: daemonRunArgv(process.execPath, self.program),
    agent: isDeclaredAgent(agent) ? agent : undefined,
    declaredEvent: event,
    ...(eventId ? { eventId } : {}),
  });
  // Exit at once: lingering handles (a background child's pipes, sockets) must not hold the agent.
  // Output was written synchronously, so nothing is lost.
  if (code === 0 && olderClient) {
    const said = olderClient();
    if (said) writeAll(2, said);
  }
  process.exit(code);
}

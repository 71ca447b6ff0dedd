import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { logDir, runtimeDir, stateDir, type Env } from '../paths.js';
import { acquireLock, readLockPid } from '../util/pid-lock.js';
import { privateDirProblem } from '../util/private-fs.js';

// On the hook's start-up path: Node built-ins, src/paths.ts and src/util only.

export { acquireLock, forceBreakLock, isProcessAlive, lockAgeMs, type LockResult } from '../util/pid-lock.js';
export { ensurePrivateDir } from '../util/private-fs.js';

export interface DaemonFiles {
  dir: string;
  socket: string;
  pid: string;
  /**
   * The one-daemon lock. It guards the state it protects, so it lives in the state dir, not in the
   * runtime dir: a daemon started with XDG_RUNTIME_DIR and one without still find the same lock.
   */
  lock: string;
  /** Held by whoever is starting a daemon in the background, so 500 hooks start one, not 500. */
  starting: string;
}

export function daemonFiles(env: Env = process.env): DaemonFiles {
  const dir = runtimeDir(env);
  const daemonState = join(stateDir(env), 'daemon');
  return {
    dir,
    socket: join(dir, 'hookd.sock'),
    pid: join(dir, 'hookd.pid'),
    lock: join(daemonState, 'daemon.lock'),
    starting: join(daemonState, 'starting.lock'),
  };
}

/** The pid in a pid or lock file, or undefined. */
export const readPidFile = readLockPid;

/**
 * Why the socket cannot be trusted with an event (undefined when it can, or when there is none yet): the
 * runtime dir must be this user's folder that nobody else can write to, and the socket a socket of this
 * user. Node does not expose the peer's credentials (SO_PEERCRED), so the owner and mode of the folder
 * and of the socket file (lstat, never following a link) are the check: only this user can have bound it.
 */
export function socketTrustProblem(files: DaemonFiles): string | undefined {
  let st;
  try {
    st = lstatSync(files.socket);
  } catch {
    return undefined; // no socket: connecting fails on its own
  }
  const dirProblem = privateDirProblem(files.dir);
  if (dirProblem) return `the runtime dir ${dirProblem}`;
  if (!st.isSocket()) return `${files.socket} is not a socket`;
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid !== undefined && st.uid !== uid) return `${files.socket} belongs to another user (uid ${st.uid})`;
  return undefined;
}

/**
 * Claims the right to start a daemon in the background. The claim expires after `maxAgeMs` so a
 * starter that died does not block the next one.
 */
export function claimStart(files: DaemonFiles, maxAgeMs = 10_000): boolean {
  return acquireLock(files.starting, { isStale: (holder) => holder.ageMs > maxAgeMs }).acquired;
}

/** The daemon's log file: JSON lines, secrets redacted (daemon/lifecycle/logger.ts writes it). */
export function daemonLogPath(env: Env): string {
  return join(logDir(env), 'daemon.log');
}

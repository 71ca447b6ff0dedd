import { lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { logDir, runtimeDir, stateDir, type Env } from '../paths.js';
import { acquireLock, readLockPid } from '../util/pid-lock.js';
import { myUid, privateDirProblem } from '../util/private-fs.js';

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
  /**
   * Kept fresh by a running daemon that watches the spool (its pid inside, for people): a hook that finds
   * it fresh leaves its event in the spool instead of connecting (spoolWatched).
   */
  spoolWatch: string;
}

/** Where a running daemon that watches the spool says so (DaemonFiles.spoolWatch). */
export function spoolWatchFile(env: Env): string {
  return join(stateDir(env), 'daemon', 'spool-watch');
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
    spoolWatch: spoolWatchFile(env),
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

/**
 * How often a daemon that watches the spool touches its spool-watch file, and how old the file may be for
 * a hook to trust it: a daemon that died without removing it (killed, a crash) is not trusted for long.
 */
export const SPOOL_WATCH_TOUCH_MS = 2000;
export const SPOOL_WATCH_FRESH_MS = 10_000;

/**
 * Whether a running daemon watches the spool (docs/daemon.md, "The spool"): its spool-watch file must be
 * a regular file of this user's, in a folder nobody else can write to, touched within the last
 * SPOOL_WATCH_FRESH_MS. Anything else (no daemon, an older daemon that drains the spool only at start, a
 * daemon that died or hangs) says no, and the event goes to the socket as before.
 */
export function spoolWatched(file: string, now = Date.now()): boolean {
  try {
    const st = lstatSync(file);
    const uid = myUid();
    return (
      st.isFile() &&
      (uid === undefined || st.uid === uid) &&
      Math.abs(now - st.mtimeMs) < SPOOL_WATCH_FRESH_MS &&
      privateDirProblem(dirname(file)) === undefined
    );
  } catch {
    return false;
  }
}

/** The daemon's log file: JSON lines, secrets redacted (daemon/lifecycle/logger.ts writes it). */
export function daemonLogPath(env: Env): string {
  return join(logDir(env), 'daemon.log');
}

import { lstatSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { logDir, runtimeDir, stateDir, type Env } from '../paths.js';
import { acquireLock, isProcessAlive, readLockPid } from '../util/pid-lock.js';
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
   * Written by a running daemon that watches the spool (its pid and start time): a hook that finds it,
   * with that process alive, leaves its event in the spool instead of connecting (spoolWatcher).
   */
  spoolWatch: string;
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
    spoolWatch: join(daemonState, 'spool-watch'),
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
 * When a process started, as Linux counts it (clock ticks since boot, /proc/<pid>/stat): with the pid it
 * names one process, never a later one that got the same pid. Undefined elsewhere.
 */
export function processStart(pid: number | 'self'): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its end.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** The text of the spool-watch file: `<pid> <start>` (the start is "-" where the system has none). */
export function spoolWatchText(pid: number, start: string | undefined): string {
  return `${pid} ${start ?? '-'}\n`;
}

/**
 * The pid of the running daemon that watches the spool, or undefined: its spool-watch file must be a
 * regular file of this user's in a folder nobody else can write to, and name a live process (on Linux,
 * the very process that wrote it: same pid and start time). Anything else (no daemon, an older daemon
 * that only drains the spool at start, a daemon killed without cleaning up) says undefined, and the
 * event goes to the socket as before.
 */
export function spoolWatcher(files: DaemonFiles): number | undefined {
  try {
    const st = lstatSync(files.spoolWatch);
    const uid = myUid();
    if (!st.isFile() || (uid !== undefined && st.uid !== uid) || st.size > 64) return undefined;
    if (privateDirProblem(dirname(files.spoolWatch))) return undefined;
    const [pidText, start] = readFileSync(files.spoolWatch, 'latin1').trim().split(' ');
    const pid = Number(pidText);
    if (!Number.isInteger(pid) || pid <= 0 || !isProcessAlive(pid)) return undefined;
    if (start !== '-' && processStart(pid) !== start) return undefined;
    return pid;
  } catch {
    return undefined;
  }
}

/** The daemon's log file: JSON lines, secrets redacted (daemon/lifecycle/logger.ts writes it). */
export function daemonLogPath(env: Env): string {
  return join(logDir(env), 'daemon.log');
}

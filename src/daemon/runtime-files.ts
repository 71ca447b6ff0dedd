import {
  chmodSync,
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { runtimeDir, type Env } from '../paths.js';

// On the hook's start-up path: Node built-ins and src/paths.ts only.

export interface DaemonFiles {
  dir: string;
  socket: string;
  pid: string;
  lock: string;
  /** Held by whoever is starting a daemon in the background, so 500 hooks start one, not 500. */
  starting: string;
}

export function daemonFiles(env: Env = process.env): DaemonFiles {
  const dir = runtimeDir(env);
  return {
    dir,
    socket: join(dir, 'hookd.sock'),
    pid: join(dir, 'hookd.pid'),
    lock: join(dir, 'hookd.lock'),
    starting: join(dir, 'starting.lock'),
  };
}

/** Creates the runtime dir as 0700 and refuses one that another user owns or others can enter. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory; remove it and retry`);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
    throw new Error(
      `${dir} belongs to another user (uid ${st.uid}); set HOOKD_RUNTIME_DIR to a private folder`,
    );
  }
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readPidFile(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8').trim().split(/\s+/)[0] ?? '', 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function createExclusive(file: string, content: string): boolean {
  try {
    const fd = openSync(file, 'wx', 0o600);
    try {
      writeSync(fd, content);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Moves a stale lock aside (rename is atomic: of two racers only one moves it) and removes it. */
function breakStaleLock(file: string): void {
  const aside = `${file}.stale.${process.pid}.${Date.now()}`;
  try {
    renameSync(file, aside);
    rmSync(aside, { force: true });
  } catch {}
}

/** Removes a lock whatever its pid says (a live pid that is not a daemon: pid reuse after a reboot). */
export function forceBreakLock(file: string): void {
  breakStaleLock(file);
}

/** How long ago the lock was taken, in ms (Infinity when there is none). */
export function lockAgeMs(file: string, now = Date.now()): number {
  try {
    return now - statSync(file).mtimeMs;
  } catch {
    return Infinity;
  }
}

export type LockResult = { acquired: true; release: () => void } | { acquired: false; heldBy: number };

/**
 * The one-daemon-per-user lock: a file created exclusively with our pid. A lock whose pid is gone
 * (a crash, kill -9) is stale and taken over.
 */
export function acquireLock(file: string, pid: number = process.pid): LockResult {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (createExclusive(file, `${pid}\n`)) {
      return {
        acquired: true,
        release: () => {
          if (readPidFile(file) === pid) rmSync(file, { force: true });
        },
      };
    }
    const holder = readPidFile(file);
    if (holder !== undefined && isProcessAlive(holder)) return { acquired: false, heldBy: holder };
    if (holder === undefined) {
      // Being written right now, or empty after a crash: empty and older than a second is stale.
      try {
        if (Date.now() - statSync(file).mtimeMs < 1000) continue;
      } catch {
        continue;
      }
    }
    breakStaleLock(file);
  }
  const holder = readPidFile(file);
  return { acquired: false, heldBy: holder ?? 0 };
}

/**
 * Claims the right to start a daemon in the background. The claim expires after `maxAgeMs` so a
 * starter that died does not block the next one.
 */
export function claimStart(files: DaemonFiles, maxAgeMs = 10_000, now = Date.now()): boolean {
  if (createExclusive(files.starting, `${process.pid} ${now}\n`)) return true;
  try {
    if (now - statSync(files.starting).mtimeMs > maxAgeMs) {
      breakStaleLock(files.starting);
      return createExclusive(files.starting, `${process.pid} ${now}\n`);
    }
  } catch {}
  return false;
}

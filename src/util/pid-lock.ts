import { closeSync, linkSync, lstatSync, readFileSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { createPrivateFile, ensurePrivateDir, tempNameFor, writeAll } from './private-fs.js';

// The one lock file helper (the daemon's lock, the ledger's append lock, the daemon start claim).
// On the hook's start-up path: Node built-ins only.
//
// Why no two processes ever both hold it:
// - Taking it is one atomic, exclusive step: the content (our pid) is written to a private temp file
//   first, then hard-linked to the lock name. link(2) fails with EEXIST when the name exists, so of any
//   number of racers exactly one creates it, and a lock is never seen empty or half written.
// - Breaking a stale lock (its pid is gone) never deletes "whatever is at the lock name now". The
//   breaker first claims the very lock it judged stale, by an exclusive hard link to a name derived
//   from that lock's identity (inode, modification time in ns, pid): `<lock>.break.<ino>.<mtime>.<pid>`
//   (link(2) leaves the mtime alone, so every breaker of that lock derives the same name). Only one
//   breaker can create that name. The winner then checks that the name points to the lock it judged
//   (same inode, mtime and pid: the lock may have been replaced meanwhile, even on a reused inode; then
//   it backs off), and only then unlinks the
//   lock. Nobody else can have replaced the lock between that check and the unlink: the dead holder
//   cannot release it, every other breaker of the same lock lost the link, and a breaker of a different
//   (earlier) lock finds its claim pointing at the wrong inode and backs off. After the unlink, taking
//   the lock is again the exclusive link above. The holder releases only the inode it created.

export interface LockHolder {
  pid: number;
  /** ms since the lock was taken. */
  ageMs: number;
}

export type LockResult = { acquired: true; release: () => void } | { acquired: false; heldBy: number };

interface Seen {
  ino: bigint;
  mtimeNs: bigint;
  mtimeMs: number;
  pid: number | undefined;
}

function look(file: string): Seen | undefined {
  try {
    const st = lstatSync(file, { bigint: true });
    let pid: number | undefined;
    try {
      const n = Number.parseInt(readFileSync(file, 'utf8').trim().split(/\s+/)[0] ?? '', 10);
      pid = Number.isInteger(n) && n > 0 ? n : undefined;
    } catch {}
    // Re-check: the content must belong to the inode we stat'ed.
    const again = lstatSync(file, { bigint: true });
    if (again.ino !== st.ino || again.mtimeNs !== st.mtimeNs) return look(file);
    return { ino: st.ino, mtimeNs: st.mtimeNs, mtimeMs: Number(st.mtimeMs), pid };
  } catch {
    return undefined;
  }
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

/** The pid in a lock (or pid) file, or undefined. */
export function readLockPid(file: string): number | undefined {
  return look(file)?.pid;
}

/** How long ago the lock was taken, in ms (Infinity when there is none). */
export function lockAgeMs(file: string, now = Date.now()): number {
  const seen = look(file);
  return seen ? now - seen.mtimeMs : Infinity;
}

/** Creates `file` holding `content`, atomically and only if it does not exist. Returns its inode or undefined. */
function linkExclusive(file: string, content: string): bigint | undefined {
  const tmp = tempNameFor(file);
  const fd = createPrivateFile(tmp);
  try {
    writeAll(fd, content);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, file);
    return lstatSync(tmp, { bigint: true }).ino;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  } finally {
    try {
      unlinkSync(tmp);
    } catch {}
  }
}

/**
 * Removes the lock `seen` (and only that one): see the comment at the top. Returns true when it was
 * removed by us or is already gone.
 */
function breakLock(file: string, seen: Seen): boolean {
  const claim = `${file}.break.${seen.ino}.${seen.mtimeNs}.${seen.pid ?? 0}`;
  try {
    linkSync(file, claim);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT'; // gone already: fine; EEXIST: another breaker owns this takeover
  }
  try {
    // The lock may have been replaced meanwhile (even by a new file on a reused inode): not ours to break.
    const claimed = look(claim);
    if (claimed?.ino !== seen.ino || claimed.mtimeNs !== seen.mtimeNs || claimed.pid !== seen.pid)
      return false;
    unlinkSync(file);
    return true;
  } catch {
    return false;
  } finally {
    try {
      unlinkSync(claim);
    } catch {}
  }
}

export interface AcquireOptions {
  pid?: number;
  /** Extra text after the pid on the first line (a time stamp for claims). */
  note?: string;
  /**
   * When a lock counts as stale: by default when its pid is gone or it has no pid. A caller may add its
   * own rule (a lock older than N ms whose pid was reused).
   */
  isStale?: (holder: { pid: number | undefined; ageMs: number }) => boolean;
}

/** Takes the lock if it is free or stale (see the top of this file); never waits. */
export function acquireLock(file: string, options: AcquireOptions = {}): LockResult {
  const pid = options.pid ?? process.pid;
  ensurePrivateDir(dirname(file));
  const stale =
    options.isStale ?? ((h: { pid: number | undefined }) => h.pid === undefined || !isProcessAlive(h.pid));
  for (let attempt = 0; attempt < 5; attempt++) {
    const ino = linkExclusive(file, `${pid}${options.note ? ` ${options.note}` : ''}\n`);
    if (ino !== undefined) {
      return {
        acquired: true,
        release: () => {
          const now = look(file);
          if (now?.ino === ino) breakLock(file, now);
        },
      };
    }
    const seen = look(file);
    if (!seen) continue;
    if (!stale({ pid: seen.pid, ageMs: Date.now() - seen.mtimeMs }))
      return { acquired: false, heldBy: seen.pid ?? 0 };
    breakLock(file, seen);
  }
  return { acquired: false, heldBy: readLockPid(file) ?? 0 };
}

/** Removes the lock whatever its pid says (the caller proved it stale another way), race-free as above. */
export function forceBreakLock(file: string): void {
  const seen = look(file);
  if (seen) breakLock(file, seen);
}

export interface WaitLockOptions extends AcquireOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
}

/** Waits (polling, without blocking the event loop) until the lock is taken; returns its release. */
export async function waitForLock(file: string, options: WaitLockOptions = {}): Promise<() => void> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    const result = acquireLock(file, options);
    if (result.acquired) return result.release;
    if (Date.now() - started > timeoutMs) {
      throw new Error(
        `could not lock ${file} within ${timeoutMs} ms: process ${result.heldBy} holds it; remove the file if no hookd process is running`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(5 * (attempt + 1), 50)));
  }
}

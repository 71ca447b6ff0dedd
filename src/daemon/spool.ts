import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

// On the hook's start-up path: Node built-ins only.

/** `<13-digit ms>-<id>.json`: file names sort by time, then id; the daemon drains them in that order. */
export function spoolFileName(receivedAt: number, id: string): string {
  const safeId = /^[A-Za-z0-9_-]{1,80}$/.test(id) ? id : Buffer.from(id).toString('hex').slice(0, 80);
  return `${String(Math.max(0, Math.floor(receivedAt))).padStart(13, '0')}-${safeId}.json`;
}

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {}
}

/** Writes one message atomically: a temp file, fsync, rename into place, fsync the folder. */
export function writeSpoolFile(dir: string, name: string, content: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // pid + time + a random suffix: unique per writer, without loading node:crypto on the hook path.
  const tmp = join(
    dir,
    `.tmp-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`,
  );
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const target = join(dir, name);
  renameSync(tmp, target);
  fsyncDir(dir);
  return target;
}

/** Spooled files, oldest first (temp files of writers still at work are skipped). */
export function listSpool(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
      .sort();
  } catch {
    return [];
  }
}

export function readSpoolFile(dir: string, name: string): string | undefined {
  try {
    return readFileSync(join(dir, name), 'utf8');
  } catch {
    return undefined;
  }
}

export function removeSpoolFile(dir: string, name: string): void {
  rmSync(join(dir, name), { force: true });
}

/** Moves a spooled file that cannot be read as an event aside, so it is kept but not retried forever. */
export function quarantineSpoolFile(dir: string, name: string): void {
  try {
    mkdirSync(join(dir, 'rejected'), { recursive: true, mode: 0o700 });
    renameSync(join(dir, name), join(dir, 'rejected', name));
  } catch {}
}

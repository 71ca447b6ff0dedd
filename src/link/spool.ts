import { lstatSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, writePrivateFileAtomic } from '../util/private-fs.js';
import { spoolDir, type Env } from '../paths.js';
import type { EventHandoff } from '../events/types.js';
import { spoolWatched, spoolWatchFile } from './runtime-files.js';

// On the hook's start-up path: Node built-ins only.

/** `<13-digit ms>-<id>.json`: file names sort by time, then id; the daemon drains them in that order. */
export function spoolFileName(receivedAt: number, id: string): string {
  const safeId = /^[A-Za-z0-9_-]{1,80}$/.test(id) ? id : Buffer.from(id).toString('hex').slice(0, 80);
  return `${String(Math.max(0, Math.floor(receivedAt))).padStart(13, '0')}-${safeId}.json`;
}

/**
 * Writes one message atomically: a private temp file, fsync (unless `fsync` is false), rename into place,
 * fsync the folder.
 */
export function writeSpoolFile(
  dir: string,
  name: string,
  content: string,
  options: { fsync?: boolean } = {},
): string {
  const target = join(dir, name);
  writePrivateFileAtomic(target, content, { fsync: options.fsync ?? true });
  return target;
}

/** Writes an event into the spool, atomically (fsynced unless `fsync` is false); throws if it cannot. */
export function spoolEvent(message: EventHandoff, env: Env, fsync = true): void {
  writeSpoolFile(
    spoolDir(env),
    spoolFileName(message.event.receivedAt, message.event.id),
    `${JSON.stringify(message)}\n`,
    { fsync },
  );
}

/**
 * The hook's hand-off while a daemon runs that watches the spool (docs/daemon.md, "The spool"): the event
 * is left there for it, with no connection and no wait for its journal; as durable as an acknowledgement
 * (fsynced with `fsync`). False when no running daemon watches it or the file cannot be written: then
 * the socket, as before.
 */
export function queueForDaemon(message: EventHandoff, env: Env, fsync = true): boolean {
  if (!spoolWatched(spoolWatchFile(env))) return false;
  try {
    spoolEvent(message, env, fsync);
    return true;
  } catch {
    return false;
  }
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

/**
 * A spooled file's text; undefined when it is gone (another drain took it). Anything else that is not a
 * readable regular file (a folder named `x.json`, a symlink) is moved to `rejected/` and yields "".
 */
export function readSpoolFile(dir: string, name: string): string | undefined {
  const file = join(dir, name);
  try {
    if (!lstatSync(file).isFile()) throw new Error('not a regular file');
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return '';
  }
}

export function removeSpoolFile(dir: string, name: string): void {
  rmSync(join(dir, name), { force: true });
}

/** Moves a spooled file that cannot be read as an event aside, so it is kept but not retried forever. */
export function quarantineSpoolFile(dir: string, name: string): void {
  try {
    ensurePrivateDir(join(dir, 'rejected'));
    renameSync(join(dir, name), join(dir, 'rejected', name));
  } catch {}
}

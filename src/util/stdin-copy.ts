import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, unlinkSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { readOpenFile } from './private-fs.js';

/**
 * The fast client's copy of the agent's stdin (bin/hookd-client.bash), when stdin is over 4 KiB or has a
 * NUL byte, or when the client falls back: `c.<pid>.<random>` in the private runtime dir. The daemon
 * reads the copy named in a request and unlinks it at GO; the Node path the client falls back to gets
 * the copy as stdin and its path in HOOKD_CLIENT_STDIN_COPY, and unlinks it; the daemon sweeps what a
 * killed client left behind. Every path is checked before it is read or removed.
 */
export const STDIN_COPY_NAME = /^c\.\d{1,10}\.\d{1,12}$/;
/** Also swept: `o.<pid>.<random>`, where the client splits an answer with both stdout and stderr. */
const SWEPT_NAME = /^[co]\.\d{1,10}\.\d{1,12}$/;

const uid = (): number | undefined => process.getuid?.();

/** Why `path` is not a stdin copy of this runtime dir by its name; undefined when it may be one. */
export function stdinCopyNameProblem(path: string, runtimeDir: string): string | undefined {
  if (!isAbsolute(path) || resolve(dirname(path)) !== resolve(runtimeDir))
    return 'not in the private runtime dir';
  if (!STDIN_COPY_NAME.test(basename(path))) return 'not a stdin copy name (c.<pid>.<n>)';
  return undefined;
}

export type StdinCopyRead = { ok: true; bytes: Buffer } | { ok: false; problem: string };

/**
 * Reads a stdin copy named by a request: by name inside `runtimeDir`, not through a symlink
 * (O_NOFOLLOW), a regular file with one link, owned by this user, at most `maxBytes`.
 */
export function readStdinCopy(path: string, runtimeDir: string, maxBytes: number): StdinCopyRead {
  const nameProblem = stdinCopyNameProblem(path, runtimeDir);
  if (nameProblem) return { ok: false, problem: nameProblem };
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, problem: code === 'ELOOP' ? 'a symlink' : `cannot open: ${code ?? 'error'}` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, problem: 'not a regular file' };
    if (st.nlink !== 1) return { ok: false, problem: 'has other links' };
    const me = uid();
    if (me !== undefined && st.uid !== me) return { ok: false, problem: `owned by uid ${st.uid}` };
    if (st.size > maxBytes) return { ok: false, problem: `${st.size} bytes, over ${maxBytes}` };
    return { ok: true, bytes: readOpenFile(fd, st.size) };
  } catch (error) {
    return { ok: false, problem: `cannot read: ${(error as Error).message}` };
  } finally {
    closeSync(fd);
  }
}

/** Removes a regular file of ours (lstat: a symlink is never followed nor removed). */
function removeOwn(path: string): boolean {
  try {
    const st = lstatSync(path);
    const me = uid();
    if (!st.isFile() || (me !== undefined && st.uid !== me)) return false;
    unlinkSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Unlinks a stdin copy once read. Returns why nothing was removed, when the path is not a stdin copy of
 * this runtime dir (by name, then by lstat: a regular file of ours).
 */
export function releaseStdinCopy(path: string, runtimeDir: string): string | undefined {
  const nameProblem = stdinCopyNameProblem(path, runtimeDir);
  if (nameProblem) return nameProblem;
  return removeOwn(path) ? undefined : 'not a regular file of this user';
}

/** Removes the client files older than `maxAgeMs` that killed clients left; returns how many. */
export function sweepStdinCopies(runtimeDir: string, now: number, maxAgeMs: number): number {
  let names: string[];
  try {
    names = readdirSync(runtimeDir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!SWEPT_NAME.test(name)) continue;
    const path = join(runtimeDir, name);
    try {
      if (now - lstatSync(path).mtimeMs < maxAgeMs) continue;
    } catch {
      continue;
    }
    if (removeOwn(path)) removed++;
  }
  return removed;
}

import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  chmodSync,
} from 'node:fs';
import { dirname } from 'node:path';

/**
 * Private files of hookd's own state (trust records, the config caches): 0600 files in 0700 dirs, never
 * written or read through a symlink. Built-ins only: the hook path uses it.
 * (H3 is writing the shared helper for the daemon's files; this one is the config side's, to be unified.)
 */

const uid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/** Why a path cannot be used as a private dir or file, or undefined when it can. */
function ownershipProblem(
  st: { uid: number; mode: number },
  what: string,
  path: string,
  mask: number,
): string | undefined {
  const me = uid();
  if (me !== undefined && st.uid !== me)
    return `${what} ${path} is owned by uid ${st.uid}, not by you (${me})`;
  if ((st.mode & mask) !== 0)
    return `${what} ${path} has mode ${(st.mode & 0o777).toString(8)}: others can change it`;
  return undefined;
}

/** Creates `dir` (0700) if needed; refuses a symlink or a dir owned by someone else; tightens our own. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // A symlinked dir is followed (users relocate state dirs that way); its owner is what protects it.
  const st = statSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory; refusing to use it`);
  const problem = ownershipProblem(st, 'folder', dir, 0);
  if (problem) throw new Error(problem);
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/**
 * Writes `text` to `file` atomically and privately: a fresh temp file (O_EXCL | O_NOFOLLOW, 0600) in the
 * same dir, then a rename over the target, which replaces a planted symlink instead of following it.
 */
export function writePrivateFile(file: string, text: string): void {
  ensurePrivateDir(dirname(file));
  const tmp = `${file}.${process.pid}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`;
  const fd = openSync(
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    const buf = Buffer.from(text);
    for (let at = 0; at < buf.length;) at += writeSync(fd, buf, at);
  } catch (error) {
    closeSync(fd);
    unlinkSync(tmp);
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(tmp, file);
  } catch (error) {
    unlinkSync(tmp);
    throw error;
  }
}

/** Reads up to `size` bytes of an open file from its start (fewer if it shrank meanwhile). */
export function readOpenFile(fd: number, size: number): Buffer {
  const buf = Buffer.alloc(size);
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

export type PrivateRead =
  { ok: true; text: string } | { ok: false; missing: true } | { ok: false; missing: false; problem: string };

/**
 * Reads a private file written by writePrivateFile: not through a symlink (O_NOFOLLOW), a regular file
 * owned by this user that group and others cannot write, at most `maxBytes`. Anything else is a problem
 * to report, never a throw.
 */
export function readPrivateFile(file: string, maxBytes: number): PrivateRead {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, missing: true };
    if (code === 'ELOOP') return { ok: false, missing: false, problem: `${file} is a symlink; not followed` };
    return { ok: false, missing: false, problem: `cannot open ${file}: ${(error as Error).message}` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, missing: false, problem: `${file} is not a regular file` };
    const problem = ownershipProblem(st, 'file', file, 0o022);
    if (problem) return { ok: false, missing: false, problem };
    if (st.size > maxBytes)
      return {
        ok: false,
        missing: false,
        problem: `${file} is ${st.size} bytes, over the ${maxBytes} limit`,
      };
    return { ok: true, text: readOpenFile(fd, st.size).toString('utf8') };
  } catch (error) {
    return { ok: false, missing: false, problem: `cannot read ${file}: ${(error as Error).message}` };
  } finally {
    closeSync(fd);
  }
}

import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  statSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

// Every file hookd writes goes through this module: 0600 files in 0700 folders that belong to the user,
// never through a symlink. Every file it reads that others could name or replace is opened by
// openRegularFile. On the hook's start-up path: Node built-ins only (no node:crypto).

/** O_NOFOLLOW where the OS has it (not on Windows, which has no such planted-symlink attack surface). */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const CREATE_EXCLUSIVE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW;

/** A folder or file hookd refuses to use: another user's, writable by others, or a symlink. */
export class UnsafePathError extends Error {
  readonly code = 'EUNSAFE';
  constructor(message: string) {
    super(message);
    this.name = 'UnsafePathError';
  }
}

/** This process's uid (undefined where there are none, Windows). */
export const myUid = (): number | undefined =>
  typeof process.getuid === 'function' ? process.getuid() : undefined;

/**
 * Why `dir` is not a private folder of this user (undefined when it is): it must be a folder owned by this
 * uid that nobody else can write to. A symlinked folder is judged by what it points to (users relocate
 * state dirs that way; the owner and mode of the target are what protect it).
 */
export function privateDirProblem(dir: string): string | undefined {
  let st;
  try {
    st = statSync(dir);
  } catch (error) {
    return `${dir} cannot be checked: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
  }
  if (!st.isDirectory()) return `${dir} is not a directory`;
  const uid = myUid();
  if (uid !== undefined && st.uid !== uid) return `${dir} belongs to another user (uid ${st.uid})`;
  if ((st.mode & 0o022) !== 0) return `${dir} is writable by others (mode ${(st.mode & 0o7777).toString(8)})`;
  return undefined;
}

/**
 * Creates `dir` (and missing parents) as 0700, or checks an existing one: it must be this user's real
 * folder, writable by nobody else; a folder that others can only read or enter is tightened to 0700.
 * Throws UnsafePathError otherwise (never chmods a folder that is not ours or others can write to).
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const problem = privateDirProblem(dir);
  if (problem) throw new UnsafePathError(`${problem}; refusing to use it (chmod 700 it, or pick another)`);
  const mode = statSync(dir).mode;
  if ((mode & 0o077) !== 0) {
    // Ours and not writable by others: tighten it to 0700 through an fd of the folder itself.
    const fd = openSync(dir, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
    try {
      fchmodSync(fd, 0o700);
    } finally {
      closeSync(fd);
    }
  }
}

let counter = 0;
/** A unique temp name next to `file`: pid, time and a counter (no node:crypto on the hook path). */
export function tempNameFor(file: string): string {
  counter = (counter + 1) % 1e9;
  return join(
    dirname(file),
    `.${basename(file)}.${process.pid}.${Date.now().toString(36)}.${counter.toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`,
  );
}

/** Opens a new file that must not exist yet (O_CREAT|O_EXCL|O_NOFOLLOW, 0600). Returns the fd. */
export function createPrivateFile(file: string): number {
  return openSync(file, CREATE_EXCLUSIVE, 0o600);
}

/** fsyncs a folder so a rename or a new name in it survives a power loss (some file systems refuse). */
export function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {}
}

/** Writes all of `data` (a nearly full disk may take a write in parts); returns the bytes written. */
export function writeAll(fd: number, data: string | Uint8Array): number {
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  for (let offset = 0; offset < buf.length;) offset += writeSync(fd, buf, offset, buf.length - offset);
  return buf.length;
}

export interface PrivateWriteOptions {
  /** fsync the file before the rename and the folder after it (default false). */
  fsync?: boolean;
  /** Check (or create) the folder first (default true; false when the caller just did). */
  ensureDir?: boolean;
}

/**
 * Replaces `file` atomically with `data`: a fresh 0600 temp file in the same folder (O_EXCL|O_NOFOLLOW),
 * optionally fsynced, renamed over the target. rename replaces a planted symlink itself, never its
 * target. `data` may be an iterable of chunks (a journal snapshot) written in turn.
 */
export function writePrivateFileAtomic(
  file: string,
  data: string | Uint8Array | Iterable<string>,
  options: PrivateWriteOptions = {},
): number {
  const dir = dirname(file);
  if (options.ensureDir !== false) ensurePrivateDir(dir);
  const tmp = tempNameFor(file);
  const fd = createPrivateFile(tmp);
  let bytes = 0;
  try {
    try {
      if (typeof data === 'string' || data instanceof Uint8Array) bytes += writeAll(fd, data);
      else {
        let chunk = '';
        for (const part of data) {
          chunk += part;
          if (chunk.length >= 1 << 16) {
            bytes += writeAll(fd, chunk);
            chunk = '';
          }
        }
        if (chunk) bytes += writeAll(fd, chunk);
      }
      if (options.fsync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
  if (options.fsync) fsyncDir(dir);
  return bytes;
}

/**
 * Opens `file` for appending (O_APPEND|O_CREAT|O_NOFOLLOW, 0600) in a private folder. An existing file
 * must be a regular file of this user; one others could read is tightened to 0600. Returns the fd.
 */
export function openPrivateAppend(file: string, options: { ensureDir?: boolean } = {}): number {
  if (options.ensureDir !== false) ensurePrivateDir(dirname(file));
  const fd = openSync(file, APPEND, 0o600);
  try {
    const st = fstatSync(fd);
    const uid = myUid();
    if (!st.isFile()) throw new UnsafePathError(`${file} is not a regular file`);
    if (uid !== undefined && st.uid !== uid)
      throw new UnsafePathError(`${file} belongs to another user (uid ${st.uid})`);
    if ((st.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Flags for fs/promises `open` with the same rules, for async appenders (the journal); mode 0600. */
export const PRIVATE_APPEND_FLAGS = APPEND;
/** The same, readable too (the ledger reads its last byte before appending). */
export const PRIVATE_APPEND_READ_FLAGS = (APPEND & ~constants.O_WRONLY) | constants.O_RDWR;

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

/** A file refused for what its descriptor says it is: not a regular file, or larger than allowed. */
export class RefusedFileError extends Error {
  constructor(
    message: string,
    readonly code: 'ENOTREG' | 'EISDIR' | 'EFBIG',
    /** The file's size, for EFBIG. */
    readonly size = 0,
  ) {
    super(message);
    this.name = 'RefusedFileError';
  }
}

/**
 * Opens a file for reading without ever waiting on it, and judges what was opened by its descriptor,
 * never by its name: every file hookd reads that an event, a repository or another program could have
 * named or replaced goes through here. O_NONBLOCK, so a FIFO's open returns at once instead of waiting
 * for a writer (on a regular file the flag changes nothing); O_NOCTTY, so a terminal never becomes
 * hookd's; O_NOFOLLOW on request. Then fstat: anything but a regular file (a FIFO, a device, a socket, a
 * directory) or one over `maxBytes` is closed again and refused with a RefusedFileError (code ENOTREG,
 * EISDIR or EFBIG); open's own errors (ENOENT, EACCES, ELOOP) are thrown as they are. Synchronous: an open that
 * cannot block is cheaper on the calling thread than a round trip to the thread pool, where a blocking
 * open would hold one of its four threads. The caller closes the returned fd.
 */
export function openRegularFile(
  file: string,
  options: { maxBytes?: number; noFollow?: boolean } = {},
): { fd: number; stats: Stats } {
  const flags =
    constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0) | (options.noFollow ? NOFOLLOW : 0);
  const fd = openSync(file, flags);
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory()) throw new RefusedFileError(`${file} is a directory`, 'EISDIR');
    if (!stats.isFile()) throw new RefusedFileError(`${file} is not a regular file`, 'ENOTREG');
    if (options.maxBytes !== undefined && stats.size > options.maxBytes)
      throw new RefusedFileError(
        `${file} is ${stats.size} bytes, over the ${options.maxBytes} limit`,
        'EFBIG',
        stats.size,
      );
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** The whole of a regular file of at most `maxBytes`, opened and judged by openRegularFile; throws as it does. */
export function readRegularFile(
  file: string,
  maxBytes: number,
  options: { noFollow?: boolean } = {},
): Buffer {
  const { fd, stats } = openRegularFile(file, { ...options, maxBytes });
  try {
    return readOpenFile(fd, stats.size);
  } finally {
    closeSync(fd);
  }
}

export type PrivateRead =
  { ok: true; text: string } | { ok: false; missing: true } | { ok: false; missing: false; problem: string };

/**
 * Reads a private file written by writePrivateFileAtomic: not through a symlink (O_NOFOLLOW), a regular
 * file owned by this user that group and others cannot write, at most `maxBytes`. Anything else is a
 * problem to report, never a throw.
 */
export function readPrivateFile(file: string, maxBytes: number): PrivateRead {
  let opened: { fd: number; stats: Stats };
  try {
    opened = openRegularFile(file, { noFollow: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, missing: true };
    if (code === 'ELOOP') return { ok: false, missing: false, problem: `${file} is a symlink; not followed` };
    if (error instanceof RefusedFileError) return { ok: false, missing: false, problem: error.message };
    return { ok: false, missing: false, problem: `cannot open ${file}: ${(error as Error).message}` };
  }
  const { fd, stats: st } = opened;
  try {
    const uid = myUid();
    if (uid !== undefined && st.uid !== uid)
      return {
        ok: false,
        missing: false,
        problem: `file ${file} is owned by uid ${st.uid}, not by you (${uid})`,
      };
    if ((st.mode & 0o022) !== 0)
      return {
        ok: false,
        missing: false,
        problem: `file ${file} has mode ${(st.mode & 0o777).toString(8)}: others can change it`,
      };
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

import { closeSync, read } from 'node:fs';
import { promisify } from 'node:util';
import { RefusedFileError, openRegularFile } from '../util/private-fs.js';

/** A read that failed is a value: the reason in words (no file contents). */
export type BoundedRead<T> =
  { ok: true; value: T; bytes: number } | { ok: false; reason: string; bytes: number };

function describeError(error: unknown, maxBytes?: number): string {
  if (error instanceof RefusedFileError && error.code === 'EFBIG')
    return `too big (${error.size} bytes${maxBytes === undefined ? '' : `, limit ${maxBytes}`})`;
  if (error instanceof RefusedFileError && error.code === 'ENOTREG')
    return 'not a regular file (a FIFO, device or socket is never read)';
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'missing';
  if (code === 'EACCES' || code === 'EPERM') return 'not readable (permission denied)';
  if (code === 'EISDIR') return 'a directory, not a file';
  return code ? `not readable (${code})` : 'not readable';
}

/**
 * Read and parse a JSON file of at most `maxBytes`. Missing, too big, partial or corrupt files and
 * anything that is not a regular file come back as `{ok: false, reason}`; it never throws. Opened by
 * openRegularFile (never waits on a FIFO); the bytes are read off the main thread.
 */
export async function readJsonFileBounded(path: string, maxBytes: number): Promise<BoundedRead<unknown>> {
  let fd: number | undefined;
  try {
    const opened = openRegularFile(path, { maxBytes });
    fd = opened.fd;
    const buffer = await readAt(fd, 0, opened.stats.size);
    try {
      return { ok: true, value: JSON.parse(buffer.toString('utf8')), bytes: buffer.length };
    } catch {
      return { ok: false, reason: 'not valid JSON (partial or corrupt)', bytes: buffer.length };
    }
  } catch (error) {
    return { ok: false, reason: describeError(error, maxBytes), bytes: 0 };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const readFd = promisify(read);

/** Read `length` bytes of an open file at `position`; fewer when the file is shorter. */
export async function readAt(fd: number, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(Math.max(0, length));
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await readFd(fd, buffer, filled, buffer.length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === buffer.length ? buffer : buffer.subarray(0, filled);
}

export { describeError as describeReadError };

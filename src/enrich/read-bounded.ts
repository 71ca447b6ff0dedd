import { open, type FileHandle } from 'node:fs/promises';

/** A read that failed is a value: the reason in words (no file contents). */
export type BoundedRead<T> =
  { ok: true; value: T; bytes: number } | { ok: false; reason: string; bytes: number };

function describeError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'missing';
  if (code === 'EACCES' || code === 'EPERM') return 'not readable (permission denied)';
  if (code === 'EISDIR') return 'a directory, not a file';
  return code ? `not readable (${code})` : 'not readable';
}

/**
 * Read and parse a JSON file of at most `maxBytes`. Missing, too big, partial or corrupt files come back
 * as `{ok: false, reason}`; it never throws.
 */
export async function readJsonFileBounded(path: string, maxBytes: number): Promise<BoundedRead<unknown>> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, 'r');
    const { size } = await handle.stat();
    if (size > maxBytes) return { ok: false, reason: `too big (${size} bytes, limit ${maxBytes})`, bytes: 0 };
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await handle.read(buffer, 0, size, 0);
    try {
      return { ok: true, value: JSON.parse(buffer.toString('utf8', 0, bytesRead)), bytes: bytesRead };
    } catch {
      return { ok: false, reason: 'not valid JSON (partial or corrupt)', bytes: bytesRead };
    }
  } catch (error) {
    return { ok: false, reason: describeError(error), bytes: 0 };
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** Read `length` bytes at `position`; fewer when the file is shorter. */
export async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(Math.max(0, length));
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === buffer.length ? buffer : buffer.subarray(0, filled);
}

export { describeError as describeReadError };

import { closeSync, lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { createPrivateFile, ensurePrivateDir, writeAll } from '../util/private-fs.js';
import { JsonScanner, type ScanOptions, type ScanResult } from './json-scan.js';

/** A stdin too large to hold in memory, kept whole in a private file while its commands run. */
export interface SpilledStdin {
  path: string;
  size: number;
  /** The scan of the whole stdin (with a bounded copy of the event when the limits asked to build one). */
  scan: ScanResult;
}

export type StdinResult =
  | {
      ok: true;
      /** The whole stdin; or, when it was spilled, its first `memoryBytes`. */
      bytes: Buffer;
      spilled?: SpilledStdin;
    }
  | {
      ok: false;
      reason: 'too-big' | 'timeout' | 'error';
      /** What was read, up to `memoryBytes`, for the dead letter. */
      bytes: Buffer;
      detail: string;
      /** The scan of all that was read, when stdin had gone to a file (else scan `bytes`). */
      scan?: ScanResult;
    };

export interface StdinLimits {
  /** Bytes accepted in all; a larger stdin is rejected. */
  maxBytes: number;
  /** How long to wait for more bytes: an agent that stops writing and never closes stdin is given up. */
  timeoutMs: number;
  /** Bytes held in memory (default maxBytes); past them stdin goes to a private file (`spillDir`). */
  memoryBytes?: number;
  /** Where a stdin over memoryBytes goes (private, 0700); absent: it is held in memory. */
  spillDir?: string;
  /** How a spilled stdin is scanned (its bounded copy). */
  scan?: ScanOptions;
}

/** Spill files: `<pid>.<ms>.<n>.json`. */
const SPILL_NAME = /^\d{1,10}\.\d{1,15}\.\d{1,12}\.json$/;
/** A spill file older than this was left by a hook the agent killed. */
const STALE_SPILL_MS = 10 * 60_000;
let spills = 0;

/** Removes spill files of killed hooks (older than STALE_SPILL_MS); never follows a symlink. */
function sweepSpills(dir: string, now: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!SPILL_NAME.test(name)) continue;
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      if (st.isFile() && now - st.mtimeMs > STALE_SPILL_MS) unlinkSync(path);
    } catch {}
  }
}

/** A new private file in `dir` (0600, O_EXCL, O_NOFOLLOW; the folder 0700 and the user's). */
function createSpill(dir: string): { path: string; fd: number } {
  ensurePrivateDir(dir);
  const now = Date.now();
  sweepSpills(dir, now);
  spills = (spills + 1) % 1e12;
  const path = join(dir, `${process.pid}.${now}.${spills}.json`);
  return { path, fd: createPrivateFile(path) };
}

/** Removes a spill file once its commands are done (a missing one is fine). */
export function removeSpill(path: string): void {
  try {
    unlinkSync(path);
  } catch {}
}

/**
 * Reads the whole of stdin once: at most `maxBytes` (the rest is drained and dropped), giving up when
 * nothing more comes for `timeoutMs` (an agent that never closes stdin cannot hold hookd). Past
 * `memoryBytes` the bytes go on to a private file in `spillDir` and are scanned on the way
 * (json-scan.ts), so memory stays bounded whatever the agent sends. What was read is always returned,
 * so a rejected input can still be kept for inspection and its event named.
 */
export function readStdin(stream: Readable, limits: StdinLimits): Promise<StdinResult> {
  const memoryBytes = Math.min(limits.memoryBytes ?? limits.maxBytes, limits.maxBytes);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let held = 0;
    let size = 0;
    let spill: { path: string; fd: number; scanner: JsonScanner } | undefined;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;

    const finish = (result: StdinResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
      stream.pause();
      resolve(result);
    };
    const head = () => Buffer.concat(chunks, held);
    const closeSpill = (): SpilledStdin | undefined => {
      if (!spill) return undefined;
      try {
        closeSync(spill.fd);
      } catch {}
      return { path: spill.path, size, scan: spill.scanner.end() };
    };
    const fail = (reason: 'too-big' | 'timeout' | 'error', detail: string) => {
      const spilled = closeSpill();
      if (spilled) removeSpill(spilled.path);
      finish({ ok: false, reason, bytes: head(), detail, ...(spilled ? { scan: spilled.scan } : {}) });
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(
        () => fail('timeout', `stdin was not closed: nothing more came for ${limits.timeoutMs} ms`),
        limits.timeoutMs,
      );
      timer.unref?.();
    };
    /** Holds a chunk (in memory up to memoryBytes, then in the spill file); false once it failed. */
    const take = (buf: Buffer): boolean => {
      size += buf.length;
      if (!spill && held + buf.length <= memoryBytes) {
        chunks.push(buf);
        held += buf.length;
        return true;
      }
      try {
        if (!spill) {
          if (!limits.spillDir) throw new Error('no folder to keep it in');
          const file = createSpill(limits.spillDir);
          spill = { ...file, scanner: new JsonScanner(limits.scan) };
          for (const chunk of chunks) {
            writeAll(spill.fd, chunk);
            spill.scanner.push(chunk);
          }
        }
        if (held < memoryBytes) {
          const part = buf.subarray(0, memoryBytes - held);
          chunks.push(part);
          held += part.length;
        }
        writeAll(spill.fd, buf);
        spill.scanner.push(buf);
        return true;
      } catch (error) {
        fail(
          'error',
          `stdin (over ${memoryBytes} bytes) could not be kept on disk: ${(error as Error).message}`,
        );
        return false;
      }
    };
    const onData = (chunk: Buffer | string) => {
      if (settled) return;
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      arm();
      if (size + buf.length > limits.maxBytes) {
        if (take(buf.subarray(0, limits.maxBytes - size)))
          fail('too-big', `stdin is larger than ${limits.maxBytes} bytes`);
        // Keep draining so the agent's write does not block on a full pipe.
        stream.on('data', () => {});
        stream.resume();
        return;
      }
      if (!take(buf)) {
        stream.on('data', () => {});
        stream.resume();
      }
    };
    const onEnd = () => {
      const spilled = closeSpill();
      finish(spilled ? { ok: true, bytes: head(), spilled } : { ok: true, bytes: head() });
    };
    const onError = (error: Error) => fail('error', error.message);
    arm();
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.resume();
  });
}

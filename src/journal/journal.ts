import { closeSync, constants, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  ensurePrivateDir,
  openPrivateAppend,
  writeAll,
  PRIVATE_APPEND_FLAGS,
  writePrivateFileAtomic,
} from '../util/private-fs.js';

export interface JournalOptions<R> {
  fsync: boolean;
  /** Validates a parsed line; a line that is not JSON or fails here is quarantined, never returned. */
  parse?: (value: unknown) => R | undefined;
  /** While the disk refuses a write, it is retried this often (default 1000 ms). */
  retryMs?: number;
  /** Called when a write fails (ENOSPC, EIO...) and when writes work again. */
  onTrouble?: (error: Error | undefined) => void;
}

/** How much of the journal a start reads at once. */
export const JOURNAL_READ_CHUNK = 1024 * 1024;

/** A complete line of a file: its text (without the newline) and where it starts, in bytes. */
interface FileLine {
  text: string;
  at: number;
}

/**
 * The complete lines of a file, read a chunk at a time, so a start holds one chunk and the line being
 * read, not the whole journal as one string. A last line without its newline (a torn write) is not
 * yielded. The generator returns the byte length of the complete lines and of the whole file.
 */
function* fileLines(
  file: string,
  chunkBytes = JOURNAL_READ_CHUNK,
): Generator<FileLine, { complete: number; size: number }> {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { complete: 0, size: 0 };
    throw error;
  }
  try {
    const chunk = Buffer.alloc(chunkBytes);
    let rest = Buffer.alloc(0);
    /** Where `rest` starts in the file. */
    let restAt = 0;
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) return { complete: restAt, size: restAt + rest.length };
      const data = rest.length > 0 ? Buffer.concat([rest, chunk.subarray(0, read)]) : chunk.subarray(0, read);
      let start = 0;
      // A newline byte never occurs inside a multi-byte UTF-8 character: each line decodes on its own.
      for (let nl = data.indexOf(10, start); nl >= 0; nl = data.indexOf(10, start)) {
        yield { text: data.toString('utf8', start, nl), at: restAt + start };
        start = nl + 1;
      }
      restAt += start;
      rest = Buffer.from(data.subarray(start));
    }
  } finally {
    closeSync(fd);
  }
}

export interface JournalTrouble {
  error: string;
  code?: string | undefined;
  since: number;
}

/**
 * An append-only JSON-lines file with group commit: records appended in the same moment share one
 * write and one fdatasync, and each append resolves only once its records are on disk.
 * Replay skips a torn last line (a crash mid-write) and trims it so later appends stay readable; lines
 * that do not parse or validate are moved to `<name>.quarantine.jsonl`. A write the disk refuses (full,
 * I/O error) is cut back to the last whole record and retried until it succeeds: the appends wait, and
 * `trouble` says why, so the owner can refuse new work meanwhile. Nothing is lost or written twice.
 */
export class Journal<R extends object> {
  private handle: FileHandle | undefined;
  private queue: { lines: string; resolve: () => void; reject: (error: Error) => void }[] = [];
  private flushing: Promise<void> | undefined;
  private bytes = 0;
  private rewriting: Promise<void> | undefined;
  private closing = false;
  private wakeRetry: (() => void) | undefined;
  /** Set while the disk refuses writes. */
  trouble: JournalTrouble | undefined;
  /** Lines set aside by the last open(). */
  quarantined = 0;

  constructor(
    readonly file: string,
    private readonly options: JournalOptions<R>,
  ) {}

  get quarantineFile(): string {
    return this.file.replace(/\.jsonl$/, '') + '.quarantine.jsonl';
  }

  /**
   * Reads every complete, valid record, repairs a torn tail, quarantines invalid lines, and opens the
   * file for appending. `readOnly` (a status view without the lock) changes no file. With `each`, each
   * record goes to it as it is read and none is kept: a start then holds one record at a time, not the
   * whole journal parsed at once.
   */
  async open(options: { readOnly?: boolean; each?: (record: R) => void } = {}): Promise<R[]> {
    if (!options.readOnly) ensurePrivateDir(dirname(this.file));
    const records: R[] = [];
    const bad: string[] = [];
    /** Where each bad line starts, so a rewrite keeps every other line without a copy of them all. */
    const badAt = new Set<number>();
    const lines = fileLines(this.file);
    let next = lines.next();
    for (; !next.done; next = lines.next()) {
      const { text: line, at } = next.value;
      if (!line) continue;
      let record: R | undefined;
      try {
        const value: unknown = JSON.parse(line);
        record = this.options.parse
          ? this.options.parse(value)
          : value !== null && typeof value === 'object'
            ? (value as R)
            : undefined;
      } catch {}
      if (!record) {
        bad.push(`${line}\n`);
        badAt.add(at);
      } else if (options.each) options.each(record);
      else records.push(record);
    }
    /** The bytes of the complete lines: a torn last line after them is cut off. */
    const { complete: end, size } = next.value;
    this.quarantined = bad.length;
    if (options.readOnly) return records;
    if (bad.length > 0) {
      const fd = openPrivateAppend(this.quarantineFile, { ensureDir: false });
      try {
        writeAll(fd, bad.join(''));
      } finally {
        closeSync(fd);
      }
      const file = this.file;
      const kept = function* () {
        for (const line of fileLines(file)) if (line.text && !badAt.has(line.at)) yield `${line.text}\n`;
      };
      this.bytes = writePrivateFileAtomic(this.file, kept(), { fsync: true, ensureDir: false });
    } else {
      if (size > end) {
        const fd = openSync(this.file, constants.O_RDWR | (constants.O_NOFOLLOW ?? 0));
        try {
          ftruncateSync(fd, end);
        } finally {
          closeSync(fd);
        }
      }
      this.bytes = end;
    }
    this.handle = await open(this.file, PRIVATE_APPEND_FLAGS, 0o600);
    return records;
  }

  get size(): number {
    return this.bytes;
  }

  /** Resolves once the records are written (and fsynced when configured). */
  append(records: readonly R[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    const lines = records.map((r) => `${JSON.stringify(r)}\n`).join('');
    return new Promise((resolve, reject) => {
      this.queue.push({ lines, resolve, reject });
      this.flushing ??= this.flushLoop();
    });
  }

  private async flushLoop(): Promise<void> {
    // Let appends from the same tick join this batch.
    await new Promise((r) => setImmediate(r));
    if (this.rewriting) await this.rewriting.catch(() => {});
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      const data = Buffer.from(batch.map((b) => b.lines).join(''));
      for (;;) {
        try {
          if (!this.handle) throw new Error('journal is closed');
          // Written synchronously: an append of a few records to the page cache takes microseconds,
          // while a FileHandle write costs two thread-pool hops (0.5-4.5 ms of an event's hand-off under
          // load); the hook and the fast client wait for it. Only the optional fdatasync stays async.
          // A nearly full disk takes part of a write without an error: write the rest until it is all
          // there (or the disk says no), never count a short write as whole.
          const fd = this.handle.fd;
          for (let offset = 0; offset < data.length;)
            offset += writeSync(fd, data, offset, data.length - offset);
          if (this.options.fsync) await this.handle.datasync();
          this.bytes += data.length;
          if (this.trouble) {
            this.trouble = undefined;
            this.options.onTrouble?.(undefined);
          }
          for (const b of batch) b.resolve();
          break;
        } catch (error) {
          const err = error as NodeJS.ErrnoException;
          if (!this.handle || this.closing) {
            for (const b of batch) b.reject(err);
            break;
          }
          // Cut a partly written batch back to the last whole record, then retry the whole batch later.
          await this.handle.truncate(this.bytes).catch(() => {});
          if (!this.trouble) {
            this.trouble = { error: err.message, code: err.code, since: Date.now() };
            this.options.onTrouble?.(err);
          }
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, this.options.retryMs ?? 1000);
            this.wakeRetry = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          this.wakeRetry = undefined;
        }
      }
    }
    this.flushing = undefined;
  }

  /** Waits for every queued append. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /**
   * Replaces the file with a snapshot of the live records (temp file, fsync, rename). Appends queued
   * meanwhile wait and then go to the new file; records are idempotent, so one that is both in the
   * snapshot and appended after it is harmless.
   */
  async rewrite(snapshot: () => readonly R[]): Promise<void> {
    await this.drain();
    const work = this.replaceWith(snapshot());
    this.rewriting = work;
    try {
      await work;
    } finally {
      this.rewriting = undefined;
    }
  }

  private async replaceWith(records: readonly R[]): Promise<void> {
    const lines = function* () {
      for (const record of records) yield `${JSON.stringify(record)}\n`;
    };
    const size = writePrivateFileAtomic(this.file, lines(), { fsync: true, ensureDir: false });
    const old = this.handle;
    this.handle = await open(this.file, PRIVATE_APPEND_FLAGS, 0o600);
    this.bytes = size;
    await old?.close();
  }

  async close(): Promise<void> {
    if (this.trouble) {
      // The disk still refuses: give up on what waits (it was never acknowledged, so nothing is lost).
      this.closing = true;
      this.wakeRetry?.();
    }
    await this.drain();
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
  }
}

/** What status and doctor say while the daemon cannot write its journal (a full disk). */
export function journalTrouble(file: string, error: string): string {
  return `journal: cannot write ${file} (${error}): new events are refused (hooks spool them, or log them when the spool is on the same full disk) and deliveries wait; free space and the daemon resumes by itself`;
}

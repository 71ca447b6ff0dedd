import {
  closeSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * An append-only JSON-lines file with group commit: records appended in the same moment share one
 * write and one fdatasync, and each append resolves only once its records are on disk.
 * Replay skips a torn last line (a crash mid-write) and trims it so later appends stay readable.
 */
export class Journal<R extends object> {
  private handle: FileHandle | undefined;
  private queue: { lines: string; resolve: () => void; reject: (error: Error) => void }[] = [];
  private flushing: Promise<void> | undefined;
  private bytes = 0;
  private rewriting: Promise<void> | undefined;

  constructor(
    readonly file: string,
    private readonly options: { fsync: boolean },
  ) {}

  /** Reads every complete record, repairs a torn tail, and opens the file for appending. */
  async open(): Promise<R[]> {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    let text = '';
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const end = text.lastIndexOf('\n') + 1;
    if (end < text.length) {
      const fd = openSync(this.file, 'r+');
      try {
        ftruncateSync(fd, Buffer.byteLength(text.slice(0, end)));
      } finally {
        closeSync(fd);
      }
    }
    const records: R[] = [];
    for (const line of text.slice(0, end).split('\n')) {
      if (!line) continue;
      try {
        records.push(JSON.parse(line) as R);
      } catch {}
    }
    this.bytes = Buffer.byteLength(text.slice(0, end));
    this.handle = await open(this.file, 'a', 0o600);
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
      try {
        if (!this.handle) throw new Error('journal is closed');
        const data = batch.map((b) => b.lines).join('');
        await this.handle.write(data);
        if (this.options.fsync) await this.handle.datasync();
        this.bytes += Buffer.byteLength(data);
        for (const b of batch) b.resolve();
      } catch (error) {
        for (const b of batch) b.reject(error as Error);
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
    const tmp = `${this.file}.compact.tmp`;
    const fd = openSync(tmp, 'w', 0o600);
    let size = 0;
    try {
      const chunk: string[] = [];
      const flush = () => {
        const data = chunk.join('');
        chunk.length = 0;
        writeSync(fd, data);
        size += Buffer.byteLength(data);
      };
      for (const record of records) {
        chunk.push(`${JSON.stringify(record)}\n`);
        if (chunk.length >= 1000) flush();
      }
      flush();
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
    const old = this.handle;
    this.handle = await open(this.file, 'a', 0o600);
    this.bytes = size;
    await old?.close();
  }

  async close(): Promise<void> {
    await this.drain();
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
  }
}

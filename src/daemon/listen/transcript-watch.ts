import { closeSync, lstatSync, read } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from 'pino';
import type { FSWatcher } from 'chokidar';
import { isLive, type SessionState } from '../../notify/session-state.js';
import { mayHoldSignal, transcriptSignalOf, type TranscriptSignal } from '../../notify/transcript-signals.js';
import { openRegularFile } from '../../util/private-fs.js';

/**
 * Transcript watching (docs/sessions.md): for the live sessions, the agent's transcript file is watched
 * (chokidar, plus one slow fallback poll for all) and only the bytes appended since the last look are read,
 * in bounded reads, for the records no hook reports: an interrupt, the end of a turn. Bounded whatever the
 * agent writes: at most `maxFiles` files, `maxReadBytes` per read, a partial line kept up to `maxLineBytes`
 * (a longer line is skipped to its end). A file replaced, truncated or turned into something else is
 * re-read from its new end, never from its start.
 */
export interface TranscriptWatchOptions {
  logger: Logger;
  now: () => number;
  /** The session's state now (the pipeline's table); undefined when it is gone. */
  session: (id: string) => SessionState | undefined;
  /** A signal found in a session's transcript. */
  onSignal: (sessionId: string, signal: TranscriptSignal) => void;
  maxFiles?: number;
  maxReadBytes?: number;
  maxLineBytes?: number;
  /** The fallback poll of all watched files (and of which to stop watching). */
  pollMs?: number;
  /** How long a session that is no longer working or waiting stays watched after its last event. */
  graceMs?: number;
  /** Whose files may be watched (default: this process's uid). */
  uid?: number;
}

export const TRANSCRIPT_WATCH_DEFAULTS = {
  maxFiles: 64,
  maxReadBytes: 256 * 1024,
  maxLineBytes: 64 * 1024,
  pollMs: 5000,
  graceMs: 2 * 60_000,
} as const;

interface Watched {
  session: string;
  path: string;
  dev: number;
  ino: number;
  offset: number;
  /** The start of a line not yet ended (at most maxLineBytes). */
  carry: Buffer;
  /** Inside a line longer than maxLineBytes: skip to its newline. */
  skipping: boolean;
}

const readFd = promisify(read);
const MISSING = 'not readable (ENOENT)';
/** Sessions whose transcript path was refused, remembered so that it is said once (bounded). */
const REFUSED_MAX = 1024;
const NEWLINE = 0x0a;

/** Why a transcript path may not be watched, or undefined when it may (a regular .jsonl file of ours). */
async function refuse(path: string, uid: number | undefined): Promise<string | undefined> {
  if (!isAbsolute(path) || !path.endsWith('.jsonl') || path.includes('\0'))
    return 'not an absolute .jsonl path';
  try {
    const st = await lstat(path);
    if (!st.isFile()) return 'not a regular file';
    if (uid !== undefined && st.uid !== uid) return 'owned by another user';
  } catch (error) {
    return `not readable (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  return undefined;
}

/**
 * A transcript path that is well formed but names nothing yet (Claude Code writes its transcript after
 * SessionStart), told by one synchronous lstat without an exception: the look at each event of such a
 * session costs microseconds and no thread-pool round trip beside the event's enrichment. Anything
 * else (there, refused, an error) is for `start` to judge.
 */
function notThereYet(path: string): boolean {
  if (!isAbsolute(path) || !path.endsWith('.jsonl') || path.includes('\0')) return false;
  try {
    return lstatSync(path, { throwIfNoEntry: false }) === undefined;
  } catch {
    return false;
  }
}

export class TranscriptWatch {
  private readonly files = new Map<string, Watched>();
  private readonly dirty = new Set<string>();
  private readonly refused = new Map<string, string>();
  private readonly opening = new Set<string>();
  private watcher: FSWatcher | undefined;
  private starting: Promise<FSWatcher | undefined> | undefined;
  private pumping: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  /** The one read buffer (reads are one at a time; `scan` copies what it keeps). */
  private readonly readBuffer: Buffer;
  private readonly o: Required<Omit<TranscriptWatchOptions, 'uid'>> & { uid: number | undefined };

  constructor(options: TranscriptWatchOptions) {
    this.o = { ...TRANSCRIPT_WATCH_DEFAULTS, uid: process.getuid?.(), ...options };
    this.readBuffer = Buffer.alloc(this.o.maxReadBytes);
    // One timer for all files: a fallback for changes the watcher missed, and the end of idle watches.
    this.timer = setInterval(() => this.poll(), this.o.pollMs);
    this.timer.unref();
  }

  /** How many files are watched. */
  get size(): number {
    return this.files.size;
  }

  /**
   * Called after each event of a session: starts watching its transcript (from the file's end now) when
   * the session is live, stops when it ended. `transcriptPath` is the event's `transcript_path`.
   */
  track(state: SessionState, transcriptPath: unknown): void {
    if (this.closed) return;
    if (!isLive(state)) {
      this.untrack(state.id);
      return;
    }
    if (typeof transcriptPath !== 'string' || !transcriptPath) return;
    const known = this.files.get(state.id);
    if (known?.path === transcriptPath) return;
    if (notThereYet(transcriptPath)) {
      this.o.logger.debug({ sessionId: state.id, path: transcriptPath }, 'transcript not there yet');
      return;
    }
    // One look at a time per session and path (events come faster than a stat).
    const key = `${state.id}\0${transcriptPath}`;
    if (this.opening.has(key)) return;
    this.opening.add(key);
    void this.start(state.id, transcriptPath).finally(() => this.opening.delete(key));
  }

  private async start(session: string, path: string): Promise<void> {
    if (this.refused.get(session) === path) return;
    const why = await refuse(path, this.o.uid);
    if (why === MISSING) {
      // Not written yet (Claude Code writes its transcript after SessionStart): tried again at the next event.
      this.o.logger.debug({ sessionId: session, path }, 'transcript not there yet');
      return;
    }
    if (why) {
      // Said once per session and path, not at each of its events.
      this.refused.set(session, path);
      if (this.refused.size > REFUSED_MAX) this.refused.delete(this.refused.keys().next().value as string);
      this.o.logger.warn({ sessionId: session, path, reason: why }, 'transcript not watched');
      return;
    }
    const st = await lstat(path).catch(() => undefined);
    if (!st || this.closed || this.files.get(session)?.path === path) return;
    this.untrack(session);
    this.files.set(session, {
      session,
      path,
      dev: st.dev,
      ino: st.ino,
      offset: st.size,
      carry: Buffer.alloc(0),
      skipping: false,
    });
    // Over the bound: the session whose last event is the oldest goes.
    while (this.files.size > this.o.maxFiles) {
      const oldest = [...this.files.keys()].sort(
        (a, b) => (this.o.session(a)?.lastEventAt ?? 0) - (this.o.session(b)?.lastEventAt ?? 0),
      )[0]!;
      this.untrack(oldest);
    }
    const watcher = await this.ensureWatcher();
    if (this.files.get(session)?.path === path) watcher?.add(path);
    this.o.logger.info({ sessionId: session, path }, 'watching the transcript');
  }

  private ensureWatcher(): Promise<FSWatcher | undefined> {
    this.starting ??= import('chokidar').then(
      ({ watch }) => {
        if (this.closed) return undefined;
        const watcher = watch([], { ignoreInitial: true, followSymlinks: false, persistent: false });
        watcher.on('change', (path: string) => this.mark(path));
        watcher.on('error', (error) =>
          this.o.logger.warn({ error: String(error) }, 'transcript watcher error'),
        );
        this.watcher = watcher;
        return watcher;
      },
      (error: Error) => {
        this.o.logger.warn({ error: error.message }, 'no transcript watcher; polling only');
        return undefined;
      },
    );
    return this.starting;
  }

  /** Stops watching a session's transcript. */
  untrack(session: string): void {
    const entry = this.files.get(session);
    if (!entry) return;
    this.files.delete(session);
    if (![...this.files.values()].some((f) => f.path === entry.path)) void this.watcher?.unwatch(entry.path);
  }

  private mark(path: string): void {
    for (const entry of this.files.values()) if (entry.path === path) this.dirty.add(entry.session);
    this.pump();
  }

  private poll(): void {
    const now = this.o.now();
    for (const id of [...this.files.keys()]) {
      const state = this.o.session(id);
      const active = state?.phase === 'starting' || state?.phase === 'working' || state?.phase === 'waiting';
      if (!state || !isLive(state) || (!active && now - state.lastEventAt > this.o.graceMs)) this.untrack(id);
      else this.dirty.add(id);
    }
    this.pump();
  }

  /** Reads the dirty files one at a time (one read in flight for all). */
  private pump(): void {
    this.pumping ??= (async () => {
      while (this.dirty.size > 0 && !this.closed) {
        const id = this.dirty.values().next().value as string;
        this.dirty.delete(id);
        const entry = this.files.get(id);
        if (entry) await this.readNew(entry).catch((error: Error) => this.trouble(entry, error));
      }
    })().finally(() => (this.pumping = undefined));
  }

  private trouble(entry: Watched, error: Error): void {
    this.o.logger.warn(
      { sessionId: entry.session, path: entry.path, error: error.message },
      'cannot read the transcript; no longer watched',
    );
    this.untrack(entry.session);
  }

  /**
   * Reads what was appended since the last look, `maxReadBytes` at a time. The file is opened without
   * waiting and judged by its descriptor (openRegularFile, never through a symlink): one turned into a
   * FIFO or a device since it was watched is dropped, never waited on.
   */
  private async readNew(entry: Watched): Promise<void> {
    const { fd, stats: st } = openRegularFile(entry.path, { noFollow: true });
    try {
      if (st.ino !== entry.ino || st.dev !== entry.dev || st.size < entry.offset) {
        // Replaced or truncated: what it holds now is not news; read on from its end.
        this.o.logger.info(
          { sessionId: entry.session, path: entry.path },
          'transcript replaced or truncated',
        );
        Object.assign(entry, {
          dev: st.dev,
          ino: st.ino,
          offset: st.size,
          carry: Buffer.alloc(0),
          skipping: false,
        });
        return;
      }
      while (entry.offset < st.size && this.files.get(entry.session) === entry && !this.closed) {
        const length = Math.min(this.readBuffer.length, st.size - entry.offset);
        const { bytesRead } = await readFd(fd, this.readBuffer, 0, length, entry.offset);
        if (bytesRead === 0) break;
        entry.offset += bytesRead;
        this.scan(entry, this.readBuffer.subarray(0, bytesRead));
      }
    } finally {
      closeSync(fd);
    }
  }

  /** Splits a chunk into lines (the last partial one kept, bounded) and reports their signals. */
  private scan(entry: Watched, chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE); nl >= 0; nl = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      if (entry.skipping) {
        entry.skipping = false;
        continue;
      }
      const line = entry.carry.length > 0 ? Buffer.concat([entry.carry, piece]) : piece;
      entry.carry = Buffer.alloc(0);
      if (line.length > this.o.maxLineBytes || !mayHoldSignal(line)) continue;
      const signal = transcriptSignalOf(line.toString('utf8'));
      if (signal) {
        this.o.logger.info(
          { sessionId: entry.session, signal: signal.kind, detail: signal.detail.slice(0, 200) },
          'transcript: a record no hook reported',
        );
        this.o.onSignal(entry.session, signal);
      }
    }
    if (entry.skipping || start >= chunk.length) return;
    const rest = chunk.subarray(start);
    if (entry.carry.length + rest.length > this.o.maxLineBytes) {
      // Longer than any record looked for: skipped to its end, never held.
      entry.carry = Buffer.alloc(0);
      entry.skipping = true;
    } else entry.carry = Buffer.concat([entry.carry, rest]);
  }

  /** Stops everything (daemon stop). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.files.clear();
    this.dirty.clear();
    await this.pumping?.catch(() => undefined);
    const watcher = this.watcher ?? (await this.starting);
    await watcher?.close();
  }
}

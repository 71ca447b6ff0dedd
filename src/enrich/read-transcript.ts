import { closeSync } from 'node:fs';
import { describeReadError, readAt } from './read-bounded.js';
import { openRegularFile } from '../util/private-fs.js';
import type { LocalSessionInfo } from './types.js';
import {
  addTranscriptLine,
  emptySummary,
  parseSessionStart,
  textOfContent,
  type TranscriptSummary,
} from './transcript.js';

export interface ReadTranscriptOptions {
  /** Bytes read at most for the head and tail window together. */
  maxReadBytes: number;
  /** Extra bytes a backwards scan for `messageId` may read before the tail window. */
  maxScanBytes: number;
  messageId?: string;
  signal?: AbortSignal;
}

export interface TranscriptRead {
  summary: TranscriptSummary;
  bytesRead: number;
  size: number;
  /** True when the whole file was read. */
  complete: boolean;
  warnings: string[];
}

const NEWLINE = 0x0a;
/** Transcripts whose summary is kept to be read on from where the last read ended (least recently used go). */
const KEPT_MAX = 64;
/** Bytes compared again at each read on: the file's start (its session_start line) and before the offset. */
const KEPT_HEAD_BYTES = 4096;
const KEPT_TAIL_BYTES = 64;

/**
 * What the last whole read of a transcript found, to read on from there: the summary of its complete
 * lines (without the wanted message, which depends on the event), the offset after its last newline, and
 * the bytes at its start and before that offset, compared again before the summary is used. A file
 * replaced (another inode), shorter, or whose compared bytes changed is read whole again.
 */
interface Kept {
  dev: number;
  ino: number;
  offset: number;
  head: Buffer;
  tail: Buffer;
  summary: TranscriptSummary;
}
const kept = new Map<string, Kept>();

/** A summary another read can fold more lines into without changing this one. */
function copySummary(summary: TranscriptSummary): TranscriptSummary {
  const { wanted: _wanted, ...rest } = summary;
  return {
    ...rest,
    toolCalls: { ...summary.toolCalls },
    claudeUsage: { ...summary.claudeUsage },
    claudeAssistantIds: new Set(summary.claudeAssistantIds),
  };
}

function keep(path: string, entry: Kept): void {
  kept.delete(path);
  kept.set(path, entry);
  while (kept.size > KEPT_MAX) kept.delete(kept.keys().next().value as string);
}

/**
 * Folds the lines of `bytes` from `start` up to its last newline; returns where they end (the offset
 * after that newline; `start` when there is none) and the rest, a final line not ended yet. Cut on the
 * raw bytes: a newline byte is never inside a UTF-8 character.
 */
function foldWholeLines(
  summary: TranscriptSummary,
  bytes: Buffer,
  start: number,
  wantedId: string | undefined,
): { end: number; rest: string } {
  const end = Math.max(start, bytes.lastIndexOf(NEWLINE) + 1);
  for (const line of bytes.toString('utf8', start, end).split('\n'))
    addTranscriptLine(summary, line, wantedId);
  return { end, rest: bytes.toString('utf8', end) };
}

/** The head window: the session_start line and the first messages' timestamps. */
const HEAD_BYTES = 64 * 1024;
/** Chunk size of the backwards scan. */
const SCAN_CHUNK_BYTES = 1024 * 1024;

function foldLines(summary: TranscriptSummary, text: string, wantedId: string | undefined): boolean {
  const end = text.lastIndexOf('\n') + 1;
  for (const line of text.slice(0, end).split('\n')) addTranscriptLine(summary, line, wantedId);
  return foldLast(summary, text.slice(end), wantedId);
}

/** Folds a final line without its newline when it parses; true when it did not (being written). */
function foldLast(summary: TranscriptSummary, last: string, wantedId: string | undefined): boolean {
  if (!last.trim()) return false;
  // A final line without its newline is usually being written right now.
  const before = summary.corruptLines;
  addTranscriptLine(summary, last, wantedId);
  if (summary.corruptLines === before) return false;
  summary.corruptLines = before;
  return true;
}

/**
 * A transcript read whole before, read on from where that read ended (only the bytes appended since,
 * plus the few compared again); undefined when it must be read whole (not kept, replaced, changed, or the
 * wanted message is not among what is known). Same result as a whole read: the lines are folded in order.
 */
async function readOn(
  fd: number,
  path: string,
  st: { dev: number; ino: number; size: number },
  wantedId: string | undefined,
): Promise<{ summary: TranscriptSummary; bytesRead: number; partial: boolean } | undefined> {
  const k = kept.get(path);
  if (!k || k.dev !== st.dev || k.ino !== st.ino || k.offset > st.size) return undefined;
  const head = await readAt(fd, 0, k.head.length);
  if (!head.equals(k.head)) return undefined;
  const from = k.offset - k.tail.length;
  const bytes = await readAt(fd, from, st.size - from);
  if (bytes.length < k.tail.length || !bytes.subarray(0, k.tail.length).equals(k.tail)) return undefined;
  const summary = copySummary(k.summary);
  const { end, rest } = foldWholeLines(summary, bytes, k.tail.length, wantedId);
  const offset = from + end;
  const known = k.summary.lastAssistant;
  if (wantedId && !summary.wanted && known?.id === wantedId) summary.wanted = known;
  keep(path, {
    dev: st.dev,
    ino: st.ino,
    offset,
    head: k.head,
    tail: Buffer.from(bytes.subarray(Math.max(0, end - KEPT_TAIL_BYTES), end)),
    summary: copySummary(summary),
  });
  const partial = foldLast(summary, rest, wantedId);
  if (wantedId && !summary.wanted) return undefined;
  return { summary, bytesRead: head.length + bytes.length, partial };
}

async function readHead(fd: number, size: number, summary: TranscriptSummary, warnings: string[]) {
  const head = await readAt(fd, 0, Math.min(HEAD_BYTES, size));
  const text = head.toString('utf8');
  const end = text.lastIndexOf('\n');
  if (end < 0) {
    warnings.push(`transcript's first line is longer than ${HEAD_BYTES} bytes; its title was not read`);
    return head.length;
  }
  // Only the session_start line and the first timestamp matter from the head.
  const probe = emptySummary();
  for (const line of text.slice(0, end).split('\n')) {
    addTranscriptLine(probe, line);
    if (probe.firstTimestampMs !== undefined) break;
  }
  summary.sessionStart = probe.sessionStart;
  summary.firstTimestampMs = probe.firstTimestampMs;
  summary.firstPrompt = probe.firstPrompt;
  return head.length;
}

/**
 * Scan backwards from `end` for the line holding `"<messageId>"`, reading at most `maxScanBytes`.
 * `carry` is the partial line that starts before `end` (already read).
 */
async function scanBackwards(
  fd: number,
  end: number,
  carry: Buffer,
  messageId: string,
  maxScanBytes: number,
  signal: AbortSignal | undefined,
): Promise<{ found?: TranscriptSummary['wanted']; bytes: number }> {
  const needle = Buffer.from(`"${messageId}"`);
  let position = end;
  let bytes = 0;
  let tail = carry;
  while (position > 0 && bytes < maxScanBytes && !signal?.aborted) {
    const length = Math.min(SCAN_CHUNK_BYTES, position, maxScanBytes - bytes);
    position -= length;
    const chunk = await readAt(fd, position, length);
    bytes += chunk.length;
    const buffer = Buffer.concat([chunk, tail]);
    // Lines wholly inside the buffer start after its first newline (or at 0 at the file's start).
    const firstNewline = buffer.indexOf(NEWLINE);
    const completeFrom = position === 0 ? 0 : firstNewline < 0 ? -1 : firstNewline + 1;
    let hit = completeFrom < 0 ? -1 : buffer.indexOf(needle, completeFrom);
    while (hit >= 0) {
      const start = buffer.lastIndexOf(NEWLINE, hit) + 1;
      const stop = buffer.indexOf(NEWLINE, hit);
      const probe = emptySummary();
      addTranscriptLine(probe, buffer.toString('utf8', start, stop < 0 ? buffer.length : stop), messageId);
      if (probe.wanted) return { found: probe.wanted, bytes };
      hit = buffer.indexOf(needle, hit + needle.length);
    }
    tail = firstNewline < 0 ? buffer : buffer.subarray(0, firstNewline);
    if (tail.length > maxScanBytes) break;
  }
  return { bytes };
}

/**
 * Read a transcript safely: whole when it fits in `maxReadBytes`, else only the head (session_start) and a
 * tail window seeked from the end, plus a bounded backwards scan when `messageId` is not in the tail.
 * Never throws: problems come back as warnings.
 */
export async function readTranscript(path: string, options: ReadTranscriptOptions): Promise<TranscriptRead> {
  const summary = emptySummary();
  const warnings: string[] = [];
  let fd: number | undefined;
  let bytesRead = 0;
  let size = 0;
  let complete = false;
  try {
    // Opened without waiting and judged by fstat: a FIFO, device or socket named as a transcript is
    // refused at once instead of holding a thread until someone writes to it.
    const opened = openRegularFile(path);
    fd = opened.fd;
    const st = opened.stats;
    size = st.size;
    const { maxReadBytes, messageId, signal } = options;
    const on = size <= maxReadBytes ? await readOn(fd, path, st, messageId) : undefined;
    if (on) {
      Object.assign(summary, on.summary);
      bytesRead = on.bytesRead;
      complete = true;
      if (on.partial) warnings.push('transcript ends in a partial line (being written); it was skipped');
    } else if (size <= maxReadBytes) {
      const all = await readAt(fd, 0, size);
      bytesRead = all.length;
      complete = true;
      const { end: offset, rest } = foldWholeLines(summary, all, 0, messageId);
      keep(path, {
        dev: st.dev,
        ino: st.ino,
        offset,
        head: Buffer.from(all.subarray(0, Math.min(KEPT_HEAD_BYTES, offset))),
        tail: Buffer.from(all.subarray(Math.max(0, offset - KEPT_TAIL_BYTES), offset)),
        summary: copySummary(summary),
      });
      if (foldLast(summary, rest, messageId)) {
        warnings.push('transcript ends in a partial line (being written); it was skipped');
      }
    } else {
      kept.delete(path);
      bytesRead += await readHead(fd, size, summary, warnings);
      const firstTimestampMs = summary.firstTimestampMs;
      const headStart = summary.sessionStart;
      const firstPrompt = summary.firstPrompt;
      const tailLength = Math.max(0, maxReadBytes - Math.min(HEAD_BYTES, size) - 1);
      const tailStart = size - tailLength;
      // One byte before the window tells whether the window starts on a line boundary.
      const window = await readAt(fd, tailStart - 1, tailLength + 1);
      bytesRead += window.length;
      const startsClean = window[0] === NEWLINE;
      const cut = startsClean ? 0 : window.indexOf(NEWLINE);
      const carry = cut < 0 ? window.subarray(1) : window.subarray(1, cut + (startsClean ? 1 : 0));
      const body = cut < 0 ? '' : window.toString('utf8', cut + 1);
      if (foldLines(summary, body, messageId)) {
        warnings.push('transcript ends in a partial line (being written); it was skipped');
      }
      summary.sessionStart = headStart ?? summary.sessionStart;
      summary.firstTimestampMs = firstTimestampMs;
      summary.firstPrompt = firstPrompt ?? summary.firstPrompt;
      if (messageId && !summary.wanted && !signal?.aborted) {
        const scan = await scanBackwards(fd, tailStart, carry, messageId, options.maxScanBytes, signal);
        bytesRead += scan.bytes;
        if (scan.found) summary.wanted = scan.found;
        else if (!signal?.aborted) {
          warnings.push(
            `message ${messageId} not found in the last ${maxReadBytes + scan.bytes} bytes of a ${size}-byte transcript`,
          );
        }
      }
    }
    if (signal?.aborted) warnings.push('transcript read stopped: time budget spent');
    if (summary.corruptLines > 0) warnings.push(`${summary.corruptLines} corrupt transcript line(s) skipped`);
  } catch (error) {
    warnings.push(`transcript ${describeReadError(error)}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return { summary, bytesRead, size, complete, warnings };
}

/** What any agent's transcript read tells a LocalSessionInfo: sizes, warnings, times, model, messages, tools. */
export function applyTranscriptRead(info: LocalSessionInfo, read: TranscriptRead): void {
  const { summary } = read;
  info.bytesRead = read.bytesRead;
  info.transcriptBytes = read.size;
  info.transcriptComplete = read.complete;
  info.warnings.push(...read.warnings);
  info.model = summary.model;
  info.startedAtMs = summary.firstTimestampMs;
  info.updatedAtMs = summary.lastTimestampMs;
  info.lastAssistantMessage = summary.lastAssistant;
  info.message = summary.wanted;
  info.pendingTools = summary.lastToolUses;
  if (Object.keys(summary.toolCalls).length > 0 || read.complete) info.toolCalls = summary.toolCalls;
  info.toolCallsComplete = read.complete;
}

export { parseSessionStart, textOfContent };

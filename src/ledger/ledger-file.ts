import { closeSync, read } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { RECORD_VERSION, type SessionRecord, type UsageAmendment } from './types.js';
import { isObject } from '../util/json-values.js';
import { PRIVATE_APPEND_READ_FLAGS, openRegularFile } from '../util/private-fs.js';

/**
 * The ledger's on-disk format: JSON lines, one record per line, appended with a single write and fsync'd.
 * A write cut by a crash leaves a last line without its newline that does not parse; readers skip it and
 * the next append first ends it with a newline, so a torn record never swallows the next one.
 */

const NEWLINE = 0x0a;
const readFd = promisify(read);
const CHUNK_BYTES = 256 * 1024;

/** The line (with its newline) for one record or amendment. */
export function encodeRecord(record: SessionRecord | UsageAmendment): string {
  return `${JSON.stringify(record)}\n`;
}

/** A line back to a record, or undefined for a torn, corrupt or unknown-version line. */
export function decodeRecord(line: string): SessionRecord | undefined {
  if (!line.trim()) return undefined;
  try {
    const value = JSON.parse(line) as Partial<SessionRecord> | null;
    if (!value || typeof value !== 'object' || value.v !== RECORD_VERSION) return undefined;
    if (typeof value.sessionId !== 'string' || !value.sessionId || typeof value.endedAtMs !== 'number')
      return undefined;
    return value as SessionRecord;
  } catch {
    return undefined;
  }
}

const count = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const modelUsage = (v: unknown) =>
  isObject(v) &&
  count(v.inputTokens) &&
  count(v.outputTokens) &&
  count(v.cacheReadTokens) &&
  count(v.cacheCreationTokens) &&
  (v.costUsd === null || count(v.costUsd));

/** A line back to an amendment (agent usage of a recorded session), or undefined. */
export function decodeAmendment(line: string): UsageAmendment | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    if (!isObject(value) || value.v !== RECORD_VERSION || value.amend !== 'agentUsage') return undefined;
    const usage = value.agentUsage;
    if (typeof value.sessionId !== 'string' || !value.sessionId || !isObject(usage)) return undefined;
    if (!modelUsage(usage) || !isObject(usage.models) || !Object.values(usage.models).every(modelUsage))
      return undefined;
    return value as unknown as UsageAmendment;
  } catch {
    return undefined;
  }
}

export interface ScanResult {
  /** Bytes up to the end of the last complete line (where the next scan starts). */
  endOffset: number;
  /** Lines that did not parse as records (torn or corrupt). */
  skipped: number;
}

/**
 * Call `onRecord` for every complete, valid record line from `fromOffset` on. A last line without its
 * newline is left for later (it may be a write in progress or a torn one). A missing file reads as empty.
 */
export async function scanLedger(
  path: string,
  onRecord: (record: SessionRecord) => void,
  fromOffset = 0,
  onAmendment?: (amendment: UsageAmendment) => void,
): Promise<ScanResult> {
  let fd: number;
  try {
    // Never waits: a FIFO or device in the ledger's place is an error, not a hang.
    fd = openRegularFile(path).fd;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { endOffset: 0, skipped: 0 };
    throw error;
  }
  let skipped = 0;
  let offset = fromOffset;
  let carry = Buffer.alloc(0);
  try {
    const buffer = Buffer.alloc(CHUNK_BYTES);
    for (;;) {
      const { bytesRead } = await readFd(fd, buffer, 0, CHUNK_BYTES, offset + carry.length);
      if (bytesRead === 0) break;
      const data = carry.length
        ? Buffer.concat([carry, buffer.subarray(0, bytesRead)])
        : buffer.subarray(0, bytesRead);
      let start = 0;
      for (let nl = data.indexOf(NEWLINE); nl >= 0; nl = data.indexOf(NEWLINE, start)) {
        const line = data.toString('utf8', start, nl);
        if (line.trim()) {
          const record = decodeRecord(line);
          const amendment = record ? undefined : decodeAmendment(line);
          if (record) onRecord(record);
          else if (amendment) onAmendment?.(amendment);
          else skipped++;
        }
        start = nl + 1;
      }
      offset += start;
      carry = Buffer.from(data.subarray(start));
    }
  } finally {
    closeSync(fd);
  }
  return { endOffset: offset, skipped };
}

/**
 * Append one record durably: open for append, end a torn last line with a newline first, write the line
 * in one call, fdatasync, and fsync the folder when the file was new. Returns the file size after it.
 */
export async function appendRecord(path: string, record: SessionRecord | UsageAmendment): Promise<number> {
  // Appends only (O_APPEND), never through a symlink, 0600; the read below uses positional reads.
  const handle = await open(path, PRIVATE_APPEND_READ_FLAGS, 0o600);
  let size: number;
  let created: boolean;
  try {
    const st = await handle.stat();
    if ((st.mode & 0o077) !== 0) await handle.chmod(0o600);
    size = st.size;
    created = size === 0;
    let prefix = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== NEWLINE) prefix = '\n';
    }
    const bytes = Buffer.from(prefix + encodeRecord(record));
    await handle.write(bytes, 0, bytes.length);
    await handle.datasync();
    size += bytes.length;
  } finally {
    await handle.close();
  }
  if (created) await syncDirectory(dirname(path));
  return size;
}

async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some file systems refuse to fsync a folder; the record itself is synced.
  }
}

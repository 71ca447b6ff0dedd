import { renameSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { WATCHER_NAMES, type WatcherName } from '../config/schemas/watch-schema.js';
import { stateDir, type Env } from '../paths.js';
import { readPrivateFile, writePrivateFileAtomic } from '../util/private-fs.js';

/**
 * What the watchers remember between polls and across restarts: `<state>/daemon/watch.json`, private
 * (0600 in a 0700 folder), replaced atomically after each poll, never followed through a symlink. A file
 * that is not valid is moved aside (`.bad-<time>`) and the watchers start again from a baseline.
 */

export const WATCH_FILE_VERSION = 1;
/** A watch file larger than this is not read (the watchers' memory is bounded far below it). */
export const WATCH_FILE_MAX_BYTES = 16 * 1024 * 1024;

export const WATCH_STATUSES = ['new', 'ok', 'error', 'rate-limited', 'forbidden', 'unauthorized'] as const;
export type WatchStatus = (typeof WATCH_STATUSES)[number];

const watcherStateSchema = z.strictObject({
  status: z.enum(WATCH_STATUSES),
  /** Successful polls so far. */
  seq: z.number().int().min(0),
  lastPollAt: z.number().optional(),
  lastOkAt: z.number().optional(),
  nextPollAt: z.number().optional(),
  /** Failed polls in a row. */
  failures: z.number().int().min(0),
  lastError: z.string().max(2000).optional(),
  summary: z.string().max(2000).optional(),
  /** Events raised so far. */
  raised: z.number().int().min(0),
  memory: z.record(z.string(), z.unknown()).optional(),
});
export type WatcherState = z.infer<typeof watcherStateSchema>;

const watchFileSchema = z.strictObject({
  v: z.literal(WATCH_FILE_VERSION),
  watchers: z.partialRecord(z.enum(WATCHER_NAMES), watcherStateSchema),
});
export type WatchFile = z.infer<typeof watchFileSchema>;

export function watchStatePath(env: Env): string {
  return join(stateDir(env), 'daemon', 'watch.json');
}

export function freshWatcherState(): WatcherState {
  return { status: 'new', seq: 0, failures: 0, raised: 0 };
}

export type WatchFileRead =
  | { ok: true; file: WatchFile }
  | { ok: false; missing: true }
  | { ok: false; missing: false; problem: string };

/** Reads and validates the watch file; never throws. */
export function readWatchFile(path: string): WatchFileRead {
  const read = readPrivateFile(path, WATCH_FILE_MAX_BYTES);
  if (!read.ok) return read;
  let json: unknown;
  try {
    json = JSON.parse(read.text);
  } catch (error) {
    return { ok: false, missing: false, problem: `not JSON: ${(error as Error).message}` };
  }
  const parsed = watchFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      missing: false,
      problem: `not a watch file: ${issue ? `${issue.path.join('.') || '(top)'}: ${issue.message}` : 'invalid'}`,
    };
  }
  return { ok: true, file: parsed.data };
}

/**
 * The watch file for the daemon: read, or started empty when missing; a bad one is moved aside and
 * `onProblem` told (the daemon logs it). Never throws.
 */
export function loadWatchFile(
  path: string,
  now: number,
  onProblem: (problem: string, movedTo: string | undefined) => void,
): WatchFile {
  const read = readWatchFile(path);
  if (read.ok) return read.file;
  if (!read.missing) {
    const aside = `${path}.bad-${now}`;
    let movedTo: string | undefined = aside;
    try {
      renameSync(path, aside);
    } catch {
      movedTo = undefined;
    }
    onProblem(read.problem, movedTo);
  }
  return { v: WATCH_FILE_VERSION, watchers: {} };
}

export function saveWatchFile(path: string, file: WatchFile): void {
  writePrivateFileAtomic(path, `${JSON.stringify(file)}\n`);
}

export type { WatcherName };

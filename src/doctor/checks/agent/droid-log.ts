import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** The only trace Droid leaves when it drops a settings file's hooks (hook-protocol.md). */
export const INVALID_HOOKS_MARKER = 'Invalid hooks in settings.json, ignoring';
/** The same for a hooks.json (Droid 0.225.2 `loadHooksFromFile`). */
export const INVALID_HOOKS_FILE_MARKER = 'Invalid hooks file, ignoring';

/** Bytes read from the end of each log file; older lines are not looked at. */
export const LOG_TAIL_BYTES = 8 * 1024 * 1024;

export interface InvalidHooksLine {
  logFile: string;
  /** Unix ms from the line's `[ISO time]` prefix, when it has one. */
  at?: number;
  /** The settings file Droid rejected (the `path` of the line's context), when it names one. */
  settingsFile?: string;
}

export interface DroidLogScan {
  /** The `*.log` files read, oldest first by modification time. */
  files: string[];
  lines: InvalidHooksLine[];
}

/** Reads one marker line: `[2026-11-23T07:05:55.019Z] WARN: Invalid hooks ... | Context: {"path": ...}`. */
export function parseInvalidHooksLine(line: string, logFile: string): InvalidHooksLine {
  const out: InvalidHooksLine = { logFile };
  const stamp = /^\[([^\]]+)\]/.exec(line);
  if (stamp) {
    const at = Date.parse(stamp[1]!);
    if (Number.isFinite(at)) out.at = at;
  }
  const context = line.indexOf('| Context: ');
  if (context >= 0) {
    try {
      const value = JSON.parse(line.slice(context + '| Context: '.length)) as { path?: unknown };
      if (typeof value.path === 'string') out.settingsFile = value.path;
    } catch {}
  }
  return out;
}

/** The last `maxBytes` of a file, from the first whole line. */
export async function readTail(file: string, maxBytes: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    const text = buffer.toString('utf8');
    // Started inside a line: drop that partial line.
    return length < size ? text.slice(text.indexOf('\n') + 1) : text;
  } finally {
    await handle.close();
  }
}

/**
 * Every line holding `marker` in the files of a log folder whose names end with `ext` (oldest file
 * first; only the newest `maxFiles`), each parsed; undefined when the folder does not exist.
 */
export async function scanLogFolder<T>(
  logDir: string,
  options: {
    ext: string;
    marker: string | readonly string[];
    parse: (line: string, file: string) => T;
    maxFiles?: number;
  },
  maxBytesPerFile = LOG_TAIL_BYTES,
): Promise<{ files: string[]; lines: T[] } | undefined> {
  let names: string[];
  try {
    names = (await readdir(logDir)).filter((n) => n.endsWith(options.ext));
  } catch {
    return undefined;
  }
  const withTimes = await Promise.all(
    names.map(async (name) => {
      const file = join(logDir, name);
      try {
        return { file, mtimeMs: (await stat(file)).mtimeMs };
      } catch {
        return undefined;
      }
    }),
  );
  const files = withTimes
    .filter((f): f is { file: string; mtimeMs: number } => f !== undefined)
    .sort((a, b) => a.mtimeMs - b.mtimeMs)
    .slice(-(options.maxFiles ?? Infinity))
    .map((f) => f.file);
  const lines: T[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readTail(file, maxBytesPerFile);
    } catch {
      continue;
    }
    const markers = typeof options.marker === 'string' ? [options.marker] : options.marker;
    if (!markers.some((m) => text.includes(m))) continue;
    for (const line of text.split('\n'))
      if (markers.some((m) => line.includes(m))) lines.push(options.parse(line, file));
  }
  return { files, lines };
}

/** Every marker line in the `*.log` files of Droid's log folder; undefined when the folder does not exist. */
export function scanDroidLogs(
  logDir: string,
  maxBytesPerFile = LOG_TAIL_BYTES,
): Promise<DroidLogScan | undefined> {
  return scanLogFolder(
    logDir,
    {
      ext: '.log',
      marker: [INVALID_HOOKS_MARKER, INVALID_HOOKS_FILE_MARKER],
      parse: parseInvalidHooksLine,
    },
    maxBytesPerFile,
  );
}

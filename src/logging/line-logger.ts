import { closeSync, fstatSync, renameSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { redactText } from './redact.js';
import { mayHoldSecret } from './secret-marker.js';
import { openPrivateAppend } from '../util/private-fs.js';

/**
 * A synchronous JSON-lines logger writing pino's record format (level numbers, time in epoch ms, pid,
 * hostname, proc: "hook", msg; the daemon's pino logger writes the same with proc: "daemon"), for the short-lived hook process. pino itself costs about a third of Node's start-up time
 * when bundled, so the hook path writes the same records without loading it; long-running processes
 * use pino. Every string value is cut to MAX_LOGGED_STRING and passed through the redactor. The file
 * rotates once at `maxBytes`.
 */
export const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;
export type LevelName = keyof typeof LEVELS;

export interface LineLogger {
  log(level: LevelName, fields: Record<string, unknown>, msg: string): void;
  close(): void;
}

/**
 * The longest string a record keeps: values come from events (a cwd, a session id, a tool name) that a
 * hostile payload can make megabytes long, and each record is written, and redacted, whole.
 */
export const MAX_LOGGED_STRING = 8192;

/**
 * A string redacted and cut to MAX_LOGGED_STRING, saying how long it was. The redactor sees a little
 * more than is kept, so a secret across the cut is redacted whole, never left half visible.
 */
function loggedText(value: string): string {
  // Text without a marker is what redactText would return: the redactor is not even loaded for it.
  const redacted = (text: string) => (mayHoldSecret(text) ? redactText(text) : text);
  if (value.length <= MAX_LOGGED_STRING) return redacted(value);
  const kept = redacted(value.slice(0, MAX_LOGGED_STRING + 512)).slice(0, MAX_LOGGED_STRING);
  return `${kept}… (${value.length} characters, cut)`;
}

function redactFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === 'string') out[key] = loggedText(value);
    else if (value && typeof value === 'object' && !Array.isArray(value)) {
      out[key] = redactFields(value as Record<string, unknown>);
    } else out[key] = value;
  }
  return out;
}

export interface LineLoggerOptions {
  maxBytes?: number;
  debugTo?: (line: string) => void;
  now?: () => number;
  /**
   * Kept open by a long-running process: the file is closed and opened again (with the same checks, and
   * the rotation) at the first record this long after it was opened, so records follow a rotation or a
   * removal by another process within that time; a failed open is tried again then. Default: never.
   */
  reopenMs?: number;
  /** The clock of reopenMs (monotonic ms). */
  clock?: () => number;
}

export function createLineLogger(file: string, options: LineLoggerOptions = {}): LineLogger {
  let fd: number | undefined;
  let failed = false;
  let openedAt = 0;
  const host = hostname();
  const now = options.now ?? Date.now;
  const clock = options.clock ?? (() => performance.now());
  const close = () => {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {}
      fd = undefined;
    }
  };
  const open = () => {
    if (options.reopenMs !== undefined && (fd !== undefined || failed)) {
      const at = clock();
      if (at - openedAt < options.reopenMs) return;
      close();
      failed = false;
    }
    if (fd !== undefined || failed) return;
    // Only a reopening logger reads its clock: the global `performance` loads perf_hooks, milliseconds
    // of start-up for the hook, which logs a line or two and exits.
    if (options.reopenMs !== undefined) openedAt = clock();
    try {
      fd = openPrivateAppend(file);
      if (fstatSync(fd).size > (options.maxBytes ?? 20 * 1024 * 1024)) {
        closeSync(fd);
        renameSync(file, `${file}.1`);
        fd = openPrivateAppend(file, { ensureDir: false });
      }
    } catch {
      // A log that cannot be written must not break the hook; the debug stream still works.
      failed = true;
      fd = undefined;
    }
  };
  return {
    log(level, fields, msg) {
      const record = {
        level: LEVELS[level],
        time: now(),
        pid: process.pid,
        hostname: host,
        proc: 'hook',
        ...redactFields(fields),
        msg: loggedText(msg),
      };
      const line = `${JSON.stringify(record)}\n`;
      options.debugTo?.(line);
      open();
      if (fd === undefined) return;
      try {
        writeSync(fd, line);
      } catch {}
    },
    close,
  };
}

/** Line loggers kept open per log file, for the daemon's listeners (which log for many clients). */
export interface LineLoggerPool {
  /** The logger of this file (not to be closed by the caller). */
  get(file: string): LineLogger;
  /** Closes every logger. */
  close(): void;
}

/**
 * One open logger per log file (an event's environment may name its own log file), at most `max` of
 * them (the least recently used is closed), each reopened every `reopenMs` (see LineLoggerOptions).
 */
export function createLineLoggerPool(
  options: { max?: number; reopenMs?: number } & Omit<LineLoggerOptions, 'reopenMs'> = {},
): LineLoggerPool {
  const { max = 16, reopenMs = 1000, ...rest } = options;
  const loggers = new Map<string, LineLogger>();
  return {
    get(file) {
      let logger = loggers.get(file);
      if (logger) loggers.delete(file);
      else logger = createLineLogger(file, { ...rest, reopenMs });
      loggers.set(file, logger);
      if (loggers.size > max) {
        const [oldest, dropped] = loggers.entries().next().value!;
        loggers.delete(oldest);
        dropped.close();
      }
      return logger;
    },
    close() {
      for (const logger of loggers.values()) logger.close();
      loggers.clear();
    },
  };
}

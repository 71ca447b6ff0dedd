import { closeSync, fstatSync, renameSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { redactText } from './redact.js';
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
  if (value.length <= MAX_LOGGED_STRING) return redactText(value);
  const kept = redactText(value.slice(0, MAX_LOGGED_STRING + 512)).slice(0, MAX_LOGGED_STRING);
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

export function createLineLogger(
  file: string,
  options: { maxBytes?: number; debugTo?: (line: string) => void; now?: () => number } = {},
): LineLogger {
  let fd: number | undefined;
  let failed = false;
  const host = hostname();
  const now = options.now ?? Date.now;
  const open = () => {
    if (fd !== undefined || failed) return;
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
    close() {
      if (fd !== undefined) {
        try {
          closeSync(fd);
        } catch {}
        fd = undefined;
      }
    },
  };
}

import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandModule } from 'yargs';
import { logDir } from '../../../paths.js';
import { formatJsonLine, paint, safeText } from '../../../terminal/output.js';
import { formatRecord, type LogRecord } from '../../../terminal/log-record.js';
import { cli, cliOut } from '../../../terminal/cli-io.js';

interface LogsArgs {
  session?: string;
  event?: string;
  level?: string;
  lines: number;
  follow: boolean;
  json: boolean;
}

const LEVEL_NUMBERS: Record<string, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
};

/** The log files `hookd logs` reads: the hook's and the daemon's. */
export function logFiles(env: Record<string, string | undefined> = cli().env): string[] {
  return ['hookd.log', 'daemon.log'].map((name) => join(logDir(env), name));
}

export function parseLogLines(text: string): LogRecord[] {
  const out: LogRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const record = JSON.parse(line) as LogRecord & { time?: unknown };
      // Daemon logs written before one format was agreed carry an ISO time and name "hookd-daemon".
      if (typeof record.time === 'string') {
        const ms = Date.parse(record.time);
        if (Number.isFinite(ms)) record.time = ms;
      }
      out.push(record as LogRecord);
    } catch {
      out.push({ msg: line, level: 30 });
    }
  }
  return out;
}

export function recordMatches(
  record: LogRecord,
  args: Pick<LogsArgs, 'session' | 'event' | 'level'>,
): boolean {
  if (args.session && !String(record.sessionId ?? '').startsWith(args.session)) return false;
  if (args.event && record.event !== args.event) return false;
  if (args.level && (record.level ?? 30) < (LEVEL_NUMBERS[args.level] ?? 0)) return false;
  return true;
}

function readAll(file: string): string {
  if (!existsSync(file)) return '';
  const fd = openSync(file, 'r');
  try {
    const size = statSync(file).size;
    const buf = Buffer.alloc(size);
    readSync(fd, buf, 0, size, 0);
    return buf.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

export const logsCommand: CommandModule<object, LogsArgs> = {
  command: 'logs',
  describe: "Show hookd's log: every event, command result and delivery",
  builder: (y) =>
    y
      .option('session', { type: 'string', describe: 'Only records of this session id (a prefix is enough)' })
      .option('event', { type: 'string', describe: 'Only records of this event name' })
      .option('level', { type: 'string', choices: Object.keys(LEVEL_NUMBERS), describe: 'Minimum level' })
      .option('lines', {
        alias: 'n',
        type: 'number',
        default: 50,
        describe: 'How many of the last records to show (0: all)',
      })
      .option('follow', {
        alias: 'f',
        type: 'boolean',
        default: false,
        describe: 'Keep printing new records',
      })
      .option('json', { type: 'boolean', default: false, describe: 'Print raw JSON records' })
      .example('hookd logs --level warn', 'Failures, timeouts and rejected input')
      .example('hookd logs --session 48e2 -f', 'Follow one session'),
  handler: async (args) => {
    const out = cliOut();
    const files = logFiles();
    const show = (r: LogRecord) => out.write(args.json ? formatJsonLine(r) : formatRecord(r, out));
    const records = files
      .flatMap((f) => parseLogLines(readAll(f)))
      .filter((r) => recordMatches(r, args))
      .sort((a, b) => (a.time ?? 0) - (b.time ?? 0));
    const shown = args.lines > 0 ? records.slice(-args.lines) : records;
    if (shown.length === 0 && !args.follow && !args.json) {
      out.write(paint(out, 'gray', `No log records yet (looked in ${safeText(files.join(', '))}).\n`));
    }
    shown.forEach(show);
    if (!args.follow) return;
    const offsets = new Map(files.map((f) => [f, existsSync(f) ? statSync(f).size : 0]));
    const partial = new Map<string, string>();
    await new Promise<void>((resolvePromise) => {
      const timer = setInterval(() => {
        for (const file of files) {
          if (!existsSync(file)) continue;
          const size = statSync(file).size;
          let offset = offsets.get(file) ?? 0;
          if (size < offset) offset = 0; // rotated
          if (size === offset) continue;
          const fd = openSync(file, 'r');
          const buf = Buffer.alloc(size - offset);
          readSync(fd, buf, 0, buf.length, offset);
          closeSync(fd);
          offsets.set(file, size);
          const text = (partial.get(file) ?? '') + buf.toString('utf8');
          const cut = text.lastIndexOf('\n');
          partial.set(file, text.slice(cut + 1));
          parseLogLines(text.slice(0, cut + 1))
            .filter((r) => recordMatches(r, args))
            .forEach(show);
        }
      }, 200);
      const stop = () => {
        clearInterval(timer);
        resolvePromise();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  },
};

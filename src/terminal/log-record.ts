/**
 * One log record for people, one line (and the tail of a failed command's stderr): how `hookd logs`
 * shows the hook's and the daemon's JSON-lines logs, and how the foreground daemon (`hookd daemon run`)
 * writes its records to stderr as well (systemd's journal, a terminal).
 */
import { paint, safeText, type Color, type Out } from './output.js';

export type LogRecord = Record<string, unknown> & { level?: number; time?: number; msg?: string };

const LEVEL_NAMES: Record<number, [string, Color]> = {
  10: ['TRACE', 'gray'],
  20: ['DEBUG', 'gray'],
  30: ['INFO', 'green'],
  40: ['WARN', 'yellow'],
  50: ['ERROR', 'red'],
  60: ['FATAL', 'red'],
};

/**
 * The fields shown after the message, when the message does not already say them. `error` and `reason`
 * say why something failed (a delivery: the channel's answer; a dead letter: why it gave up).
 */
const SHOWN_FIELDS = [
  'event',
  'name',
  'exitCode',
  'signal',
  'durationMs',
  'sessionId',
  'channel',
  'attempts',
  'handoff',
  'file',
  'path',
  'error',
  'reason',
  'fix',
];

export function formatRecord(record: LogRecord, out: Pick<Out, 'color'>): string {
  const time =
    typeof record.time === 'number' ? new Date(record.time).toISOString().slice(11, 23) : '--:--:--.---';
  const [label, color] = LEVEL_NAMES[record.level ?? 30] ?? ['INFO', 'green'];
  const shown = (value: unknown) => (typeof value === 'object' ? JSON.stringify(value) : String(value));
  const extras = SHOWN_FIELDS.filter(
    (k) =>
      record[k] !== undefined && record[k] !== null && !String(record.msg ?? '').includes(shown(record[k])),
  )
    .map((k) => `${k}=${safeText(k === 'sessionId' ? shown(record[k]).slice(0, 8) : shown(record[k]))}`)
    .join(' ');
  // Everything in a record may come from an event or a command: shown escaped, never raw.
  let line = `${paint(out, 'gray', time)} ${paint(out, color, label.padEnd(5))} ${safeText(record.msg ?? '')}${extras ? paint(out, 'gray', `  ${extras}`) : ''}`;
  const stderr = typeof record.stderrTail === 'string' ? record.stderrTail.trim() : '';
  if (stderr && (record.level ?? 30) >= 40)
    line += `\n${paint(
      out,
      'gray',
      stderr
        .split('\n')
        .slice(-5)
        .map((l) => `      stderr| ${safeText(l)}`)
        .join('\n'),
    )}`;
  return `${line}\n`;
}

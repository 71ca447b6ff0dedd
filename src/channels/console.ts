import type { ConsoleChannelConfig } from '../config/schemas/notify-schema.js';
import type { RenderedNotification, Urgency } from '../notify/notification.js';
import { colorFor, paint, safeText, type Color, type Out } from '../terminal/output.js';
import type { Channel, DeliveryResult } from './channel.js';

/** Where the console channel writes: a writable stream such as process.stdout. */
export interface ConsoleStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface ConsoleOptions {
  /** Default: process.stdout. */
  stream?: ConsoleStream;
  /** Read for NO_COLOR and TERM (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Force colour on or off (default: on a TTY without NO_COLOR and TERM=dumb). */
  color?: boolean;
  /** Shown by describe() and status (default "stdout"). */
  label?: string;
}

const URGENCY_COLOR: Record<Urgency, Color> = { low: 'gray', normal: 'cyan', critical: 'red' };

/**
 * The readable block the console channel prints for one notification:
 *
 *     ┌ Finished: Fix the parser in api-server
 *     │ All done: the parser accepts trailing commas now.
 *     │ Project demo · Duration 1.2s · Session 48e23316 · Event Stop
 *     └ console · rule "finished" · normal
 */
export function formatConsoleNotification(
  notification: RenderedNotification,
  channel: string,
  out: Pick<Out, 'color'>,
): string {
  const bar = (mark: string) => paint(out, URGENCY_COLOR[notification.urgency], mark);
  const count = notification.count > 1 ? ` (${notification.count} events)` : '';
  // Titles, bodies and fields carry event data: each line shown escaped (safeText), never raw.
  const lines = [`${bar('┌')} ${paint(out, 'bold', safeText(`${notification.title}${count}`))}`];
  for (const line of notification.body.split('\n')) {
    if (line.trim() !== '') lines.push(`${bar('│')} ${safeText(line.trimEnd())}`);
  }
  const fields = notification.fields.map((f) => `${f.label} ${f.value}`).join(' · ');
  if (fields) lines.push(`${bar('│')} ${paint(out, 'gray', safeText(fields))}`);
  const urgency = notification.urgency === 'critical' ? paint(out, 'red', 'critical') : notification.urgency;
  lines.push(
    `${bar('└')} ${paint(out, 'gray', safeText(`${channel} · rule "${notification.rule}" ·`))} ${urgency}`,
  );
  return `${lines.join('\n')}\n`;
}

/**
 * A channel that prints each notification to a terminal (or any writable): `hookd demo`, and
 * `hookd daemon run` in a terminal. A write that throws (a closed pipe) is a permanent failure.
 */
export function createConsoleChannel(
  name: string,
  _config: ConsoleChannelConfig,
  options: ConsoleOptions = {},
): Channel {
  const stream = options.stream ?? process.stdout;
  const env = options.env ?? process.env;
  const color = options.color ?? colorFor(stream.isTTY, env);
  const label = options.label ?? 'stdout';
  return {
    name,
    type: 'console',
    describe: () => `console (${label})`,
    health: () => ({ ok: true, problems: [] }),
    send(notification: RenderedNotification): Promise<DeliveryResult> {
      try {
        stream.write(formatConsoleNotification(notification, name, { color }));
        return Promise.resolve({ ok: true, detail: 'printed' });
      } catch (error) {
        return Promise.resolve({
          ok: false,
          retryable: false,
          error: `cannot write to ${label}: ${(error as Error).message}`,
        });
      }
    },
  };
}

import { describe, expect, it } from 'vitest';
import { createConsoleChannel, formatConsoleNotification } from '../../../src/channels/console.js';
import { buildChannels } from '../../../src/channels/build-channels.js';
import { notifySchema } from '../../../src/config/schemas/notify-schema.js';
import type { DeliveryContext } from '../../../src/channels/channel.js';
import type { RenderedNotification } from '../../../src/notify/notification.js';

const notification: RenderedNotification = {
  title: 'Finished: Fix the parser in api-server (main)',
  body: 'All done: the parser accepts trailing commas.\n\n1.2s · 105 tokens\n',
  urgency: 'normal',
  rule: 'finished',
  event: 'Stop',
  eventIds: ['e1'],
  count: 1,
  at: 0,
  fields: [
    { label: 'Project', value: 'api-server' },
    { label: 'Session', value: '48e23316' },
  ],
};

const context: DeliveryContext = {
  deliveryId: 'e1/0/term',
  attempt: 1,
  threads: { get: () => undefined, set: async () => undefined },
};

function capture(isTTY: boolean) {
  const chunks: string[] = [];
  return { chunks, stream: { isTTY, write: (text: string) => chunks.push(text) } };
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[/;

describe('console channel', () => {
  it('prints title, body lines, fields and channel/rule/urgency as one block, without colour', () => {
    expect(formatConsoleNotification(notification, 'term', { color: false })).toBe(
      [
        '┌ Finished: Fix the parser in api-server (main)',
        '│ All done: the parser accepts trailing commas.',
        '│ 1.2s · 105 tokens',
        '│ Project api-server · Session 48e23316',
        '└ term · rule "finished" · normal',
        '',
      ].join('\n'),
    );
  });

  it('shows the escape sequences of event data escaped, never raw', () => {
    const hostile = {
      ...notification,
      title: 'T\u001b]0;pwned\u0007',
      body: 'line\u001b[2J\rhidden\nnext\u009b31m',
      fields: [{ label: 'Session', value: 's\u001b]52;c;eA==\u0007' }],
      rule: 'r\u0007',
    };
    expect(formatConsoleNotification(hostile, 'term', { color: true })).not.toMatch(
      // eslint-disable-next-line no-control-regex
      /\u001b\](?:0|52)|\u001b\[2J|\r|\u0007|\u009b/,
    );
    expect(formatConsoleNotification(hostile, 'term', { color: false }).split('\n').slice(0, 4)).toEqual([
      String.raw`┌ T\x1b]0;pwned\x07`,
      String.raw`│ line\x1b[2J\rhidden`,
      String.raw`│ next\x9b31m`,
      String.raw`│ Session s\x1b]52;c;eA==\x07`,
    ]);
  });

  it('counts the events of a coalesced notification in its title', () => {
    const text = formatConsoleNotification({ ...notification, count: 3 }, 'term', { color: false });
    expect(text.split('\n')[0]).toBe('┌ Finished: Fix the parser in api-server (main) (3 events)');
  });

  it('writes one block per delivery to the given stream and reports it delivered', async () => {
    const { chunks, stream } = capture(false);
    const channel = createConsoleChannel(
      'term',
      { type: 'console', enabled: true, timeoutMs: 1000 },
      { stream, env: {} },
    );
    expect(channel.type).toBe('console');
    expect(channel.describe()).toBe('console (stdout)');
    expect(channel.health()).toEqual({ ok: true, problems: [] });
    await expect(channel.send(notification, context)).resolves.toEqual({ ok: true, detail: 'printed' });
    expect(chunks).toEqual([formatConsoleNotification(notification, 'term', { color: false })]);
  });

  it('colours on a TTY, and not with NO_COLOR, TERM=dumb or a pipe', async () => {
    const sendTo = async (isTTY: boolean, env: Record<string, string>) => {
      const { chunks, stream } = capture(isTTY);
      const channel = createConsoleChannel(
        'term',
        { type: 'console', enabled: true, timeoutMs: 1000 },
        {
          stream,
          env,
        },
      );
      await channel.send({ ...notification, urgency: 'critical' }, context);
      return chunks.join('');
    };
    expect(await sendTo(true, {})).toMatch(ANSI);
    expect(await sendTo(true, { NO_COLOR: '1' })).not.toMatch(ANSI);
    expect(await sendTo(true, { TERM: 'dumb' })).not.toMatch(ANSI);
    expect(await sendTo(false, {})).not.toMatch(ANSI);
  });

  it('turns a write that throws (a closed pipe) into a permanent failure, never a throw', async () => {
    const channel = createConsoleChannel(
      'term',
      { type: 'console', enabled: true, timeoutMs: 1000 },
      {
        stream: {
          write: () => {
            throw new Error('write EPIPE');
          },
        },
        label: 'the terminal',
      },
    );
    await expect(channel.send(notification, context)).resolves.toEqual({
      ok: false,
      retryable: false,
      error: 'cannot write to the terminal: write EPIPE',
    });
  });

  it('is a config channel type with the common keys only, built by buildChannels', async () => {
    const notify = notifySchema.parse({
      channels: { term: { type: 'console' }, desktop: { type: 'desktop', enabled: false } },
      rules: [{ on: 'Stop', channels: ['term'] }],
    });
    expect(notify.channels.term).toEqual({ type: 'console', enabled: true, timeoutMs: 10_000 });
    expect(
      notifySchema.safeParse({ channels: { term: { type: 'console', stream: 'stderr' } } }).success,
    ).toBe(false);

    const { chunks, stream } = capture(false);
    const channels = buildChannels(notify, { env: {}, console: { stream } });
    expect([...channels.keys()]).toEqual(['term']);
    const term = channels.get('term')!;
    expect(term.type).toBe('console');
    await term.send(notification, context);
    expect(chunks.join('')).toContain('└ term · rule "finished" · normal');
  });
});

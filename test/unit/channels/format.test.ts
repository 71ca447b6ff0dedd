import { describe, expect, it } from 'vitest';
import { escapeMrkdwn, slackMessage } from '../../../src/channels/slack.js';
import { classifyHttp, safeHost } from '../../../src/channels/http.js';
import { retryAfterMs } from '../../../src/util/retry-after.js';
import { signBody } from '../../../src/channels/webhook.js';
import { probeDesktop } from '../../../src/channels/desktop.js';
import { clipUtf8, ntfyClickUrl, ntfyPriority } from '../../../src/channels/ntfy.js';
import type { RenderedNotification } from '../../../src/notify/notification.js';

const n: RenderedNotification = {
  title: 'demo: <done> & dusted',
  body: 'a < b > c',
  urgency: 'normal',
  rule: 'r',
  event: 'Stop',
  eventIds: ['e'],
  count: 1,
  at: 0,
  fields: [{ label: 'Project', value: 'a&b' }],
};

describe('slack formatting', () => {
  it('escapes &, < and > for mrkdwn; the plain-text header stays as is', () => {
    expect(escapeMrkdwn('<@U1> & <!here>')).toBe('&lt;@U1&gt; &amp; &lt;!here&gt;');
    const message = slackMessage(n);
    expect(message.blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: 'demo: <done> & dusted', emoji: true },
    });
    expect(message.blocks[1]).toEqual({ type: 'section', text: { type: 'mrkdwn', text: 'a &lt; b &gt; c' } });
    expect(message.blocks[2]).toEqual({
      type: 'section',
      fields: [{ type: 'mrkdwn', text: '*Project*\na&amp;b' }],
    });
    expect(message.text).toBe('demo: &lt;done&gt; &amp; dusted: a &lt; b &gt; c');
  });

  it('cuts a header of emoji to 150 characters, never inside one', () => {
    const header = slackMessage({ ...n, title: '😀'.repeat(100) }).blocks[0] as { text: { text: string } };
    expect(header.text.text.length).toBeLessThanOrEqual(150);
    // Whole emoji only: no surrogate without its other half.
    expect(header.text.text).toMatch(/^(?:\uD83D\uDE00)+…$/);
  });
});

describe('http classification', () => {
  const answer = (status: number, retryAfter?: string) => ({
    status,
    text: '',
    headers: new Headers(retryAfter ? { 'retry-after': retryAfter } : {}),
  });
  it('retries network errors, timeouts, 408, 429 and 5xx; dead-letters other 4xx', () => {
    expect(classifyHttp({ error: 'x', timedOut: true }, 'w')).toMatchObject({ ok: false, retryable: true });
    expect(classifyHttp(answer(204), 'w').ok).toBe(true);
    expect(classifyHttp(answer(429, '7'), 'w')).toMatchObject({ retryable: true, retryAfterMs: 7000 });
    expect(classifyHttp(answer(503), 'w')).toMatchObject({ retryable: true });
    expect(classifyHttp(answer(403), 'w')).toMatchObject({ retryable: false });
  });
  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(retryAfterMs('soon')).toBeUndefined();
  });
  it('shows only scheme and host of a URL', () => {
    expect(safeHost('https://hooks.slack.com/services/T/B/secret')).toBe('https://hooks.slack.com');
  });
  it('signs "<timestamp>.<body>" with HMAC-SHA256', () => {
    // Reference value from: printf '1700000000.{}' | openssl dgst -sha256 -hmac key
    expect(signBody('key', '1700000000', '{}')).toBe(
      'sha256=9d713ed406bb7076d4123f0dc2c39d2df5c654ed4b0cd56b52c8b4c940bd63ae',
    );
    expect(signBody('key', '1', 'a')).not.toBe(signBody('key', '2', 'a'));
    expect(signBody('key', '1', 'a')).toMatch(/^sha256=[0-9a-f]{64}$/);
  });
});

describe('desktop probe', () => {
  it('accepts the default D-Bus socket in $XDG_RUNTIME_DIR/bus, and reports macOS on Apple silicon', () => {
    expect(
      probeDesktop({
        platform: 'linux',
        arch: 'x64',
        env: { PATH: '/bin:/usr/bin', XDG_RUNTIME_DIR: '/nonexistent' },
      }).problems.some((p) => p.includes('D-Bus')),
    ).toBe(true);
    expect(probeDesktop({ platform: 'darwin', arch: 'arm64', env: {} }).problems[0]).toMatch(
      /Intel terminal-notifier/,
    );
  });
});

describe('ntfy formatting', () => {
  it('clips UTF-8 text to a byte budget without splitting a character', () => {
    expect(clipUtf8('short', 10)).toBe('short');
    const clipped = clipUtf8('é'.repeat(10), 8);
    expect(clipped).toBe('éé…');
    expect(Buffer.byteLength(clipped)).toBeLessThanOrEqual(8);
  });

  it('priority per urgency, with overrides', () => {
    expect(['low', 'normal', 'critical'].map((u) => ntfyPriority(u as 'low', { priorities: {} }))).toEqual([
      2, 3, 5,
    ]);
    expect(ntfyPriority('critical', { priorities: { critical: 4 } })).toBe(4);
  });

  it('click URL: placeholders filled and encoded; none when the notification lacks what it names', () => {
    expect(ntfyClickUrl('{appUrl}/sessions/{sessionId}', { ...n, sessionId: 'a/b' }, 'https://app.x/')).toBe(
      'https://app.x/sessions/a%2Fb',
    );
    expect(ntfyClickUrl('{appUrl}/sessions/{sessionId}', n, 'https://app.x')).toBeUndefined();
    expect(ntfyClickUrl(undefined, { ...n, sessionId: 's' }, 'https://app.x')).toBeUndefined();
  });
});

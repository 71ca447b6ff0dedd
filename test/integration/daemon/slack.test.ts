import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon } from '../../../src/daemon/lifecycle/daemon.js';
import { handOff } from '../../../src/link/client.js';
import {
  fixture,
  handoffOf,
  loopbackServer,
  tempEnv,
  waitFor,
  type Answer,
  type Received,
} from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function daemonWithSlack(
  slack: Record<string, unknown>,
  answer: (r: Received, i: number) => Answer,
  extraEnv: Record<string, string> = {},
) {
  const temp = tempEnv();
  cleanups.push(temp.cleanup);
  const server = await loopbackServer(answer);
  cleanups.push(server.close);
  const env = { ...temp.env, SLACK_WEBHOOK_URL: `${server.url}/services/T000/B000/XXXX`, ...extraEnv };
  const daemon = await startDaemon({
    env,
    config: {
      notify: {
        // Sent at once: delay-then-cancel is tested in waiting-delay.test.ts.
        waitingDelayMs: 0,
        channels: { team: { type: 'slack', ...slack } },
        rules: [
          {
            on: ['Notification', 'Stop'],
            channels: ['team'],
            title: '{{project}}: {{message | default:"finished"}}',
          },
        ],
        noise: { dedupeWindowMs: 0 },
      },
      daemon: { retryBaseMs: 20, retryMaxMs: 200 },
    },
  });
  cleanups.push(() => daemon.close());
  return { env, server, daemon };
}

const note = (message: string, session?: string) =>
  handoffOf({ ...fixture('04-Notification.json'), message, ...(session ? { session_id: session } : {}) });

describe('slack channel', () => {
  it('posts a Block Kit message to the incoming webhook, escaping mrkdwn', async () => {
    const { env, server } = await daemonWithSlack({ webhookUrl: '${SLACK_WEBHOOK_URL}' }, () => ({
      status: 200,
      body: 'ok',
    }));
    await handOff(note('run `rm <x> && echo`?'), { env, timeoutMs: 2000 });
    const got = await waitFor(() => server.received[0], 10_000, 'slack POST');
    expect(got.url).toBe('/services/T000/B000/XXXX');
    const body = got.json as {
      text: string;
      blocks: { type: string; text?: { text: string }; fields?: { text: string }[] }[];
    };
    expect(body.blocks[0]).toMatchObject({ type: 'header', text: { text: 'demo: run `rm <x> && echo`?' } });
    expect(body.text).toContain('&lt;x&gt; &amp;&amp;');
    expect(body.blocks.at(-1)!.fields!.map((f) => f.text)).toContain('*Project*\ndemo');
  });

  it('honours 429 Retry-After, then delivers', async () => {
    const { env, server, daemon } = await daemonWithSlack({ webhookUrl: '${SLACK_WEBHOOK_URL}' }, (_r, i) =>
      i === 0
        ? { status: 429, headers: { 'retry-after': '1' }, body: 'rate_limited' }
        : { status: 200, body: 'ok' },
    );
    await handOff(note('limited'), { env, timeoutMs: 2000 });
    await waitFor(() => server.received.length === 2, 10_000, 'second attempt');
    expect(server.received[1]!.at - server.received[0]!.at).toBeGreaterThanOrEqual(950);
    await waitFor(
      () => daemon.stats().channels.find((c) => c.name === 'team')!.delivered === 1,
      5000,
      'delivered',
    );
  });

  it('down for a while, then back: everything delivered once, in order', async () => {
    let down = true;
    const { env, server, daemon } = await daemonWithSlack({ webhookUrl: '${SLACK_WEBHOOK_URL}' }, () =>
      down ? { status: 503, body: 'unavailable' } : { status: 200, body: 'ok' },
    );
    const messages = Array.from({ length: 30 }, (_, n) => `message ${n}`);
    for (const m of messages) await handOff(note(m), { env, timeoutMs: 2000 });
    await waitFor(() => server.received.length >= 3, 10_000, 'failing attempts');
    down = false;
    await waitFor(
      () => daemon.stats().channels.find((c) => c.name === 'team')!.delivered === 30,
      20_000,
      '30 delivered',
    );
    const ok = server.received.map(
      (r) => (r.json as { blocks: { text: { text: string } }[] }).blocks[0]!.text.text,
    );
    // Only the head is retried while Slack is down; once back, the rest follow in order, each once.
    const delivered = ok.slice(ok.lastIndexOf('demo: message 0'));
    expect(delivered).toEqual(messages.map((m) => `demo: ${m}`));
  });
});

describe('slack threads', () => {
  it('starts a thread per session and replies in it; a restart keeps the thread', async () => {
    const temp = tempEnv();
    cleanups.push(temp.cleanup);
    let ts = 1000;
    const server = await loopbackServer(() => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ok: true, ts: `${++ts}.0001` }),
    }));
    cleanups.push(server.close);
    const env = { ...temp.env, SLACK_BOT_TOKEN: 'xoxb-test-token-000000', SLACK_API: server.url };
    const config = {
      notify: {
        channels: {
          team: {
            type: 'slack',
            botToken: '${SLACK_BOT_TOKEN}',
            channel: 'C123',
            apiBaseUrl: '${SLACK_API}',
          },
        },
        rules: [{ on: ['Notification'], channels: ['team'], title: '{{message}}' }],
        noise: { dedupeWindowMs: 0 },
        waitingDelayMs: 0,
      },
    };
    let daemon = await startDaemon({ env, config });
    await handOff(note('a1', 'session-a'), { env, timeoutMs: 2000 });
    await handOff(note('b1', 'session-b'), { env, timeoutMs: 2000 });
    await handOff(note('a2', 'session-a'), { env, timeoutMs: 2000 });
    await waitFor(() => server.received.length === 3, 10_000, 'three posts');
    await daemon.close();
    daemon = await startDaemon({ env, config });
    cleanups.push(() => daemon.close());
    await handOff(note('a3', 'session-a'), { env, timeoutMs: 2000 });
    await waitFor(() => server.received.length === 4, 10_000, 'fourth post');
    const posts = server.received.map((r) => ({
      url: r.url,
      auth: r.headers.authorization,
      body: r.json as { channel: string; thread_ts?: string; blocks: { text: { text: string } }[] },
    }));
    expect(
      posts.every((p) => p.url === '/chat.postMessage' && p.auth === 'Bearer xoxb-test-token-000000'),
    ).toBe(true);
    expect(posts.map((p) => [p.body.blocks[0]!.text.text, p.body.thread_ts ?? null])).toEqual([
      ['a1', null],
      ['b1', null],
      ['a2', '1001.0001'],
      ['a3', '1001.0001'],
    ]);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon } from '../../../src/daemon/lifecycle/daemon.js';
import { handOff } from '../../../src/link/client.js';
import {
  fixture,
  handoffOf,
  loopbackServer,
  outboxSettled,
  tempEnv,
  waitFor,
  type Received,
} from './helpers.js';

/**
 * Resolved notifications (docs/sessions.md): a "waiting" notification already shown is marked resolved
 * on its channel when the session is answered. Loopback servers stand in for a webhook and Slack.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(channel: Record<string, unknown>, waitingDelayMs = 0) {
  const temp = tempEnv();
  cleanups.push(temp.cleanup);
  let ts = 1000;
  const server = await loopbackServer((r: Received) =>
    r.url.startsWith('/chat.')
      ? {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(
            r.url === '/chat.postMessage'
              ? { ok: true, channel: 'C0SLACK', ts: `${++ts}.000100` }
              : { ok: true },
          ),
        }
      : { status: 200, body: 'ok' },
  );
  cleanups.push(server.close);
  const env = { ...temp.env, SLACK_BOT_TOKEN: 'xoxb-test-token-000000', RECEIVER: server.url };
  const clock = { now: 1_800_000_000_000 };
  const config = {
    notify: {
      waitingDelayMs,
      channels: { out: channel },
      rules: [{ name: 'needs you', on: ['Notification'], channels: ['out'], title: '{{message}}' }],
      noise: { dedupeWindowMs: 0 },
    },
  };
  const open = () =>
    startDaemon({ env, config, now: () => clock.now, watchConfig: false, housekeepingIntervalMs: 20 });
  const state = { daemon: await open() };
  cleanups.push(() => state.daemon.close());
  const send = async (file: string, session: string) => {
    const h = handoffOf({ ...fixture(file), session_id: session, message: `${session} needs you` });
    expect((await handOff(h, { env, timeoutMs: 5000 })).outcome).toBe('acked');
    await waitFor(() => state.daemon.stats().events.pending === 0, 10_000, `${file} processed`);
    return h.event.id;
  };
  // Retries and held notifications wait on the injected clock: it moves while the test waits.
  const settled = () => outboxSettled(state, clock, 1000);
  const restart = async () => {
    await state.daemon.close();
    state.daemon = await open();
  };
  return { server, send, settled, restart };
}

const WEBHOOK = { type: 'webhook', url: '${RECEIVER}/in' };

describe('resolved notifications', () => {
  it('webhook: a shown "waiting" notification gets one `resolved` event when answered, across a restart', async () => {
    const { server, send, settled, restart } = await setup(WEBHOOK);
    await send('04-Notification.json', 'sess-a');
    await send('04-Notification.json', 'sess-b');
    await settled();
    await restart();
    const answer = await send('05-PostToolUse-Execute.json', 'sess-a');
    await send('03-PreToolUse-Execute.json', 'sess-a'); // moves on again: nothing more to resolve
    await settled();
    const bodies = server.received.map((r) => r.json as Record<string, unknown>);
    expect(bodies).toHaveLength(3);
    const shown = bodies[0] as { id: string; notification: { title: string } };
    expect(shown.notification.title).toBe('sess-a needs you');
    expect(bodies[2]).toEqual({
      version: 1,
      type: 'resolved',
      id: `${shown.id}/resolved`,
      channel: 'out',
      attempt: 1,
      resolves: shown.id,
      by: `PostToolUse ${answer}`,
      sessionId: 'sess-a',
      at: expect.any(String),
    });
    expect(server.received[2]!.headers['x-hookd-delivery']).toBe(`${shown.id}/resolved`);
  });

  it('held by the waiting delay, then shown: still resolved when answered; a cancelled one is not', async () => {
    const { server, send, settled } = await setup(WEBHOOK, 5000);
    await send('04-Notification.json', 'sess-late');
    await settled(); // the clock moves past the delay: sent
    await send('04-Notification.json', 'sess-quick');
    await send('05-PostToolUse-Execute.json', 'sess-quick'); // answered within the delay: cancelled
    await send('05-PostToolUse-Execute.json', 'sess-late');
    await settled();
    const bodies = server.received.map(
      (r) => r.json as { type?: string; notification?: { title: string }; sessionId?: string },
    );
    expect(bodies.map((b) => b.type ?? b.notification!.title)).toEqual(['sess-late needs you', 'resolved']);
    expect(bodies[1]!.sessionId).toBe('sess-late');
  });

  it('slack with a bot token: the message is updated to "answered"', async () => {
    const { server, send, settled } = await setup({
      type: 'slack',
      botToken: '${SLACK_BOT_TOKEN}',
      channel: '#agents',
      apiBaseUrl: '${RECEIVER}',
    });
    await send('04-Notification.json', 'sess-s');
    await settled();
    await send('05-PostToolUse-Execute.json', 'sess-s');
    await settled();
    const calls = server.received.map((r) => ({
      url: r.url,
      body: r.json as { channel: string; ts?: string; text: string },
    }));
    expect(calls.map((c) => [c.url, c.body.channel, c.body.ts ?? null])).toEqual([
      ['/chat.postMessage', '#agents', null],
      ['/chat.update', 'C0SLACK', '1001.000100'],
    ]);
    expect(calls[1]!.body.text).toMatch(/^Answered: sess-s needs you/);
    expect(JSON.stringify(calls[1]!.body)).toContain(':white_check_mark: answered (PostToolUse)');
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon } from '../../../src/daemon/lifecycle/daemon.js';
import { handOff } from '../../../src/link/client.js';
import { fixture, handoffOf, loopbackServer, tempEnv, waitFor } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(notify: Record<string, unknown>, now?: () => number) {
  const temp = tempEnv();
  cleanups.push(temp.cleanup);
  const server = await loopbackServer();
  cleanups.push(server.close);
  const daemon = await startDaemon({
    env: temp.env,
    config: {
      // Delay-then-cancel is tested in waiting-delay.test.ts: off here, so asks are sent at once.
      notify: {
        channels: { ops: { type: 'webhook', url: `${server.url}/in` } },
        waitingDelayMs: 0,
        ...notify,
      },
    },
    housekeepingIntervalMs: 50,
    ...(now ? { now } : {}),
  });
  cleanups.push(() => daemon.close());
  const titles = () =>
    server.received.map(
      (r) => (r.json as { notification: { title: string; body: string; count: number } }).notification,
    );
  return { env: temp.env, server, daemon, titles };
}

describe('noise control in the daemon', () => {
  it('coalesces a burst of 20 SubagentStop events into one "20 sub-agents finished"', async () => {
    const t = await setup({
      rules: [{ on: 'SubagentStop', channels: ['ops'] }],
      noise: { coalesceWindowMs: 300, dedupeWindowMs: 0 },
    });
    await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        handOff(handoffOf({ ...fixture('14-SubagentStop.json'), task_name: `task ${n}` }), {
          env: t.env,
          timeoutMs: 5000,
        }),
      ),
    );
    await waitFor(() => t.server.received.length === 1, 10_000, 'one coalesced POST');
    // Every event processed and nothing left in the outbox: no other POST can come.
    await waitFor(
      () => {
        const { events, outbox } = t.daemon.stats();
        return events.processed === 20 && events.pending === 0 && outbox.pending === 0 && outbox.held === 0;
      },
      10_000,
      'the daemon settled',
    );
    expect(t.server.received).toHaveLength(1);
    const [n] = t.titles();
    // All 20 are in this one: none is left for a window still open.
    expect(n).toMatchObject({ title: 'demo: 20 sub-agents finished', count: 20 });
    expect(n!.body.split('\n')).toHaveLength(6);
  });

  it('does not repeat an idle prompt until the session shows activity', async () => {
    const t = await setup({
      rules: [{ on: 'Notification', channels: ['ops'] }],
      noise: { dedupeWindowMs: 0 },
    });
    // The agent repeats an idle prompt a minute apart (the same bytes within a second are one event).
    const idle = (agoMs: number) =>
      handoffOf(
        { ...fixture('04-Notification.json'), notification_type: 'idle_prompt', message: 'waiting' },
        { receivedAt: Date.now() - agoMs },
      );
    await handOff(idle(120_000), { env: t.env, timeoutMs: 5000 });
    await handOff(idle(60_000), { env: t.env, timeoutMs: 5000 });
    await handOff(handoffOf(fixture('02-UserPromptSubmit.json')), { env: t.env, timeoutMs: 5000 });
    await handOff(idle(0), { env: t.env, timeoutMs: 5000 });
    await waitFor(() => t.daemon.stats().events.processed === 4, 5000, 'four processed');
    await waitFor(() => t.server.received.length === 2, 5000, 'two POSTs');
    expect(t.daemon.stats().notifications.suppressed).toBe(1);
  });

  it('quiet hours hold notifications and send one digest when they end; critical ones pass', async () => {
    let clock = new Date(2026, 0, 5, 23, 0).getTime();
    const t = await setup(
      {
        rules: [
          { on: 'Notification', channels: ['ops'], title: '{{message}}' },
          { on: 'Stop', channels: ['ops'], urgency: 'critical', title: 'urgent stop' },
        ],
        noise: { dedupeWindowMs: 0 },
        quietHours: { windows: [{ start: '22:00', end: '07:00' }], allowUrgent: true },
      },
      () => clock,
    );
    for (const m of ['one', 'two', 'three']) {
      await handOff(handoffOf({ ...fixture('04-Notification.json'), message: m }), {
        env: t.env,
        timeoutMs: 5000,
      });
    }
    await handOff(handoffOf(fixture('16-Stop.json')), { env: t.env, timeoutMs: 5000 });
    await waitFor(() => t.server.received.length === 1, 5000, 'the critical one');
    expect(t.titles()[0]!.title).toBe('urgent stop');
    expect(t.daemon.stats().outbox.held).toBe(3);
    clock = new Date(2026, 0, 6, 7, 0, 1).getTime();
    await waitFor(() => t.server.received.length === 2, 5000, 'the digest');
    expect(t.titles()[1]).toMatchObject({
      title: 'While you were away: 3 notifications',
      count: 3,
      body: '• one\n• two\n• three',
    });
    expect(t.daemon.stats().outbox.held).toBe(0);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { startDaemon } from '../../../src/daemon/lifecycle/daemon.js';
import { handOff, requestDaemon } from '../../../src/link/client.js';
import { fixture, handoffOf, loopbackServer, tempEnv, waitFor } from './helpers.js';
import { writeConfig } from './process-helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function configWithTitle(url: string, title: string) {
  return {
    notify: {
      channels: { ops: { type: 'webhook', url } },
      rules: [{ on: 'Notification', channels: ['ops'], title }],
      noise: { dedupeWindowMs: 0 },
      waitingDelayMs: 0,
    },
  };
}

describe('config reload', () => {
  it('applies a valid edit to the next event, keeps the last good config on an invalid one, and reports it', async () => {
    const temp = tempEnv();
    cleanups.push(temp.cleanup);
    const server = await loopbackServer();
    cleanups.push(server.close);
    writeConfig(temp.env, configWithTitle(`${server.url}/in`, 'first'));
    const daemon = await startDaemon({ env: temp.env });
    cleanups.push(() => daemon.close());
    // The same event again, `agoMs` before now: the same bytes within a second are one event.
    const send = (agoMs: number) =>
      handOff(handoffOf(fixture('04-Notification.json'), { receivedAt: Date.now() - agoMs }), {
        env: temp.env,
        timeoutMs: 5000,
      });
    const lastTitle = () =>
      (server.received.at(-1)!.json as { notification: { title: string } }).notification.title;

    await send(120_000);
    await waitFor(() => server.received.length === 1, 5000, 'first POST');
    expect(lastTitle()).toBe('first');

    // A quick burst of writes: the last one must win.
    const before = daemon.stats().config.appliedAt;
    await new Promise((r) => setTimeout(r, 5));
    for (const title of ['b1', 'b2', 'b3', 'second'])
      writeConfig(temp.env, configWithTitle(`${server.url}/in`, title));
    await waitFor(() => daemon.stats().config.appliedAt > before, 5000, 'reload');
    await send(60_000);
    await waitFor(() => server.received.length === 2, 5000, 'second POST');
    expect(lastTitle()).toBe('second');

    writeFileSync(
      temp.env.HOOKD_CONFIG!,
      '{"notify": {"rules": [{"on": "Stop", "channels": ["nowhere"], "bogus": 1}]}}',
    );
    await waitFor(() => !daemon.stats().config.ok, 5000, 'invalid config noticed');
    const status = await requestDaemon({ v: 1, type: 'status' }, { env: temp.env });
    const issues =
      (status.ok &&
        (status.reply.status as { config: { issues: { path: string; message: string }[] } }).config.issues) ||
      [];
    expect(issues.map((i) => i.path)).toEqual(
      expect.arrayContaining(['notify.rules[0].bogus', 'notify.rules[0].channels[0]']),
    );
    await send(0);
    await waitFor(() => server.received.length === 3, 5000, 'third POST');
    expect(lastTitle()).toBe('second');
  });
});

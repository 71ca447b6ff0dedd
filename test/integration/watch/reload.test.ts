import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';
import { startSimulator } from '../../../src/platform-api/simulator/index.js';
import { Daemon } from '../../../src/daemon/lifecycle/daemon.js';
import { PlatformClient } from '../../../src/platform-api/api-client.js';
import { watchSettings } from '../../../src/config/schemas/watch-schema.js';
import { waitFor } from '../daemon/helpers.js';
import { START } from './helpers.js';
import { ManualTimers } from '../../helpers/manual-timers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('live reload of the watch settings', () => {
  it('starts, changes and stops the watchers when the config file changes, without a restart', async () => {
    const temp = makeTempDir('hkd-watch-reload-');
    cleanups.push(temp.cleanup);
    const clock = { now: START };
    const sim = await startSimulator({ seed: 'watch-reload', now: () => new Date(clock.now) });
    cleanups.push(() => sim.close());
    const env = isolatedEnv(temp.dir, {});
    const write = (watch: Record<string, unknown>) =>
      writeFileSync(env.HOOKD_CONFIG!, JSON.stringify({ notify: { channels: {}, rules: [] }, watch }));
    mkdirSync(dirname(env.HOOKD_CONFIG!), { recursive: true });
    write({});
    const client = new PlatformClient({
      baseUrl: sim.baseUrl,
      appUrl: sim.appUrl,
      apiKey: sim.keys.owner,
      retries: 0,
      now: () => new Date(clock.now),
    });
    const asked: unknown[] = [];
    const timers = new ManualTimers(clock);
    const daemon = new Daemon({
      env,
      watchConfig: false,
      now: () => clock.now,
      watch: {
        config: watchSettings({}),
        client,
        timers,
        clientFor: (config) => {
          asked.push(config.watch);
          return Promise.resolve(client);
        },
      },
    });
    await daemon.start();
    cleanups.push(() => daemon.close());
    expect(daemon.watchers).toBeUndefined();

    write({ members: { enabled: true, interval: '15m' } });
    expect(daemon.reloadConfig()).toBe(true);
    await waitFor(() => daemon.watchers?.enabled().includes('members'), 10_000, 'the members watcher');
    expect(daemon.stats().watchers?.find((w) => w.name === 'members')).toMatchObject({
      enabled: true,
      intervalMs: 900_000,
    });
    // It polls on its schedule like one started with the daemon.
    expect(timers.advance(0)).toBe(1);
    await waitFor(() => daemon.watchers!.states().members?.seq === 1, 10_000, 'the first poll');

    // A change elsewhere in the file leaves the running watchers alone.
    const running = daemon.watchers;
    writeFileSync(
      env.HOOKD_CONFIG!,
      JSON.stringify({
        notify: { channels: {}, rules: [], waitingDelayMs: 0 },
        watch: { members: { enabled: true, interval: '15m' } },
      }),
    );
    expect(daemon.reloadConfig()).toBe(true);
    expect(daemon.watchers).toBe(running);
    expect(asked).toHaveLength(1);

    write({ members: { enabled: true, interval: '20m' }, computers: { enabled: true } });
    daemon.reloadConfig();
    await waitFor(
      () => daemon.watchers !== running && daemon.watchers?.enabled().join() === 'computers,members',
      10_000,
      'both watchers',
    );
    // The members watcher kept what it saw (a baseline, not a new one): its next poll is at the saved time.
    expect(daemon.watchers!.states().members?.seq).toBe(1);

    write({});
    daemon.reloadConfig();
    await waitFor(() => daemon.watchers === undefined, 10_000, 'the watchers stopped');
    expect(daemon.stats().watchers).toBeUndefined();
  });
});

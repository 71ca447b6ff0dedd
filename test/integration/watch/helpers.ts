import { Daemon } from '../../../src/daemon/lifecycle/daemon.js';
import { createDaemonWiring } from '../../../src/daemon/lifecycle/run-foreground.js';
import { createDaemonLogger } from '../../../src/daemon/lifecycle/logger.js';
import { watchSettings, type WatcherName } from '../../../src/config/schemas/watch-schema.js';
import { PlatformClient } from '../../../src/platform-api/api-client.js';
import { startSimulator, type Simulator } from '../../../src/platform-api/simulator/index.js';
import { ManualTimers } from '../../helpers/manual-timers.js';
import { loopbackServer, tempEnv, waitFor } from '../daemon/helpers.js';

export const START = Date.UTC(2026, 10, 20, 12, 0, 0);

/**
 * A simulator, a loopback webhook receiver and a daemon in this process whose watchers poll the
 * simulator on an injected clock; `restart()` starts a new daemon on the same files.
 */
export async function watchSetup(
  watch: Record<string, unknown>,
  key: 'owner' | 'manager' | 'member' = 'owner',
  /** The notify section, given the webhook's URL (default: one rule for PlatformWatch to it). */
  notifyFor?: (url: string) => Record<string, unknown>,
) {
  const t = tempEnv();
  const clock = { now: START };
  const sim: Simulator = await startSimulator({ seed: 'watch', now: () => new Date(clock.now) });
  const hook = await loopbackServer();
  const client = new PlatformClient({
    baseUrl: sim.baseUrl,
    appUrl: sim.appUrl,
    apiKey: sim.keys[key],
    retries: 0,
    now: () => new Date(clock.now),
  });
  const config = watchSettings(watch);
  const notify = notifyFor?.(`${hook.url}/in`) ?? {
    channels: { hook: { type: 'webhook', url: `${hook.url}/in` } },
    rules: [{ name: 'platform', on: 'PlatformWatch', channels: ['hook'] }],
  };
  let timers = new ManualTimers(clock);
  // The enrichment and default texts `hookd daemon run` uses, as users get them.
  const wiring = await createDaemonWiring(t.env, {}, { logger: createDaemonLogger(t.env), noLedger: true });
  const open = async () => {
    timers = new ManualTimers(clock);
    const daemon = new Daemon({
      enrich: wiring.enrich,
      defaultText: wiring.defaultText,
      env: t.env,
      config: { notify },
      watchConfig: false,
      now: () => clock.now,
      watch: { config, client, timers },
    });
    await daemon.start();
    return daemon;
  };
  const state = { daemon: await open() };
  return {
    t,
    clock,
    sim,
    hook,
    client,
    config,
    state,
    timers: () => timers,
    runner: () => state.daemon.watchers!,
    /** Polls a watcher now; waits until what it raised was processed and delivered. */
    poll: async (name: WatcherName) => {
      const outcome = await state.daemon.watchers!.pollNow(name);
      await settled();
      return outcome;
    },
    restart: async () => {
      await state.daemon.close();
      state.daemon = await open();
    },
    close: async () => {
      await state.daemon.close();
      await wiring.close();
      await hook.close();
      await sim.close();
      t.cleanup();
    },
    /** The notifications the webhook received. */
    received: () =>
      hook.received.map(
        (r) => (r.json as { notification: { title: string; body: string; event: string } }).notification,
      ),
  };

  function settled(): Promise<true> {
    return waitFor(
      () => {
        const stats = state.daemon.stats();
        return stats.events.pending === 0 && stats.outbox.pending === 0 && stats.outbox.held === 0;
      },
      10_000,
      'the raised events processed and delivered',
    );
  }
}

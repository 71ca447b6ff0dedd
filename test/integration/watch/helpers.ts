import { Daemon } from '../../../src/daemon/lifecycle/daemon.js';
import { createDaemonWiring } from '../../../src/daemon/lifecycle/run-foreground.js';
import { createDaemonLogger } from '../../../src/daemon/lifecycle/logger.js';
import { watchSettings, type WatcherName } from '../../../src/config/watch-schema.js';
import { PlatformClient } from '../../../src/platform-api/api-client.js';
import { startSimulator, type Simulator } from '../../../src/platform-api/simulator/index.js';
import type { WatchTimers } from '../../../src/watch/runner.js';
import { loopbackServer, tempEnv, waitFor } from '../daemon/helpers.js';

/** Timers on an injected clock: nothing fires until the test moves the clock. */
export class FakeTimers implements WatchTimers {
  private readonly due = new Map<number, { at: number; fn: () => void }>();
  private next = 1;
  constructor(private readonly clock: { now: number }) {}
  set(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.due.set(id, { at: this.clock.now + ms, fn });
    return id;
  }
  clear(handle: unknown): void {
    this.due.delete(handle as number);
  }
  /** When the earliest timer is due, or undefined when none is set. */
  earliest(): number | undefined {
    const times = [...this.due.values()].map((t) => t.at);
    return times.length ? Math.min(...times) : undefined;
  }
  /** Moves the clock by `ms` and fires the timers now due. */
  advance(ms: number): number {
    this.clock.now += ms;
    let fired = 0;
    for (const [id, timer] of [...this.due]) {
      if (timer.at > this.clock.now) continue;
      this.due.delete(id);
      fired++;
      timer.fn();
    }
    return fired;
  }
}

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
  let timers = new FakeTimers(clock);
  // The enrichment and default texts `hookd daemon run` uses, as users get them.
  const wiring = await createDaemonWiring(t.env, {}, { logger: createDaemonLogger(t.env), noLedger: true });
  const open = async () => {
    timers = new FakeTimers(clock);
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

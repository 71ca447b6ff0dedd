import { daemonFiles, readPidFile } from '../../../src/link/runtime-files.js';
import { fixture, handoffOf, loopbackServer, tempEnv, type Received } from './helpers.js';
import { killQuietly, spawnDaemon, useProcessCleanup, writeConfig } from './process-helpers.js';

/**
 * The set-up of the fault tests: a temp environment, a webhook receiver and a daemon config that retries
 * fast; every process and file is cleaned up after each test.
 */
export function useFaultsSetup() {
  const { pids, cleanups } = useProcessCleanup();
  async function setup(answer?: Parameters<typeof loopbackServer>[0], daemon: Record<string, unknown> = {}) {
    const temp = tempEnv();
    cleanups.push(temp.cleanup);
    // Whatever daemon holds this test's lock (one the hooks started, too) is killed even when the test fails.
    cleanups.push(() => killQuietly(readPidFile(daemonFiles(temp.env).lock)));
    const hook = await loopbackServer(answer);
    cleanups.push(hook.close);
    writeConfig(temp.env, {
      notify: {
        waitingDelayMs: 0, // this file is not about the waiting delay (waiting-delay.test.ts is)
        channels: { ops: { type: 'webhook', url: `${hook.url}/hook` } },
        rules: [{ on: ['Notification'], channels: ['ops'], title: '{{message}}' }],
        noise: { dedupeWindowMs: 0 },
      },
      daemon: { retryBaseMs: 50, retryMaxMs: 200, spoolScanIntervalMs: 100, ...daemon },
    });
    const start = async () => {
      const child = await spawnDaemon(temp.env);
      pids.push(child.pid!);
      return child;
    };
    return { ...temp, hook, start };
  }
  return { pids, cleanups, setup };
}

/** The event id of a notification the webhook receiver got. */
export function eventIdOf(r: Received): string {
  return (r.json as { notification: { eventIds: string[] } }).notification.eventIds[0]!;
}

/** A Notification hand-off whose message carries `n`. */
export function notificationEvent(n: number) {
  return handoffOf({ ...fixture('04-Notification.json'), message: `event ${n}` });
}

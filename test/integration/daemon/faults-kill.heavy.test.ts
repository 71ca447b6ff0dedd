import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { handOff } from '../../../src/link/client.js';
import { daemonFiles, readPidFile } from '../../../src/link/runtime-files.js';
import { spoolDir } from '../../../src/paths.js';
import { eventIdOf, notificationEvent, useFaultsSetup } from './faults-setup.js';
import { daemonSettled, waitFor } from './helpers.js';
import { exited } from './process-helpers.js';

const { setup } = useFaultsSetup();

// A thousand hand-offs and a crash: heavy, so not in the quick tier (the daemon's SIGTERM path is, in
// faults.test.ts).
describe('the daemon as a real process, killed mid-burst', () => {
  it('kill -9 in the middle of a burst of 1,000 events: after a restart every notification arrives once', async () => {
    const t = await setup();
    const daemon = await t.start();
    const sent = Array.from({ length: 1000 }, (_, n) => notificationEvent(n));
    let acked = 0;
    let killed = false;
    const outcomes: string[] = [];
    // Ten concurrent clients; the daemon is killed once a third of the events are acknowledged.
    const queue = [...sent];
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        for (let m = queue.shift(); m; m = queue.shift()) {
          const result = await handOff(m, { env: t.env, timeoutMs: 2000, autoStart: false });
          outcomes.push(result.outcome);
          if (result.outcome === 'acked' && ++acked >= 330 && !killed) {
            killed = true;
            daemon.kill('SIGKILL');
          }
        }
      }),
    );
    expect(killed).toBe(true);
    expect(outcomes.filter((o) => o === 'failed')).toEqual([]);
    expect(outcomes.filter((o) => o === 'spooled').length).toBeGreaterThan(0);
    await exited(daemon);
    // The crash left the lock, pid and socket behind: the next daemon cleans them up.
    expect(readPidFile(daemonFiles(t.env).lock)).toBe(daemon.pid);
    await t.start();
    await waitFor(
      () => new Set(t.hook.received.map(eventIdOf)).size === 1000,
      60_000,
      '1000 distinct notifications',
    );
    await daemonSettled(t.env);
    const ids = t.hook.received.map(eventIdOf);
    expect(new Set(ids)).toEqual(new Set(sent.map((m) => m.event.id)));
    // At-least-once over HTTP: only a POST in flight at the moment of the kill can be repeated, and it
    // carries the same idempotency key so the receiver can drop it.
    const keys = t.hook.received.map((r) => r.headers['idempotency-key']);
    expect(ids.length - 1000).toBeLessThanOrEqual(1);
    expect(new Set(keys).size).toBe(1000);
    expect(readdirSync(spoolDir(t.env)).filter((n) => n.endsWith('.json'))).toEqual([]);
  }, 120_000);
});

import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { handOff } from '../../../src/link/client.js';
import { daemonFiles } from '../../../src/link/runtime-files.js';
import { useFaultsSetup } from './faults-setup.js';
import { fixture, handoffOf, waitFor, type Received } from './helpers.js';
import { exited } from './process-helpers.js';

// A burst of 1,000 events through a kill -9 is in faults-burst.heavy.test.ts.

const { setup } = useFaultsSetup();

function eventIdOf(r: Received): string {
  return (r.json as { notification: { eventIds: string[] } }).notification.eventIds[0]!;
}

function notificationEvent(n: number) {
  return handoffOf({ ...fixture('04-Notification.json'), message: `event ${n}` });
}

describe('the daemon as a real process', () => {
  it('SIGTERM: stops accepting, keeps undelivered work, exits 0; the next start delivers it once', async () => {
    let up = false;
    const t = await setup(() => (up ? { status: 200 } : { status: 503 }));
    const daemon = await t.start();
    const sent = Array.from({ length: 20 }, (_, n) => notificationEvent(n));
    for (const m of sent) expect((await handOff(m, { env: t.env, timeoutMs: 5000 })).outcome).toBe('acked');
    await waitFor(() => t.hook.received.length > 0, 10_000, 'a first failing attempt');
    daemon.kill('SIGTERM');
    expect(await exited(daemon)).toEqual({ code: 0, signal: null });
    const files = daemonFiles(t.env);
    expect(existsSync(files.socket)).toBe(false);
    expect(existsSync(files.lock)).toBe(false);
    // Down now: a hand-off is spooled, not lost.
    const late = notificationEvent(99);
    expect((await handOff(late, { env: t.env, timeoutMs: 300, autoStart: false })).outcome).toBe('spooled');
    up = true;
    const failed = t.hook.received.length;
    await t.start();
    await waitFor(
      () => new Set(t.hook.received.slice(failed).map(eventIdOf)).size === 21,
      20_000,
      '21 deliveries',
    );
    const delivered = t.hook.received.slice(failed).map(eventIdOf);
    expect(delivered.sort()).toEqual([...sent, late].map((m) => m.event.id).sort());
  });
});

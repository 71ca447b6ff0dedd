import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { notifySettings } from '../../../src/config/schemas/notify-schema.js';
import type { EventHandoff, HookEvent } from '../../../src/events/types.js';
import type { Channel } from '../../../src/channels/channel.js';
import { DaemonStore, type Delivery, type JournalRecord } from '../../../src/journal/store.js';
import { NotifyApplier } from '../../../src/journal/apply-notify.js';
import { Ingest } from '../../../src/daemon/listen/ingest.js';
import { Digest } from '../../../src/journal/digest.js';
import { collectStats, percentile } from '../../../src/journal/stats.js';
import { requestHandler } from '../../../src/daemon/listen/requests.js';
import { DaemonRunningError, holdDaemonLock } from '../../../src/daemon/lifecycle/lock-holder.js';
import { createNoiseState } from '../../../src/notify/noise.js';
import { heldDelivery } from '../../helpers/deliveries.js';
import { waitFor } from '../../helpers/wait.js';
import type { ConfigState } from '../../../src/journal/config-store.js';
import { daemonSettings } from '../../../src/config/schemas/daemon-schema.js';

// Each part of the daemon alone, with its edges (clock, journal, channels, outbox) injected.

const silent = pino({ level: 'silent' });
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookd-parts-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function event(id: string, name = 'Notification', extra: Partial<HookEvent> = {}): HookEvent {
  return {
    id,
    receivedAt: 1000,
    agent: 'droid',
    name,
    sessionId: 's1',
    payload: { session_id: 's1', message: `needs you (${id})`, hook_event_name: name },
    ...extra,
  };
}
const handoff = (e: HookEvent): EventHandoff => ({ v: 1, type: 'event', event: e, results: [] });

/** A journal in memory: records applied to a store, kept in order. */
function memoryJournal() {
  const store = new DaemonStore(1000);
  const written: JournalRecord[] = [];
  const commit = async (records: JournalRecord[]) => {
    for (const r of records) store.apply(r);
    written.push(...records);
  };
  return { store, written, commit };
}

describe('journal/apply-notify', () => {
  it('turns an event into deliveries for the rule channels and marks it done', async () => {
    const { written, commit } = memoryJournal();
    const woken: string[] = [];
    const ledger: string[] = [];
    const pipeline = new NotifyApplier({
      notify: () => notifySettings({ waitingDelayMs: 0 }),
      now: () => 5000,
      logger: silent,
      commit,
      wake: (channels) => woken.push(...channels),
      onEvent: async (h) => void ledger.push(h.event.id),
    });
    pipeline.enqueue(handoff(event('e1')));
    await pipeline.idle();
    expect(ledger).toEqual(['e1']);
    const adds = written.filter((r) => r.t === 'add');
    expect(adds).toHaveLength(1);
    expect(adds[0]).toMatchObject({ d: { channel: 'desktop', state: 'pending', createdAt: 5000 } });
    expect(written.at(-1)).toEqual({ t: 'done', id: 'e1' });
    expect(woken).toEqual(['desktop']);
    expect(pipeline.counts).toMatchObject({ processed: 1, fired: 1 });
    expect(await pipeline.stop()).toBe(0);
  });

  it('takes no new batch once halted', async () => {
    const { written, commit } = memoryJournal();
    const pipeline = new NotifyApplier({
      notify: () => notifySettings({}),
      now: () => 1,
      logger: silent,
      commit,
      wake: () => {},
    });
    pipeline.halt();
    pipeline.enqueue(handoff(event('e2')));
    await pipeline.idle();
    expect(written).toEqual([]);
    expect(pipeline.counts.processed).toBe(0);
  });
});

describe('daemon/ingest', () => {
  it('makes an event durable once, then queues it; a second copy is a duplicate', async () => {
    const { store, written, commit } = memoryJournal();
    const queued: string[] = [];
    const ingest = new Ingest({
      store,
      commit,
      paused: () => false,
      spoolDir: tempDir(),
      enqueue: (h) => queued.push(h.event.id),
      now: () => 42,
      logger: silent,
    });
    expect(await ingest.receive(handoff(event('a')))).toEqual({ duplicate: false });
    expect(await ingest.receive(handoff(event('a')))).toEqual({ duplicate: true });
    expect(written).toEqual([{ t: 'in', at: 42, h: handoff(event('a')) }]);
    expect(queued).toEqual(['a']);
    expect(ingest.counts).toMatchObject({ received: 1, duplicates: 1 });
  });

  it('forgets an event the journal refused, so a retry is not taken for a duplicate', async () => {
    const store = new DaemonStore(1000);
    const ingest = new Ingest({
      store,
      commit: async (records) => {
        for (const r of records) store.apply(r);
        throw new Error('ENOSPC');
      },
      paused: () => false,
      spoolDir: tempDir(),
      enqueue: () => {},
      now: () => 1,
      logger: silent,
    });
    await expect(ingest.receive(handoff(event('b')))).rejects.toThrow('ENOSPC');
    expect(store.seen.has('b')).toBe(false);
  });

  it('drains the spool: valid events journaled and removed, a bad file quarantined', async () => {
    const spool = tempDir();
    writeFileSync(join(spool, '1-a.json'), JSON.stringify(handoff(event('s1'))));
    writeFileSync(join(spool, '2-b.json'), '{not json');
    const { store, written, commit } = memoryJournal();
    const queued: string[] = [];
    const ingest = new Ingest({
      store,
      commit,
      paused: () => false,
      spoolDir: spool,
      enqueue: (h) => queued.push(h.event.id),
      now: () => 7,
      logger: silent,
    });
    await ingest.drainSpool();
    expect(queued).toEqual(['s1']);
    expect(written.map((r) => r.t)).toEqual(['in']);
    expect(ingest.counts).toMatchObject({ received: 1, fromSpool: 1, rejected: 1 });
    expect(readdirSync(spool).filter((n) => n.endsWith('.json'))).toEqual([]);
  });

  it('takes what hooks spooled before a socket event first, and a drain asked for during one', async () => {
    const spool = tempDir();
    const { store, written, commit } = memoryJournal();
    const ingest = new Ingest({
      store,
      commit,
      paused: () => false,
      spoolDir: spool,
      enqueue: () => {},
      now: () => 7,
      logger: silent,
    });
    // A hook left `early` in the spool; `late` reaches the socket before any drain ran.
    writeFileSync(join(spool, '1-early.json'), JSON.stringify(handoff(event('early'))));
    await ingest.catchUp();
    await ingest.receive(handoff(event('late')));
    expect(written.map((r) => (r.t === 'in' ? r.h.event.id : r.t))).toEqual(['early', 'late']);
    expect(readdirSync(spool).filter((n) => n.endsWith('.json'))).toEqual([]);
    // A file that comes while a drain runs is taken by the one more the watch asked for.
    writeFileSync(
      join(spool, '2-a.json'),
      JSON.stringify(handoff(event('a', 'Notification', { sessionId: 's2' }))),
    );
    ingest.scheduleDrain();
    writeFileSync(
      join(spool, '3-b.json'),
      JSON.stringify(handoff(event('b', 'Notification', { sessionId: 's3' }))),
    );
    ingest.scheduleDrain();
    const ids = () => written.map((r) => (r.t === 'in' ? r.h.event.id : r.t));
    await waitFor(() => ids().length === 4, 5000, 'the second drain');
    expect(ids()).toEqual(['early', 'late', 'a', 'b']);
    // Nothing spooled, nothing draining: no wait and no drain.
    await ingest.catchUp();
    expect(ingest.counts).toMatchObject({ received: 4, fromSpool: 3 });
  });

  it('leaves the spool alone while the journal is in trouble', async () => {
    const spool = tempDir();
    writeFileSync(join(spool, '1-a.json'), JSON.stringify(handoff(event('s2'))));
    const { store, commit } = memoryJournal();
    const ingest = new Ingest({
      store,
      commit,
      paused: () => true,
      spoolDir: spool,
      enqueue: () => {},
      now: () => 7,
      logger: silent,
    });
    await ingest.drainSpool();
    expect(readdirSync(spool)).toContain('1-a.json');
  });
});

describe('journal/digest', () => {
  const held = (id: string, channel: string, title: string): Delivery =>
    heldDelivery({ id, channel, title, heldUntil: 100 });

  it('releases several held notifications of a channel as one digest, a single one as it is', async () => {
    const { store, written, commit } = memoryJournal();
    for (const d of [held('h1', 'slack', 'one'), held('h2', 'slack', 'two'), held('h3', 'desktop', 'three')])
      store.apply({ t: 'add', d });
    written.length = 0;
    const woken: string[] = [];
    const digest = new Digest({
      store,
      notify: () => notifySettings({}),
      commit,
      wake: (c) => woken.push(...c),
      now: () => 200,
    });
    await digest.releaseHeld();
    const add = written.find((r) => r.t === 'add');
    expect(add).toMatchObject({
      d: {
        id: 'digest/h1',
        channel: 'slack',
        notification: { title: 'While you were away: 2 notifications' },
      },
    });
    expect(written).toContainEqual({ t: 'release', ids: ['h1', 'h2'], at: 200 });
    expect(written).toContainEqual({ t: 'unhold', ids: ['h3'], at: 200 });
    expect(digest.counts.digests).toBe(1);
    expect(woken.sort()).toEqual(['desktop', 'slack']);
  });

  it('holds on while quiet hours last', async () => {
    const { store, written, commit } = memoryJournal();
    store.apply({ t: 'add', d: held('h1', 'slack', 'one') });
    written.length = 0;
    const noon = new Date(2026, 0, 1, 12, 0).getTime();
    const digest = new Digest({
      store,
      notify: () => notifySettings({ quietHours: { windows: [{ start: '11:00', end: '13:00' }] } }),
      commit,
      wake: () => {},
      now: () => noon,
    });
    await digest.releaseHeld();
    expect(written).toEqual([]);
  });
});

describe('daemon/stats', () => {
  it('reads its numbers from the parts', () => {
    const store = new DaemonStore(10);
    const channel = {
      name: 'desktop',
      type: 'desktop',
      describe: () => 'notify-send',
      health: () => ({ ok: true, problems: [] }),
    } as unknown as Channel;
    const state: ConfigState = {
      notify: notifySettings({}),
      daemon: daemonSettings({}),
      ok: true,
      issues: [],
      loadedAt: 1,
      appliedAt: 1,
    };
    const stats = collectStats({
      startedAt: 1000,
      now: () => 4000,
      socketPath: '/s',
      journal: { file: '/j', size: 10, trouble: { error: 'disk full', since: 3 } },
      store,
      channels: () => new Map([['desktop', channel]]),
      channelStats: () => ({ delivered: 2, failedAttempts: 0, dead: 0, latencies: [10, 30, 20] }),
      config: () => state,
      ingest: { received: 3, duplicates: 1, fromSpool: 2, rejected: 0 },
      pipeline: { processed: 3, fired: 2, suppressed: 1, coalesced: 0, held: 0 },
      digest: { digests: 4 },
      pid: 77,
      memory: () => ({ rssBytes: 1, heapUsedBytes: 2 }),
    });
    expect(stats).toMatchObject({
      pid: 77,
      uptimeMs: 3000,
      journal: { file: '/j', bytes: 10, error: 'disk full', troubleSince: 3 },
      events: { received: 3, duplicates: 1, fromSpool: 2, processed: 3, pending: 0 },
      notifications: { fired: 2, suppressed: 1, digests: 4 },
      channels: [{ name: 'desktop', delivered: 2, latencyP50Ms: 20, latencyP99Ms: 30, healthy: true }],
    });
    expect(percentile([], 50)).toBeUndefined();
  });
});

describe('daemon/requests', () => {
  function handler(over: { stopping?: boolean; trouble?: boolean } = {}) {
    const { store, written, commit } = memoryJournal();
    const received: string[] = [];
    const handle = requestHandler({
      stopping: () => over.stopping === true,
      journalTrouble: () => (over.trouble ? { error: 'no space', code: 'ENOSPC' } : undefined),
      receive: async (h) => (received.push(h.event.id), { duplicate: false }),
      stats: () => ({}) as never,
      shutdown: () => {},
      store,
      commit,
      wake: () => {},
      noise: createNoiseState,
      now: () => 9,
      pid: 123,
    });
    return { handle, store, written, received };
  }
  const eventRequest = { v: 1, type: 'event', event: event('r1'), results: [] } as const;

  it('answers ping and takes events in', async () => {
    const { handle, received } = handler();
    expect(await handle({ v: 1, type: 'ping' })).toEqual({ ok: true, pong: true, pid: 123 });
    expect(await handle(eventRequest as never)).toEqual({ ok: true, id: 'r1' });
    expect(received).toEqual(['r1']);
  });

  it('refuses events while stopping or while the journal cannot be written', async () => {
    expect(await handler({ stopping: true }).handle(eventRequest as never)).toMatchObject({
      ok: false,
      code: 'shutting_down',
    });
    expect(await handler({ trouble: true }).handle(eventRequest as never)).toMatchObject({
      ok: false,
      code: 'unavailable',
    });
  });

  it('retries dead deliveries and purges', async () => {
    const { handle, store, written } = handler();
    const d = {
      id: 'd1',
      channel: 'slack',
      createdAt: 1,
      state: 'pending',
      attempts: 0,
      nextAt: 1,
      notification: {
        title: 't',
        body: '',
        urgency: 'normal',
        rule: 'r',
        event: 'Stop',
        eventIds: ['x'],
        count: 1,
        at: 1,
        fields: [],
      },
    } as Delivery;
    store.apply({ t: 'add', d });
    store.apply({ t: 'dead', id: 'd1', at: 2, error: 'gone' } as JournalRecord);
    expect(await handle({ v: 1, type: 'outbox', action: 'list', state: 'dead' })).toMatchObject({
      items: [{ id: 'd1' }],
    });
    expect(await handle({ v: 1, type: 'outbox', action: 'retry', state: 'dead' })).toEqual({
      ok: true,
      affected: 1,
    });
    expect(written).toEqual([{ t: 'retry', id: 'd1', at: 9 }]);
  });
});

describe('daemon/lock-holder', () => {
  it('takes the lock once; a second holder is told who runs', async () => {
    const dir = tempDir();
    const files = { socket: join(dir, 'hookd.sock'), lock: join(dir, 'daemon.lock') };
    const ping = async () => ({ replied: false, running: false });
    const held = await holdDaemonLock(files, ping);
    await expect(holdDaemonLock(files, ping)).rejects.toBeInstanceOf(DaemonRunningError);
    held.release();
    (await holdDaemonLock(files, ping)).release();
  });

  it('a daemon answering on the socket runs, whatever the lock says', async () => {
    const dir = tempDir();
    const files = { socket: join(dir, 'hookd.sock'), lock: join(dir, 'daemon.lock') };
    writeFileSync(files.socket, '');
    await expect(
      holdDaemonLock(files, async () => ({ replied: true, running: true, pid: 4242 })),
    ).rejects.toMatchObject({
      pid: 4242,
    });
  });

  it('breaks a lock of a live pid that is old and silent (a reused pid)', async () => {
    const dir = tempDir();
    const files = { socket: join(dir, 'hookd.sock'), lock: join(dir, 'daemon.lock') };
    const ping = async () => ({ replied: false, running: false });
    await holdDaemonLock(files, ping); // held by this (live) process, never released
    const taken = await holdDaemonLock(files, ping, 0);
    taken.release();
  });
});

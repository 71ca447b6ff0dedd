import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Journal, JOURNAL_READ_CHUNK } from '../../../src/journal/journal.js';
import { DaemonStore, DEAD_MAX, type Delivery, type JournalRecord } from '../../../src/journal/store.js';
import { handoffOf, fixture, tempEnv } from './helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function delivery(id: string, channel = 'ops'): Delivery {
  const n = {
    title: id,
    body: '',
    urgency: 'normal' as const,
    rule: 'r',
    event: 'Stop',
    eventIds: [id],
    count: 1,
    at: 0,
    fields: [],
  };
  return { id, channel, notification: n, createdAt: 0, state: 'pending', attempts: 0, nextAt: 0 };
}

async function replay(file: string): Promise<{ store: DaemonStore; journal: Journal<JournalRecord> }> {
  const journal = new Journal<JournalRecord>(file, { fsync: true });
  const store = new DaemonStore(1000);
  for (const r of await journal.open()) store.apply(r);
  return { store, journal };
}

describe('journal and store', () => {
  it('survives a torn last line and keeps appending readable records after it', async () => {
    const { root, cleanup } = tempEnv();
    cleanups.push(cleanup);
    const file = join(root, 'j.jsonl');
    const h = handoffOf(fixture('16-Stop.json'));
    let { store, journal } = await replay(file);
    await journal.append([{ t: 'in', at: 1, h }]);
    await journal.close();
    appendFileSync(file, '{"t":"done","id":"'); // a crash in the middle of a write
    ({ store, journal } = await replay(file));
    expect([...store.pendingEvents.keys()]).toEqual([h.event.id]);
    await journal.append([{ t: 'done', id: h.event.id }]);
    await journal.close();
    ({ store, journal } = await replay(file));
    await journal.close();
    expect(store.pendingEvents.size).toBe(0);
    expect(store.seen.has(h.event.id)).toBe(true);
    expect(readFileSync(file, 'utf8').endsWith('\n')).toBe(true);
  });

  it('applies records idempotently: a repeated "in" or "add" changes nothing', () => {
    const store = new DaemonStore(1000);
    const h = handoffOf(fixture('16-Stop.json'));
    store.apply({ t: 'in', at: 1, h });
    store.apply({ t: 'done', id: h.event.id });
    store.apply({ t: 'in', at: 2, h });
    expect(store.pendingEvents.size).toBe(0);
    store.apply({ t: 'add', d: delivery('d1') });
    store.apply({ t: 'ok', id: 'd1', at: 5 });
    store.apply({ t: 'add', d: delivery('d1') });
    expect(store.head('ops')).toBeUndefined();
    expect(store.recentDelivered.map((d) => d.id)).toEqual(['d1']);
  });

  it('compaction keeps pending events, pending and dead deliveries, seen ids and threads, in order', async () => {
    const { root, cleanup } = tempEnv();
    cleanups.push(cleanup);
    const file = join(root, 'j.jsonl');
    const { store, journal } = await replay(file);
    const commit = async (records: JournalRecord[]) => {
      records.forEach((r) => store.apply(r));
      await journal.append(records);
    };
    const pending = handoffOf(fixture('04-Notification.json'));
    const done = handoffOf(fixture('16-Stop.json'));
    await commit([
      { t: 'in', at: 1, h: pending },
      { t: 'in', at: 2, h: done },
      { t: 'done', id: done.event.id },
    ]);
    await commit([
      { t: 'add', d: delivery('a') },
      { t: 'add', d: delivery('b') },
      { t: 'add', d: delivery('c') },
    ]);
    await commit([
      { t: 'ok', id: 'a', at: 3 },
      { t: 'dead', id: 'c', at: 4, error: 'gone' },
      { t: 'thread', k: 'ops\u0000s', ts: '1.2' },
    ]);
    await journal.rewrite(() => store.snapshot());
    await commit([{ t: 'add', d: delivery('d') }]);
    await journal.close();
    const again = await replay(file);
    await again.journal.close();
    expect([...again.store.pendingEvents.keys()]).toEqual([pending.event.id]);
    expect(again.store.seen.has(done.event.id)).toBe(true);
    expect(again.store.head('ops')!.id).toBe('b');
    expect([...again.store.deliveries.values()].map((d) => [d.id, d.state])).toEqual([
      ['b', 'pending'],
      ['c', 'dead'],
      ['d', 'pending'],
    ]);
    expect(again.store.deliveredIds.has('a')).toBe(true);
    expect(again.store.threads.get('ops\u0000s')).toBe('1.2');
  });
});

describe('bounded memory', () => {
  it('reads a journal larger than its read chunk whole: characters across chunks, bad lines, a torn tail', async () => {
    const { root, cleanup } = tempEnv();
    cleanups.push(cleanup);
    const file = join(root, 'j.jsonl');
    // Ids of 1 to 4-byte characters and odd lengths, so lines and characters straddle every chunk edge.
    const records: JournalRecord[] = Array.from({ length: 3 * 2600 }, (_, i) => ({
      t: 'done',
      id: `${i}-${'aé€😀'.repeat(40 + (i % 7))}`,
    }));
    const lines = records.map((r) => `${JSON.stringify(r)}\n`);
    const bad = 'not json, after the first chunk é€😀\n';
    lines.splice(4000, 0, bad);
    writeFileSync(file, `${lines.join('')}{"t":"done","id":"torn é`);
    expect(Buffer.byteLength(lines.join(''))).toBeGreaterThan(2 * JOURNAL_READ_CHUNK);
    const journal = new Journal<JournalRecord>(file, { fsync: false });
    const seen: JournalRecord[] = [];
    await journal.open({ each: (r) => seen.push(r) });
    await journal.close();
    expect(seen).toEqual(records);
    expect(readFileSync(journal.quarantineFile, 'utf8')).toBe(bad);
    const kept = records.map((r) => `${JSON.stringify(r)}\n`).join('');
    expect(readFileSync(file, 'utf8')).toBe(kept);
    expect(journal.size).toBe(Buffer.byteLength(kept));
  });

  it('cuts a torn tail of a journal larger than its read chunk at the last whole record', async () => {
    const { root, cleanup } = tempEnv();
    cleanups.push(cleanup);
    const file = join(root, 'j.jsonl');
    const whole = Array.from(
      { length: 9000 },
      (_, i) => `${JSON.stringify({ t: 'done', id: `${i}-€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€` })}\n`,
    ).join('');
    writeFileSync(file, `${whole}{"t":"done","id":"€`);
    const journal = new Journal<JournalRecord>(file, { fsync: false });
    expect(await journal.open()).toHaveLength(9000);
    await journal.close();
    expect(readFileSync(file, 'utf8')).toBe(whole);
    expect(journal.size).toBe(Buffer.byteLength(whole));
  });

  it('hands each record to `each` in order at open, keeps none, and still quarantines bad lines', async () => {
    const { root, cleanup } = tempEnv();
    cleanups.push(cleanup);
    const file = join(root, 'j.jsonl');
    const good: JournalRecord[] = [
      { t: 'done', id: 'a' },
      { t: 'done', id: 'b' },
      { t: 'done', id: 'c' },
    ];
    writeFileSync(
      file,
      `${JSON.stringify(good[0])}\nnot json\n${JSON.stringify(good[1])}\n\n42\n${JSON.stringify(good[2])}\n{"t":"do`,
    );
    const journal = new Journal<JournalRecord>(file, { fsync: false });
    const seen: JournalRecord[] = [];
    expect(await journal.open({ each: (r) => seen.push(r) })).toEqual([]);
    await journal.close();
    expect(seen).toEqual(good);
    expect(journal.quarantined).toBe(2);
    expect(readFileSync(journal.quarantineFile, 'utf8')).toBe('not json\n42\n');
    // The rewritten journal keeps exactly the valid lines, in order, without the torn tail.
    expect(readFileSync(file, 'utf8')).toBe(good.map((r) => `${JSON.stringify(r)}\n`).join(''));
  });

  it('keeps at most DEAD_MAX dead letters, dropping the oldest, also after a replay', () => {
    const store = new DaemonStore(1000);
    const total = DEAD_MAX + 50;
    for (let i = 0; i < total; i++) {
      store.apply({ t: 'add', d: delivery(`d${i}`) });
      store.apply({ t: 'dead', id: `d${i}`, at: i, error: 'no notify-send' });
    }
    expect(store.counts().dead).toBe(DEAD_MAX);
    expect(store.deliveries.has('d0')).toBe(false);
    expect(store.deliveries.has(`d${total - 1}`)).toBe(true);
    const replayed = new DaemonStore(1000);
    for (const record of store.snapshot()) replayed.apply(record);
    store.apply({ t: 'add', d: delivery('d0') }); // a late copy of a dropped one is not taken back
    expect(replayed.counts().dead).toBe(DEAD_MAX);
    expect(store.deliveries.has('d0')).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { BoundedIds } from '../../../src/journal/bounded-ids.js';
import {
  DaemonStore,
  DEAD_MAX,
  DEAD_MAX_CHARS,
  DELIVERED_IDS_MAX,
  ID_CHARS_AVG,
  RECENT_MAX,
  RECENT_MAX_CHARS,
  THREAD_KEY_MAX,
  deliveryChars,
  type Delivery,
  type JournalRecord,
} from '../../../src/journal/store.js';
import type { EventHandoff } from '../../../src/events/types.js';

/** The longest event id the socket protocol accepts. */
const longId = (i: number) => `${i}-`.padEnd(200, 'x');
const chars = (ids: Iterable<string>) => [...ids].reduce((n, id) => n + id.length, 0);

function delivery(id: string, body = ''): Delivery {
  return {
    id,
    channel: 'ops',
    notification: {
      title: id.slice(0, 200),
      body,
      urgency: 'normal',
      rule: 'r',
      event: 'Stop',
      eventIds: [id],
      count: 1,
      at: 0,
      fields: [{ label: 'last message', value: body }],
    },
    createdAt: 0,
    state: 'pending',
    attempts: 0,
    nextAt: 0,
  };
}

function handoff(id: string): EventHandoff {
  return {
    v: 1,
    type: 'event',
    event: { id, receivedAt: 0, agent: 'droid', name: 'Stop', sessionId: 's', cwd: '/p' },
    payload: {},
  } as unknown as EventHandoff;
}

describe('BoundedIds', () => {
  it('forgets the oldest past its count', () => {
    const ids = new BoundedIds(3, 1000);
    for (const id of ['a', 'b', 'c', 'd']) ids.add(id);
    expect([...ids]).toEqual(['b', 'c', 'd']);
    expect(ids.totalChars).toBe(3);
  });

  it('forgets the oldest past its characters, but keeps the newest id even when it alone is over', () => {
    const ids = new BoundedIds(100, 10);
    for (const id of ['aaaa', 'bbbb', 'cccc']) ids.add(id);
    expect([...ids]).toEqual(['bbbb', 'cccc']);
    ids.add('x'.repeat(20));
    expect([...ids]).toEqual(['x'.repeat(20)]);
  });

  it('counts characters through adds of a kept id, deletes and touches', () => {
    const ids = new BoundedIds(10, 100);
    ids.add('ab');
    ids.add('ab');
    ids.add('cde');
    expect(ids.totalChars).toBe(5);
    ids.touch('ab');
    expect([...ids]).toEqual(['cde', 'ab']);
    expect(ids.delete('cde')).toBe(true);
    expect(ids.delete('cde')).toBe(false);
    expect(ids.totalChars).toBe(2);
    expect(ids.oldest()).toBe('ab');
  });
});

describe('the daemon store stays bounded by count and by characters', () => {
  // Each row fills one structure with the largest items the daemon takes, far past its limits.
  const seenRow = {
    kept: (s: DaemonStore) => ({
      count: s.seen.size,
      chars: chars(s.seen),
      newestKept: s.seen.has(longId(2999)),
      oldestKept: s.seen.has(longId(0)),
    }),
    maxCount: 1000,
    maxChars: 1000 * ID_CHARS_AVG,
    total: 3000,
  };
  const rows: {
    name: string;
    fill: (store: DaemonStore, i: number) => void;
    kept: (store: DaemonStore) => { count: number; chars: number; newestKept: boolean; oldestKept: boolean };
    maxCount: number;
    maxChars: number;
    total: number;
  }[] = [
    {
      name: 'event ids seen (from "in")',
      fill: (s, i) => {
        s.apply({ t: 'in', at: i, h: handoff(longId(i)) });
        s.apply({ t: 'done', id: longId(i) });
      },
      ...seenRow,
    },
    {
      name: 'event ids seen (from a compacted "seen")',
      fill: (s, i) => s.apply({ t: 'seen', ids: [longId(i)] }),
      ...seenRow,
    },
    {
      name: 'delivered ids',
      fill: (s, i) => s.apply({ t: 'delivered', ids: [`${longId(i)}/0/ops`] }),
      kept: (s) => ({
        count: s.deliveredIds.size,
        chars: chars(s.deliveredIds),
        newestKept: s.deliveredIds.has(`${longId(DELIVERED_IDS_MAX + 99)}/0/ops`),
        oldestKept: s.deliveredIds.has(`${longId(0)}/0/ops`),
      }),
      maxCount: DELIVERED_IDS_MAX,
      maxChars: DELIVERED_IDS_MAX * ID_CHARS_AVG,
      total: DELIVERED_IDS_MAX + 100,
    },
    {
      name: 'dead letters',
      fill: (s, i) => {
        s.apply({ t: 'add', d: delivery(`d${i}`, 'b'.repeat(2000)) });
        s.apply({ t: 'dead', id: `d${i}`, at: i, error: 'no notify-send' });
      },
      kept: (s) => {
        const dead = [...s.deliveries.values()].filter((d) => d.state === 'dead');
        return {
          count: dead.length,
          chars: dead.reduce((n, d) => n + deliveryChars(d), 0),
          newestKept: s.deliveries.has(`d${DEAD_MAX + 99}`),
          oldestKept: s.deliveries.has('d0'),
        };
      },
      maxCount: DEAD_MAX,
      maxChars: DEAD_MAX_CHARS,
      total: DEAD_MAX + 100,
    },
    {
      name: 'recently delivered',
      fill: (s, i) => {
        s.apply({ t: 'add', d: delivery(`d${i}`, 'b'.repeat(2000)) });
        s.apply({ t: 'ok', id: `d${i}`, at: i });
      },
      kept: (s) => ({
        count: s.recentDelivered.length,
        chars: s.recentDelivered.reduce((n, d) => n + deliveryChars(d), 0),
        newestKept: s.recentDelivered.at(-1)?.id === `d${RECENT_MAX + 99}`,
        oldestKept: s.recentDelivered.some((d) => d.id === 'd0'),
      }),
      maxCount: RECENT_MAX,
      maxChars: RECENT_MAX_CHARS,
      total: RECENT_MAX + 100,
    },
    {
      name: 'recently cancelled',
      fill: (s, i) => {
        const d = { ...delivery(`d${i}`, 'b'.repeat(2000)), state: 'held' as const };
        s.apply({ t: 'add', d: { ...d, waiting: { session: 's', ask: { kind: 'other' } } } as Delivery });
        s.apply({ t: 'cancel', ids: [`d${i}`], at: i, by: 'UserPromptSubmit' });
      },
      kept: (s) => ({
        count: s.recentCancelled.length,
        chars: s.recentCancelled.reduce((n, d) => n + deliveryChars(d), 0),
        newestKept: s.recentCancelled.at(-1)?.id === `d${RECENT_MAX + 99}`,
        oldestKept: s.recentCancelled.some((d) => d.id === 'd0'),
      }),
      maxCount: RECENT_MAX,
      maxChars: RECENT_MAX_CHARS,
      total: RECENT_MAX + 100,
    },
  ];

  it.each(rows)('$name', ({ fill, kept, maxCount, maxChars, total }) => {
    const store = new DaemonStore(1000);
    for (let i = 0; i < total; i++) fill(store, i);
    const k = kept(store);
    expect(k.count).toBeGreaterThan(0);
    expect(k.count).toBeLessThanOrEqual(maxCount);
    expect(k.chars).toBeLessThanOrEqual(maxChars);
    expect(k.newestKept).toBe(true);
    expect(k.oldestKept).toBe(false);
  });

  it('a thread key or reference longer than the limit is not kept', () => {
    const store = new DaemonStore(1000);
    store.apply({ t: 'thread', k: 'k'.repeat(THREAD_KEY_MAX + 1), ts: '1.2' });
    store.apply({ t: 'thread', k: 'ok', ts: 't'.repeat(THREAD_KEY_MAX + 1) });
    store.apply({ t: 'thread', k: 'ops\u0000s1', ts: '1.2' });
    expect([...store.threads]).toEqual([['ops\u0000s1', '1.2']]);
  });

  it('pending events and pending or held deliveries are never dropped, however large', () => {
    const store = new DaemonStore(1000);
    const records: JournalRecord[] = [];
    for (let i = 0; i < 3000; i++) records.push({ t: 'in', at: i, h: handoff(longId(i)) });
    for (let i = 0; i < DEAD_MAX + 500; i++) {
      records.push({ t: 'add', d: delivery(`p${i}`, 'b'.repeat(2000)) });
      records.push({ t: 'add', d: { ...delivery(`h${i}`, 'b'.repeat(2000)), state: 'held', heldUntil: 9 } });
    }
    // Dead letters past their limits push out only other dead letters.
    for (let i = 0; i < DEAD_MAX + 100; i++) {
      records.push({ t: 'add', d: delivery(`d${i}`, 'b'.repeat(2000)) });
      records.push({ t: 'dead', id: `d${i}`, at: i, error: 'gone' });
    }
    for (const r of records) store.apply(r);
    expect(store.pendingEvents.size).toBe(3000);
    const counts = store.counts();
    expect(counts.pending).toBe(DEAD_MAX + 500);
    expect(counts.held).toBe(DEAD_MAX + 500);
    expect(store.head('ops')?.id).toBe('p0');
    // A snapshot (journal compaction) keeps every one of them.
    const copy = new DaemonStore(1000);
    for (const r of store.snapshot()) copy.apply(r);
    expect(copy.pendingEvents.size).toBe(3000);
    expect(copy.counts()).toMatchObject({ pending: DEAD_MAX + 500, held: DEAD_MAX + 500 });
  });

  it('a dead letter retried, purged or dying again frees its share of the dead-letter limit', () => {
    const store = new DaemonStore(1000);
    const big = 'b'.repeat(2000);
    const id = (i: number) => `d${String(i).padStart(4, '0')}`;
    const perLetter = deliveryChars({ ...delivery(id(0), big), lastError: 'gone' });
    const fit = Math.floor(DEAD_MAX_CHARS / perLetter);
    for (let i = 0; i < fit; i++) {
      store.apply({ t: 'add', d: delivery(id(i), big) });
      store.apply({ t: 'dead', id: id(i), at: i, error: 'gone' });
    }
    // Retried and dead again, purged, and a new one: nothing old is pushed out by the churn.
    store.apply({ t: 'retry', id: id(1), at: 1 });
    store.apply({ t: 'dead', id: id(1), at: 2, error: 'gone' });
    store.apply({ t: 'dead', id: id(2), at: 2, error: 'gone' });
    store.apply({ t: 'purge', id: id(3) });
    store.apply({ t: 'add', d: delivery('dnew0', big) });
    store.apply({ t: 'dead', id: 'dnew0', at: 3, error: 'gone' });
    expect(store.deliveries.has(id(0))).toBe(true);
    expect(store.counts().dead).toBe(fit);
  });
});

describe('the next held delivery', () => {
  it('is the earliest held one, whatever order they came in, and none once released', () => {
    const store = new DaemonStore(1000);
    expect(store.nextHeldAt()).toBeUndefined();
    for (const [id, until] of [
      ['a', 300],
      ['b', 100],
      ['c', 200],
    ] as const)
      store.apply({ t: 'add', d: { ...delivery(id), state: 'held', heldUntil: until } });
    store.apply({ t: 'add', d: delivery('pending') });
    expect(store.nextHeldAt()).toBe(100);
    store.apply({ t: 'unhold', ids: ['b'], at: 100 });
    expect(store.nextHeldAt()).toBe(200);
  });
});

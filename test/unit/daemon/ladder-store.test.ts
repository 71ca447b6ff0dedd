import { describe, expect, it } from 'vitest';
import { DaemonStore, LADDERS_MAX, type JournalRecord, type Ladder } from '../../../src/journal/store.js';
import { parseJournalRecord } from '../../../src/journal/journal-schema.js';
import { ackPlan } from '../../../src/journal/escalator.js';

const ladder = (id: string, session = 's1', startedAt = 0): Ladder => ({
  id,
  session,
  rule: 'needs you',
  startedAt,
  notification: {
    title: `${session} needs you`,
    body: '',
    urgency: 'normal',
    rule: 'needs you',
    event: 'Notification',
    eventIds: [id],
    count: 1,
    at: startedAt,
    fields: [],
  },
  steps: [{ afterMs: 300_000, channels: ['slack'] }],
  progress: [0],
  breakthrough: false,
  ask: { kind: 'other' },
});

describe('ladders in the daemon store', () => {
  it('records apply once: a replayed ladder or step changes nothing, a stopped ladder does not come back', () => {
    const store = new DaemonStore(1000);
    const records: JournalRecord[] = [
      { t: 'ladder', l: ladder('e1/0') },
      { t: 'step', id: 'e1/0', step: 0, sent: 1, at: 1 },
      { t: 'step', id: 'e1/0', step: 0, sent: 0, at: 2 },
      { t: 'step', id: 'e1/0', step: 7, sent: 1, at: 2 },
    ];
    for (const r of [...records, ...records]) store.apply(r);
    expect(store.ladders.get('e1/0')?.progress).toEqual([1]);
    store.apply({ t: 'halt', ids: ['e1/0'], at: 3, end: 'acked', by: 'hookd ack' });
    store.apply({ t: 'ladder', l: ladder('e1/0') });
    expect(store.ladders.size).toBe(0);
    expect(store.recentLadders).toMatchObject([
      { id: 'e1/0', end: 'acked', endedBy: 'hookd ack', progress: [1] },
    ]);
  });

  it('a snapshot rebuilds the same ladders (running and stopped)', () => {
    const store = new DaemonStore(1000);
    store.apply({ t: 'ladder', l: ladder('a/0') });
    store.apply({ t: 'ladder', l: ladder('b/0') });
    store.apply({ t: 'halt', ids: ['a/0'], at: 5, end: 'answered', by: 'PostToolUse x' });
    const copy = new DaemonStore(1000);
    for (const r of store.snapshot()) copy.apply(parseJournalRecord(JSON.parse(JSON.stringify(r)))!);
    expect([...copy.ladders.keys()]).toEqual(['b/0']);
    expect(copy.recentLadders.map((l) => [l.id, l.end])).toEqual([['a/0', 'answered']]);
  });

  it('keeps at most LADDERS_MAX running: the oldest stops (limit)', () => {
    const store = new DaemonStore(1000);
    for (let i = 0; i <= LADDERS_MAX; i++) store.apply({ t: 'ladder', l: ladder(`e${i}/0`) });
    expect(store.ladders.size).toBe(LADDERS_MAX);
    expect(store.ladders.has('e0/0')).toBe(false);
    expect(store.recentLadders.at(-1)).toMatchObject({ id: 'e0/0', end: 'limit' });
  });

  it('a journal line that is not a valid ladder is refused (quarantined by the journal)', () => {
    expect(parseJournalRecord({ t: 'ladder', l: { ...ladder('x/0'), steps: 'soon' } })).toBeUndefined();
    expect(parseJournalRecord({ t: 'ladder', l: { ...ladder('x/0'), progress: [-1] } })).toBeUndefined();
    expect(parseJournalRecord({ t: 'halt', ids: ['x'], at: 1, end: 'whenever', by: '' })).toBeUndefined();
    expect(parseJournalRecord({ t: 'ladder', l: ladder('x/0') })).toBeDefined();
  });
});

describe('hookd ack (ackPlan)', () => {
  const store = () => {
    const s = new DaemonStore(1000);
    s.apply({ t: 'ladder', l: ladder('e1/0', 'aaaa-1', 1000) });
    s.apply({ t: 'ladder', l: ladder('e2/0', 'aaaa-2', 2000) });
    s.apply({ t: 'ladder', l: ladder('e3/0', 'bbbb-3', 500) });
    return s;
  };

  it('without a session: the most recent waiting one; the rest are still waiting', () => {
    const plan = ackPlan(store(), {}, 9000);
    expect(plan.acked.map((s) => s.session)).toEqual(['aaaa-2']);
    expect(plan.stillWaiting.map((s) => s.session)).toEqual(['aaaa-1', 'bbbb-3']);
    expect(plan.records).toEqual([{ t: 'halt', ids: ['e2/0'], at: 9000, end: 'acked', by: 'hookd ack' }]);
  });

  it('a unique prefix of the id; an ambiguous or unknown one is a problem, changing nothing', () => {
    expect(ackPlan(store(), { session: 'bbbb' }, 1).acked.map((s) => s.session)).toEqual(['bbbb-3']);
    expect(ackPlan(store(), { session: 'aaaa' }, 1)).toMatchObject({
      records: [],
      problem: expect.stringContaining('matches 2'),
    });
    expect(ackPlan(store(), { session: 'zz' }, 1)).toMatchObject({
      records: [],
      problem: expect.stringContaining('nothing waits'),
    });
  });

  it('--all: every waiting session', () => {
    expect(ackPlan(store(), { all: true }, 1).acked).toHaveLength(3);
  });
});

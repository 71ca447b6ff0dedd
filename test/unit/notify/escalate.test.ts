import { describe, expect, it } from 'vitest';
import { ladderTick } from '../../../src/notify/escalate.js';
import type { Ladder } from '../../../src/notify/records.js';

const START = 1_795_444_900_000;
const MIN = 60_000;

function ladder(progress: number[], breakthrough = false): Ladder {
  return {
    id: 'e1/0',
    session: 's1',
    rule: 'needs you',
    startedAt: START,
    notification: {
      title: 'demo: needs your permission',
      body: '',
      urgency: 'normal',
      rule: 'needs you',
      event: 'Notification',
      eventIds: ['e1'],
      count: 1,
      at: START,
      fields: [],
    },
    steps: [
      { afterMs: 5 * MIN, channels: ['phone'], repeatMs: 10 * MIN, maxRepeats: 2 },
      { afterMs: 30 * MIN, channels: ['phone', 'email'] },
    ],
    progress,
    breakthrough,
    ask: { kind: 'permission', tool: 'Write' },
  };
}

/** `<delivery id> (<skipped> skipped)` per sending, then when the next one is due. */
function described(l: Ladder, at: number, quiet = { quiet: false }): string {
  const t = ladderTick(l, quiet, at);
  const sent = t.sent.flatMap((s) =>
    s.deliveries.map((d) => `${d.id}${s.due.skipped > 0 ? ` (${s.due.skipped} skipped)` : ''}`),
  );
  const next = t.next === undefined ? 'done' : `next +${(t.next - START) / MIN}m`;
  return [...(t.heldUntil ? [`held until +${(t.heldUntil - START) / MIN}m`] : []), ...sent, next].join(', ');
}

describe('ladderTick: what a running ladder sends at one moment', () => {
  it.each([
    ['before its first step', [0, 0], 4 * MIN, 'next +5m'],
    ['its first step falls due', [0, 0], 5 * MIN, 'e1/0/esc0.0/phone, next +15m'],
    ['a reminder', [1, 0], 15 * MIN, 'e1/0/esc0.1/phone, next +25m'],
    [
      'after an hour down: the latest sending of each step, the missed ones skipped',
      [0, 0],
      60 * MIN,
      'e1/0/esc0.2/phone (2 skipped), e1/0/esc1.0/phone, e1/0/esc1.0/email, done',
    ],
    ['every step sent', [3, 1], 90 * MIN, 'done'],
  ])('%s', (_name, progress, at, expected) => {
    expect(described(ladder(progress), START + at)).toBe(expected);
  });

  it('quiet hours hold its due steps unless it breaks through; a sending is marked resolvable', () => {
    const quiet = { quiet: true, endsAt: START + 120 * MIN };
    expect(described(ladder([0, 0]), START + 5 * MIN, quiet)).toBe('held until +120m, next +120m');
    expect(described(ladder([0, 0], true), START + 5 * MIN, quiet)).toBe('e1/0/esc0.0/phone, next +15m');
    const [sent] = ladderTick(ladder([0, 0]), { quiet: false }, START + 5 * MIN).sent;
    expect(sent!.deliveries[0]).toMatchObject({
      state: 'pending',
      escalation: { ladder: 'e1/0', step: 0, repeat: 0 },
      waiting: { session: 's1', ask: { kind: 'permission', tool: 'Write' } },
    });
  });
});

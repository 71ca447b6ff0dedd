import { describe, expect, it } from 'vitest';
import { notifySettings } from '../../../src/config/schemas/notify-schema.js';
import { releaseHeld } from '../../../src/notify/digest.js';
import type { Delivery } from '../../../src/notify/records.js';
import { heldDelivery } from '../../helpers/deliveries.js';

const AT = 1_795_444_900_000;

const held = (id: string, channel: string, waiting = false): Delivery =>
  heldDelivery({ id, channel, at: AT, ...(waiting ? { waiting: 's' } : {}) });

/** `unhold a,b` or `digest desktop (a,b)` per release, in order. */
function described(due: Delivery[], quietHours = notifySettings({}).quietHours): string[] {
  return releaseHeld(due, quietHours, AT).releases.map((r) =>
    r.t === 'unhold' ? `unhold ${r.ids.join(',')}` : `digest ${r.delivery.channel} (${r.ids.join(',')})`,
  );
}

describe('releaseHeld: what becomes of held notifications whose time came', () => {
  it.each([
    ['one held notification goes as it is', [held('a', 'desktop')], ['unhold a']],
    [
      'several of one channel: one digest stands for them',
      [held('a', 'desktop'), held('b', 'desktop'), held('c', 'slack')],
      ['digest desktop (a,b)', 'unhold c'],
    ],
    [
      'an unanswered "waiting" one goes on its own, never in a digest',
      [held('w', 'desktop', true), held('a', 'desktop')],
      ['unhold w', 'unhold a'],
    ],
    ['nothing due: nothing', [], []],
  ])('%s', (_name, due, expected) => {
    expect(described(due)).toEqual(expected);
  });

  it('sends each as it is when digests are off, and nothing while quiet hours last', () => {
    const due = [held('a', 'desktop'), held('b', 'desktop')];
    const noDigest = notifySettings({
      // One minute a night: 14:41 UTC is never a local 23:59.
      quietHours: { windows: [{ start: '23:59', end: '00:00' }], digest: false },
    }).quietHours;
    expect(described(due, noDigest)).toEqual(['unhold a,b']);
    const allDay = notifySettings({ quietHours: { windows: [{ start: '00:00', end: '23:59' }] } }).quietHours;
    expect(releaseHeld(due, allDay, AT)).toEqual({ releases: [], channels: [] });
  });
});

import { describe, expect, it } from 'vitest';
import { fnv1a } from '../../../src/util/fnv1a.js';
import { newEventId } from '../../../src/util/event-id.js';
import { monotonicMs } from '../../../src/util/monotonic-clock.js';
import { realTimers } from '../../../src/util/timers.js';

describe('fnv1a', () => {
  it.each([
    ['', '811c9dc5'],
    ['a', 'e40c292c'],
    ['foobar', 'bf9cf968'],
  ])('hashes %j to the published FNV-1a 32-bit value %s', (text, hex) => {
    expect(fnv1a(text)).toBe(hex);
  });
});

describe('newEventId', () => {
  it('is shaped as an RFC 4122 version-4 id and differs on every call', () => {
    const ids = Array.from({ length: 1000 }, () => newEventId());
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('monotonicMs', () => {
  it('never goes back', () => {
    let last = monotonicMs();
    for (let i = 0; i < 1000; i++) {
      const now = monotonicMs();
      expect(now).toBeGreaterThanOrEqual(last);
      last = now;
    }
  });
});

describe('realTimers', () => {
  it('runs a wait longer than setTimeout takes at its longest, not at once, and never holds the process', async () => {
    let ran = false;
    const handle = realTimers.set(() => (ran = true), 2 ** 33) as NodeJS.Timeout;
    try {
      expect(handle.hasRef()).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(ran).toBe(false);
    } finally {
      realTimers.clear(handle);
    }
  });
});

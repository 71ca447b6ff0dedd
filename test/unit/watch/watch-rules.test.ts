import { describe, expect, it } from 'vitest';
import { creditRange, crossedLevel, readinessScore } from '../../../src/watch/watchers.js';
import { afterFailure, backoffDelay, capRaises, watchEventId } from '../../../src/watch/runner.js';
import { ForbiddenError, RateLimitError, ServerError } from '../../../src/platform-api/errors.js';
import { watchSettings } from '../../../src/config/schemas/watch-schema.js';
import type { WatchRaise } from '../../../src/watch/types.js';

const http = { method: 'GET', path: '/x', status: 429 };

describe('the watchers’ rules', () => {
  it('crossedLevel: the highest threshold reached', () => {
    expect(crossedLevel(74.9, [75, 90, 100])).toBe(0);
    expect(crossedLevel(92, [100, 75, 90])).toBe(90);
    expect(crossedLevel(250, [75, 90, 100])).toBe(100);
  });

  it('creditRange: the month of yesterday (UTC), never before the earliest analytics day', () => {
    expect(creditRange(Date.UTC(2026, 10, 20, 3))).toEqual({
      month: '2026-11',
      startDate: '2026-11-01',
      endDate: '2026-11-19',
    });
    // On the 1st, yesterday is the last day of the month before.
    expect(creditRange(Date.UTC(2026, 11, 1, 0, 30))).toMatchObject({
      month: '2026-11',
      endDate: '2026-11-30',
    });
    expect(creditRange(Date.UTC(2026, 0, 20))).toMatchObject({
      startDate: '2026-01-14',
      endDate: '2026-01-19',
    });
    expect(creditRange(Date.UTC(2026, 0, 10))).toBeUndefined();
  });

  it('readinessScore: criteria passed over evaluated', () => {
    expect(readinessScore({ a: { numerator: 1, denominator: 2 }, b: { numerator: 3, denominator: 3 } })).toBe(
      80,
    );
    expect(readinessScore({})).toBe(0);
  });

  it('backs off doubling from a minute, up to an hour or the interval', () => {
    expect([1, 2, 3, 7, 50].map((n) => backoffDelay(n, 300_000))).toEqual([
      60_000, 120_000, 240_000, 3_600_000, 3_600_000,
    ]);
    expect(backoffDelay(50, 7_200_000)).toBe(7_200_000);
  });

  it('waits out a 429 by its Retry-After (bounded), a 403 for hours, other errors by the backoff', () => {
    expect(afterFailure(new RateLimitError({ ...http, retryAfterMs: 90_000 }), 1, 300_000)).toEqual({
      status: 'rate-limited',
      delayMs: 90_000,
    });
    expect(afterFailure(new RateLimitError({ ...http, retryAfterMs: 1e12 }), 1, 300_000).delayMs).toBe(
      86_400_000,
    );
    expect(afterFailure(new RateLimitError({ ...http, retryAfterMs: 0 }), 1, 300_000).delayMs).toBe(1000);
    expect(afterFailure(new ForbiddenError({ ...http, status: 403 }), 1, 300_000)).toMatchObject({
      status: 'forbidden',
      delayMs: 21_600_000,
    });
    expect(afterFailure(new ServerError({ ...http, status: 503 }), 2, 300_000)).toEqual({
      status: 'error',
      delayMs: 120_000,
    });
  });

  it('folds more than 20 raises of one poll into a summary; ids depend only on the change', () => {
    const raise = (i: number): WatchRaise => ({
      watcher: 'members',
      kind: 'member-joined',
      key: `members/joined/u${i}@1`,
      title: `u${i}`,
      message: '',
      details: {},
    });
    const capped = capRaises(
      Array.from({ length: 25 }, (_, i) => raise(i)),
      1,
    );
    expect(capped).toHaveLength(20);
    expect(capped[19]).toMatchObject({ kind: 'watch-summary', title: '6 more members change(s)' });
    expect(watchEventId(raise(1))).toBe(watchEventId(raise(1)));
    expect(watchEventId(raise(1))).not.toBe(watchEventId(raise(2)));
    expect(watchEventId(raise(1))).toMatch(/^watch-[0-9a-f]{40}$/);
  });

  it('settings: every watcher off by default; an interval under a minute is refused', () => {
    const off = watchSettings(undefined);
    expect([off.credits.enabled, off.members.enabled, off.credits.thresholds]).toEqual([
      false,
      false,
      [75, 90, 100],
    ]);
    expect(watchSettings({ computers: { enabled: true, interval: '2m' } }).computers.interval).toBe(120_000);
    expect(() => watchSettings({ computers: { interval: '30s' } })).toThrow(/at least 60s/);
  });
});

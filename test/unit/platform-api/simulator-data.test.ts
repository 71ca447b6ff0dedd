import { describe, expect, it } from 'vitest';
import { AnalyticsData } from '../../../src/platform-api/simulator/analytics-data.js';
import { createState } from '../../../src/platform-api/simulator/seed.js';
import { apportion } from '../../../src/platform-api/simulator/random.js';
import { daysBetween } from '../../../src/platform-api/dates.js';

const START = Date.parse('2026-11-20T12:00:00Z');

describe('simulator seed', () => {
  it('is deterministic per seed and differs across seeds', () => {
    const a = createState('s1', START, 1000);
    const b = createState('s1', START, 1000);
    const c = createState('s2', START, 1000);
    expect(JSON.stringify({ ...a, userByKey: [...a.userByKey], sessions: [...a.sessions] })).toBe(
      JSON.stringify({ ...b, userByKey: [...b.userByKey], sessions: [...b.sessions] }),
    );
    expect(a.keys.owner).not.toBe(c.keys.owner);
    expect(new AnalyticsData('s1', a.users).day('2026-11-01')).toEqual(
      new AnalyticsData('s1', b.users).day('2026-11-01'),
    );
  });

  it('has an Owner, Managers and Members, each role with a key', () => {
    const state = createState('s1', START, 1000);
    expect(new Set(state.users.map((u) => u.role))).toEqual(new Set(['Owner', 'Manager', 'Member']));
    expect([...state.userByKey.values()].map((u) => u.role).sort()).toEqual(['Manager', 'Member', 'Owner']);
  });

  it('produces no analytics before the earliest day', () => {
    const state = createState('s1', START, 1000);
    expect(new AnalyticsData('s1', state.users).day('2026-01-13').users).toEqual([]);
  });

  it('keeps the tool-name artifact rate tiny across the whole history', () => {
    const state = createState('s1', START, 1000);
    const data = new AnalyticsData('s1', state.users);
    let entries = 0;
    let artifacts = 0;
    for (const day of daysBetween('2026-01-14', '2026-11-19')) {
      for (const t of data.day(day).tools.by_tool) {
        entries++;
        if (!/^[A-Za-z]+$/.test(t.tool)) artifacts++;
      }
    }
    expect(artifacts).toBeGreaterThan(0);
    expect(artifacts / entries).toBeLessThan(0.002);
  });

  it('apportion keeps the total', () => {
    expect(apportion(10, [1, 1, 1])).toEqual([4, 3, 3]);
    expect(apportion(0, [1, 2])).toEqual([0, 0]);
  });
});

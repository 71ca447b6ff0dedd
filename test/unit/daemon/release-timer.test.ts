import { describe, expect, it } from 'vitest';
import { RELEASE_TIMES_MAX, ReleaseTimer } from '../../../src/journal/release-timer.js';

/** A clock and timers the test moves by hand. */
function fakeTime() {
  let now = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  let next = 1;
  return {
    now: () => now,
    timers,
    setTimer: (fn: () => void, ms: number) => {
      const id = next++;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimer: (id: unknown) => void timers.delete(id as number),
    /** Moves the clock to `to`, firing the timers due on the way, and lets their releases finish. */
    async advance(to: number) {
      for (;;) {
        const due = [...timers].filter(([, t]) => t.at <= to).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
        for (let i = 0; i < 5; i++) await Promise.resolve();
      }
      now = to;
    },
  };
}

/** A release timer on fake time that counts its releases. */
function countingTimer(time: ReturnType<typeof fakeTime>, nextDue: () => number | undefined) {
  const counted = { releases: 0 };
  const timer = new ReleaseTimer({
    now: time.now,
    setTimer: time.setTimer,
    clearTimer: time.clearTimer,
    release: () => (counted.releases++, Promise.resolve()),
    nextDue,
  });
  return { timer, counted };
}

describe('the release timer of held notifications', () => {
  it('keeps one timer however many are held, and releases each on time', async () => {
    const time = fakeTime();
    // The held notifications, by when they are due; a release takes those due now.
    const held = new Set<number>();
    const released: [number, number[]][] = [];
    const timer = new ReleaseTimer({
      now: time.now,
      setTimer: time.setTimer,
      clearTimer: time.clearTimer,
      release: () => {
        const due = [...held].filter((at) => at <= time.now()).sort((a, b) => a - b);
        for (const at of due) held.delete(at);
        if (due.length > 0) released.push([time.now(), due]);
        return Promise.resolve();
      },
      nextDue: () => (held.size > 0 ? Math.min(...held) : undefined),
    });
    for (let i = 1000; i >= 1; i--) {
      held.add(i * 10);
      timer.at(i * 10);
      expect(time.timers.size).toBe(1);
    }
    await time.advance(25);
    expect(released).toEqual([
      [10, [10]],
      [20, [20]],
    ]);
    expect(time.timers.size).toBe(1);
    expect(timer.waitingFor).toBe(30);
    await time.advance(10_000);
    expect(released).toHaveLength(1000);
    expect(released.every(([at, due]) => due.length === 1 && due[0] === at)).toBe(true);
    expect(time.timers.size).toBe(0);
  });

  it('leaves a notification still held after its time (quiet hours) to the housekeeping, not a busy loop', async () => {
    const time = fakeTime();
    const { timer, counted } = countingTimer(time, () => 5);
    timer.at(5);
    await time.advance(100);
    expect(counted.releases).toBe(1);
    expect(time.timers.size).toBe(0);
  });

  it('stops at close', async () => {
    const time = fakeTime();
    const { timer, counted } = countingTimer(time, () => undefined);
    timer.at(50);
    timer.close();
    timer.at(10);
    await time.advance(100);
    expect(counted.releases).toBe(0);
    expect(time.timers.size).toBe(0);
  });
});

describe('the release times it remembers', () => {
  it('releases each time asked, even for notifications the store does not hold yet', async () => {
    const time = fakeTime();
    const at: number[] = [];
    const timer = new ReleaseTimer({
      now: time.now,
      setTimer: time.setTimer,
      clearTimer: time.clearTimer,
      release: () => (at.push(time.now()), Promise.resolve()),
      nextDue: () => undefined,
    });
    timer.at(30);
    timer.at(10);
    timer.at(20);
    timer.at(20);
    expect(timer.queued).toBe(3);
    await time.advance(100);
    expect(at).toEqual([10, 20, 30]);
    expect(time.timers.size).toBe(0);
  });

  it('are bounded: past the limit the latest are left to the housekeeping', () => {
    const time = fakeTime();
    const { timer } = countingTimer(time, () => undefined);
    for (let i = RELEASE_TIMES_MAX * 2; i >= 1; i--) timer.at(i);
    expect(timer.queued).toBe(RELEASE_TIMES_MAX);
    expect(timer.waitingFor).toBe(1);
    expect(time.timers.size).toBe(1);
  });
});

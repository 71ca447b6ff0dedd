import type { Timers } from '../../src/util/timers.js';

/** One timer set and not yet run or cleared: its function, the wait asked for, and when it is due. */
export interface ManualTimer {
  fn: () => void;
  ms: number;
  at: number;
}

/**
 * Timers the test runs: nothing fires until the test moves the clock (`advance`) or fires one by its
 * handle (`fire`). The clock may be shared with the code under test (its `now`).
 */
export class ManualTimers implements Timers {
  /** The timers set and not yet run or cleared, by handle, in the order they were set. */
  readonly pending = new Map<number, ManualTimer>();
  private next = 1;

  constructor(private readonly clock: { now: number } = { now: 0 }) {}

  set(fn: () => void, ms: number): number {
    const id = this.next++;
    this.pending.set(id, { fn, ms, at: this.clock.now + ms });
    return id;
  }

  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** When the earliest timer is due, or undefined when none is set. */
  earliest(): number | undefined {
    const times = [...this.pending.values()].map((t) => t.at);
    return times.length ? Math.min(...times) : undefined;
  }

  /** Moves the clock by `ms` and runs the timers now due; returns how many ran. */
  advance(ms: number): number {
    this.clock.now += ms;
    let ran = 0;
    for (const [id, timer] of [...this.pending]) {
      if (timer.at > this.clock.now) continue;
      this.pending.delete(id);
      ran++;
      timer.fn();
    }
    return ran;
  }

  /** Runs the timer `id` now, whenever it is due; returns the wait it was set for. */
  fire(id: number): number {
    const timer = this.pending.get(id);
    if (!timer) throw new Error(`no timer ${id} is pending`);
    this.pending.delete(id);
    timer.fn();
    return timer.ms;
  }
}

/** What the release timer needs: the clock, the release, the next time something held is due. */
export interface ReleaseTimerOptions {
  now: () => number;
  /** Releases what is due (held "waiting" notifications, a quiet window's digest). Never rejects. */
  release: () => Promise<void>;
  /** When the earliest notification still held is due, if any. */
  nextDue: () => number | undefined;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

/**
 * Release times remembered at once. Past it the latest are dropped: those notifications go out at the
 * daemon's next housekeeping (every few seconds) instead of to the millisecond.
 */
export const RELEASE_TIMES_MAX = 1024;

/**
 * The one timer that releases held notifications on time. It keeps the times asked for (at most
 * RELEASE_TIMES_MAX numbers, in order) and waits for the earliest only; after each release it also asks
 * the store for the next notification still held (one held before a restart). So a burst of held
 * notifications costs one timer and a few bytes each, not a timer each. Anything it misses (a release
 * that found quiet hours) the daemon's housekeeping releases a few seconds later.
 */
export class ReleaseTimer {
  private timer: unknown;
  private dueAt: number | undefined;
  /** The release times asked for, earliest first, each once. */
  private readonly times: number[] = [];
  private closed = false;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (timer: unknown) => void;

  constructor(private readonly o: ReleaseTimerOptions) {
    this.setTimer = o.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = o.clearTimer ?? ((timer) => clearTimeout(timer as NodeJS.Timeout));
  }

  /** Asks for a release at `until`. */
  at(until: number): void {
    if (this.closed) return;
    this.remember(until);
    this.arm();
  }

  /** When the timer fires next, if it waits. */
  get waitingFor(): number | undefined {
    return this.dueAt;
  }

  /** How many release times are remembered. */
  get queued(): number {
    return this.times.length;
  }

  private remember(until: number): void {
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.times[mid]! < until) lo = mid + 1;
      else hi = mid;
    }
    if (this.times[lo] === until) return;
    this.times.splice(lo, 0, until);
    if (this.times.length > RELEASE_TIMES_MAX) this.times.pop();
  }

  /** Waits for the earliest time remembered (or for none). */
  private arm(): void {
    const first = this.times[0];
    if (this.dueAt === first) return;
    if (this.dueAt !== undefined) this.clearTimer(this.timer);
    this.dueAt = first;
    this.timer = undefined;
    if (first !== undefined)
      this.timer = this.setTimer(() => void this.fire(), Math.max(0, first - this.o.now()));
  }

  private async fire(): Promise<void> {
    this.dueAt = undefined;
    this.timer = undefined;
    const now = this.o.now();
    while (this.times.length > 0 && this.times[0]! <= now) this.times.shift();
    await this.o.release();
    if (this.closed) return;
    const next = this.o.nextDue();
    // One due already and still held (quiet hours) is the housekeeping's, not a busy loop's.
    if (next !== undefined && next > this.o.now()) this.remember(next);
    this.arm();
  }

  close(): void {
    this.closed = true;
    if (this.dueAt !== undefined) this.clearTimer(this.timer);
    this.dueAt = undefined;
    this.times.length = 0;
  }
}

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
 * The one timer that releases held notifications on time. However many are held, it waits for the
 * earliest only; after each release it asks for the next one still held and waits for that. So a burst
 * of held notifications costs one timer, not one each. Anything it misses (a release that found quiet
 * hours, a notification held in between) the daemon's housekeeping releases a few seconds later.
 */
export class ReleaseTimer {
  private timer: unknown;
  private dueAt: number | undefined;
  private closed = false;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (timer: unknown) => void;

  constructor(private readonly o: ReleaseTimerOptions) {
    this.setTimer = o.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = o.clearTimer ?? ((timer) => clearTimeout(timer as NodeJS.Timeout));
  }

  /** Asks for a release at `until`: re-arms only when it is earlier than the time already waited for. */
  at(until: number): void {
    if (this.closed || (this.dueAt !== undefined && this.dueAt <= until)) return;
    if (this.dueAt !== undefined) this.clearTimer(this.timer);
    this.dueAt = until;
    this.timer = this.setTimer(() => void this.fire(), Math.max(0, until - this.o.now()));
  }

  /** Whether a release is waited for, and when. */
  get waitingFor(): number | undefined {
    return this.dueAt;
  }

  private async fire(): Promise<void> {
    this.dueAt = undefined;
    this.timer = undefined;
    await this.o.release();
    const next = this.o.nextDue();
    // One due already and still held (quiet hours) is the housekeeping's, not a busy loop's.
    if (next !== undefined && next > this.o.now()) this.at(next);
  }

  close(): void {
    this.closed = true;
    if (this.dueAt !== undefined) this.clearTimer(this.timer);
    this.dueAt = undefined;
  }
}

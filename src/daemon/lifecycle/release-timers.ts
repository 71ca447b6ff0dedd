/**
 * The timers that release held notifications when their time comes (delay-then-cancel, quiet hours:
 * docs/sessions.md). One timer per hold; `clear()` stops them all, and none is set after it.
 */
export class ReleaseTimers {
  private readonly timers = new Set<NodeJS.Timeout>();
  private cleared = false;

  constructor(
    private readonly now: () => number,
    private readonly release: () => void,
  ) {}

  /** Releases at `until` (at once when it has passed). */
  at(until: number): void {
    if (this.cleared) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        this.release();
      },
      Math.max(0, until - this.now()),
    );
    this.timers.add(timer);
  }

  /** How many releases wait. */
  get size(): number {
    return this.timers.size;
  }

  clear(): void {
    this.cleared = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

// Import-free: every layer may use it.

/** Timers, injected where a test must decide when a wait ends (test/helpers/manual-timers.ts). */
export interface Timers {
  /** Runs `fn` once after `ms`; returns the handle `clear` takes. */
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/** The longest wait setTimeout keeps (about 24.8 days); a longer one would run at once. */
const LONGEST_MS = 2 ** 31 - 1;

/** setTimeout that does not keep the process alive; a longer wait than it takes runs at its longest. */
export const realTimers: Timers = {
  set: (fn, ms) => {
    const timer = setTimeout(fn, Math.min(ms, LONGEST_MS));
    timer.unref();
    return timer;
  },
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

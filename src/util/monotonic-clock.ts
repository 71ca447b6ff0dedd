/**
 * A monotonic clock for the hook's start-up path, where loading `perf_hooks` costs more than reading it.
 */

/** Milliseconds from a monotonic clock (no perf_hooks load). */
export function monotonicMs(): number {
  const [s, ns] = process.hrtime();
  return s * 1000 + ns / 1e6;
}

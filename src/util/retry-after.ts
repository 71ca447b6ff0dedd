/**
 * Parses an HTTP Retry-After header (delay in seconds, or an HTTP date) into milliseconds from `now`;
 * undefined when absent or not readable. A date in the past reads as 0.
 */
export function retryAfterMs(
  header: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(header);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

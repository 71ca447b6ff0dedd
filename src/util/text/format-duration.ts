/**
 * The one way hookd writes a duration, in notifications, logs, tables and reports: `950ms`, `1.2s`,
 * `42s`, `4m05s`, `2h03m`; `-` when unknown.
 */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '-';
  if (ms < 999.5) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < 9950) return `${(ms / 1000).toFixed(1)}s`;
  const total = Math.round(ms / 1000);
  if (total < 60) return `${total}s`;
  const minutes = Math.floor(total / 60);
  if (minutes < 60) return `${minutes}m${String(total % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** How long ago, for people: `4m05s ago`; `-` when unknown. */
export function formatAgo(ms: number | null | undefined): string {
  const duration = formatDuration(ms);
  return duration === '-' ? duration : `${duration} ago`;
}

const UNIT_MS: Record<string, number> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/**
 * A `--since` value to Unix ms: relative (`30m`, `12h`, `7d`, `2w`) before `nowMs`, or an ISO date or
 * date-time (`2026-11-01`, `2026-11-01T09:00:00Z`; a bare date is midnight UTC). Undefined when invalid.
 */
export function parseSince(text: string, nowMs: number): number | undefined {
  const value = text.trim();
  const relative = /^(\d+(?:\.\d+)?)\s*([mhdw])$/i.exec(value);
  if (relative) return nowMs - Number(relative[1]) * UNIT_MS[relative[2]!.toLowerCase()]!;
  if (!/^\d{4}-\d{2}-\d{2}/.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

import type { TokenCounts } from './types.js';

const num = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;

/**
 * Token counts from the agent's or the platform's usage object (`inputTokens`, `outputTokens`,
 * `cacheReadTokens`, `cacheCreationTokens`, `thinkingTokens`). Undefined when it is not an object.
 */
export function tokenCountsFrom(usage: unknown): TokenCounts | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const u = usage as Record<string, unknown>;
  const counts = {
    input: num(u.inputTokens),
    output: num(u.outputTokens),
    cacheRead: num(u.cacheReadTokens),
    cacheWrite: num(u.cacheCreationTokens ?? u.cacheWriteTokens),
    thinking: num(u.thinkingTokens),
  };
  return {
    ...counts,
    total: counts.input + counts.output + counts.cacheRead + counts.cacheWrite + counts.thinking,
  };
}

/** Credits from a usage object: `factoryCredits` locally, `serviceCredits` from the API. */
export function creditsFrom(usage: unknown): number | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const u = usage as Record<string, unknown>;
  const value = u.factoryCredits ?? u.serviceCredits;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The sum of two token counts (either may be missing). */
export function addTokenCounts(
  a: TokenCounts | undefined,
  b: TokenCounts | undefined,
): TokenCounts | undefined {
  if (!a) return b && { ...b };
  if (!b) return { ...a };
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    thinking: a.thinking + b.thinking,
    total: a.total + b.total,
  };
}

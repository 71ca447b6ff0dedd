import { safeText } from './safe-text.js';

/**
 * Text from outside (a path a repository chose, a symlink's target) for a message: shown through the
 * one terminal sanitizer (safe-text.ts) and cut at `max` characters. Import-free beyond it: the hook
 * path uses it.
 */
export function printable(text: string, max = 500): string {
  const safe = safeText(text);
  return safe.length > max ? `${safe.slice(0, max)}…` : safe;
}

const cache = new Map<string, RegExp | null>();

/**
 * The agent's matcher semantics: empty, `*` or absent match everything; otherwise an exact match,
 * then an unanchored JavaScript RegExp test. A pattern that is not a valid RegExp matches only exactly
 * (the config validator reports it as an error before it gets here).
 */
export function matchesPattern(pattern: string | undefined, value: unknown): boolean {
  if (pattern === undefined || pattern === '' || pattern === '*') return true;
  if (typeof value !== 'string') return false;
  if (pattern === value) return true;
  let regex = cache.get(pattern);
  if (regex === undefined) {
    try {
      regex = new RegExp(pattern);
    } catch {
      regex = null;
    }
    cache.set(pattern, regex);
  }
  return regex !== null && regex.test(value);
}

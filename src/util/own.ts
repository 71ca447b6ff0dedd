/**
 * Lookups and counts keyed by data from outside (event names, tool names, notification types, variable
 * names): only a record's own properties count, so `constructor`, `toString` or `__proto__` are plain
 * keys and never reach Object.prototype.
 */

/** `record[key]` when it is the record's own property, else undefined. */
export function ownValue<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Adds `n` to `counts[key]`, as an own property (also for `__proto__`). */
export function addCount(counts: Record<string, number>, key: string, n = 1): void {
  const value = (ownValue(counts, key) ?? 0) + n;
  Object.defineProperty(counts, key, { value, enumerable: true, writable: true, configurable: true });
}

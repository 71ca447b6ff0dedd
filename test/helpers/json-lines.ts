import { existsSync, readFileSync } from 'node:fs';

/**
 * The records of a JSON-lines file (none when it does not exist yet). Only complete lines count: another
 * process may be in the middle of appending one, so the text after the last newline is left for later.
 * A complete line that is not JSON still fails the test.
 */
export function jsonLines<T = Record<string, unknown>>(file: string): T[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}

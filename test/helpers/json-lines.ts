import { existsSync, readFileSync } from 'node:fs';

/** The records of a JSON-lines file (none when it does not exist yet). */
export function jsonLines<T = Record<string, unknown>>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}

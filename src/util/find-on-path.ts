import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The first executable `name` on PATH, or undefined. */
export function findOnPath(name: string, pathValue: string | undefined): string | undefined {
  for (const dir of (pathValue ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

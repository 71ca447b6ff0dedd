import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/**
 * The first executable file `name` in the absolute folders of PATH, or undefined. Relative entries
 * (`node_modules/.bin`, `.`) and empty ones (which mean the current folder) are skipped: hookd runs in
 * whatever folder the agent or the user is in, often a repository, and a program it runs on its own
 * (a presence probe, notify-send) must never be one that repository put there.
 */
export function findOnPath(name: string, pathValue: string | undefined): string | undefined {
  for (const dir of (pathValue ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

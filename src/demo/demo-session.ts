import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/** Where the recorded session lived: every path in demo-session/ starts with this home. */
export const RECORDED_HOME = '/home/dev';
/** The project the session ran in, and its folder name under `~/.factory/sessions/`. */
export const RECORDED_CWD = `${RECORDED_HOME}/projects/demo`;

/** The agent's folder name for a cwd's sessions: the path with every `/` replaced by `-`. */
export function sessionSlug(cwd: string): string {
  return cwd.replace(/\//g, '-');
}

/** Where a recorded session is replayed: the temp home and the project inside it. */
export interface DemoPaths {
  home: string;
  cwd: string;
}

/** `/home/dev` as a whole path segment (not `/home/devon`). */
const RECORDED_HOME_RE = new RegExp(`${RECORDED_HOME}(?![\\w.-])`, 'g');

/**
 * Rewrites a recorded text to the replay's paths: the sessions folder slug (`-home-dev-projects-demo`)
 * to the new cwd's slug, then every `/home/dev` to the new home. Paths are written into JSON, so the
 * new ones are JSON-escaped (a no-op for ordinary paths).
 */
export function rewriteRecordedPaths(text: string, to: DemoPaths): string {
  const escape = (value: string) => JSON.stringify(value).slice(1, -1);
  return text
    .split(sessionSlug(RECORDED_CWD))
    .join(escape(sessionSlug(to.cwd)))
    .replace(RECORDED_HOME_RE, () => escape(to.home));
}

/** The folder of the package that holds `demo-session/`, found by walking up from `fromDir`. */
export function findPackageRoot(fromDir: string): string | undefined {
  let dir = fromDir;
  for (;;) {
    if (existsSync(join(dir, 'demo-session', 'events'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** One recorded hook payload, in the order the agent sent it. */
export interface DemoEvent {
  file: string;
  /** The payload with its paths rewritten. */
  raw: string;
  payload: Record<string, unknown>;
}

/** The recorded payloads of `<sessionDir>/events/*.json` in file-name order, rewritten to `to`. */
export function loadDemoEvents(sessionDir: string, to: DemoPaths): DemoEvent[] {
  const dir = join(sessionDir, 'events');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((file) => {
      const raw = rewriteRecordedPaths(readFileSync(join(dir, file), 'utf8'), to);
      return { file, raw, payload: JSON.parse(raw) as Record<string, unknown> };
    });
}

/** One file of the recorded session store, its path relative to the store and its rewritten text. */
export interface StoreFile {
  /** Relative to the agent's home, with the sessions folder renamed to the new slug. */
  path: string;
  text: string;
}

/** Every file of the recorded `factory-home/`, with paths and contents rewritten to `to`. */
export function readRecordedStore(factoryHome: string, to: DemoPaths): StoreFile[] {
  const files: StoreFile[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else {
        const rel = relative(factoryHome, full).split(sep).join('/');
        files.push({
          path: rel.split(sessionSlug(RECORDED_CWD)).join(sessionSlug(to.cwd)),
          text: rewriteRecordedPaths(readFileSync(full, 'utf8'), to),
        });
      }
    }
  };
  walk(factoryHome);
  return files;
}

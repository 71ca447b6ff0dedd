import { readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/**
 * The agent's home: the one given, else the one a transcript path lives in
 * (`<home>/sessions/<slug>/<id>.jsonl`), else `$FACTORY_HOME`, else `~/.factory`.
 */
export function resolveFactoryHome(
  explicit: string | undefined,
  transcriptPath: string | undefined,
  env: Record<string, string | undefined> = process.env,
): string {
  if (explicit) return explicit;
  if (transcriptPath) {
    const sessions = dirname(dirname(transcriptPath));
    if (basename(sessions) === 'sessions') return dirname(sessions);
  }
  if (env.FACTORY_HOME) return env.FACTORY_HOME;
  return join(env.HOME || homedir(), '.factory');
}

/** The session folder name the agent derives from a cwd: every `/` becomes `-`. */
export function sessionSlug(cwd: string): string {
  return cwd.replace(/[\\/]/g, '-');
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Folders of `<home>/sessions` looked at, at most, when searching for a transcript by id. */
const MAX_SESSION_DIRS = 2000;

/**
 * Find `<id>.jsonl` under `<home>/sessions`: first in the folder of `cwd` (when known), then in each
 * session folder (bounded). Returns undefined when it is not there.
 */
export async function findTranscript(
  factoryHome: string,
  sessionId: string,
  cwd?: string,
): Promise<string | undefined> {
  if (!/^[A-Za-z0-9._-]+$/.test(sessionId)) return undefined;
  const sessionsDir = join(factoryHome, 'sessions');
  const file = `${sessionId}.jsonl`;
  if (cwd) {
    const guess = join(sessionsDir, sessionSlug(cwd), file);
    if (await isFile(guess)) return guess;
  }
  let dirs: string[];
  try {
    dirs = (await readdir(sessionsDir, { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .slice(0, MAX_SESSION_DIRS);
  } catch {
    return undefined;
  }
  for (const dir of dirs) {
    const candidate = join(sessionsDir, dir, file);
    if (await isFile(candidate)) return candidate;
  }
  const flat = join(sessionsDir, file);
  return (await isFile(flat)) ? flat : undefined;
}

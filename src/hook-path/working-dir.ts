import { homedir } from 'node:os';

type Env = Record<string, string | undefined>;

/**
 * The hook's working directory. The agent starts the hook in the session's cwd; when a tool removed
 * that directory, `process.cwd()` throws and so would every relative path. Then hookd moves to the
 * agent's project dir, else the home dir, and says which directory was lost so it can be logged.
 */
export function recoverWorkingDir(env: Env): { cwd: string; lost?: string } {
  try {
    return { cwd: process.cwd() };
  } catch {
    const lost = env.PWD || '(deleted)';
    for (const dir of [env.FACTORY_PROJECT_DIR, env.CLAUDE_PROJECT_DIR, env.HOME || homedir(), '/']) {
      if (!dir) continue;
      try {
        process.chdir(dir);
        return { cwd: dir, lost };
      } catch {}
    }
    return { cwd: '/', lost };
  }
}

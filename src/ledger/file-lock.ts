import { open, readFile, rm, stat } from 'node:fs/promises';

export interface FileLockOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** A lock older than this is taken over even if its pid looks alive (pid reuse; default 60 s). */
  staleMs?: number;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function isStale(path: string, staleMs: number): Promise<boolean> {
  try {
    const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    const pid = Number.parseInt(text, 10);
    if (Date.now() - info.mtimeMs > staleMs) return true;
    // An empty or unreadable lock file older than a moment was left by a writer killed while creating it.
    if (!Number.isInteger(pid) || pid <= 0) return Date.now() - info.mtimeMs > 1000;
    return !alive(pid);
  } catch {
    return false;
  }
}

/**
 * Take an exclusive lock file (created with O_EXCL, holding our pid) for a short critical section.
 * A lock left by a killed process (its pid is gone) is taken over. Returns the release function.
 */
export async function acquireFileLock(
  path: string,
  options: FileLockOptions = {},
): Promise<() => Promise<void>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 60_000;
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(path, 'wx');
      try {
        await handle.writeFile(String(process.pid));
      } finally {
        await handle.close();
      }
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await isStale(path, staleMs)) {
      await rm(path, { force: true });
      continue;
    }
    if (Date.now() - started > timeoutMs) {
      throw new Error(
        `could not lock ${path} within ${timeoutMs} ms: another hookd process holds it; remove the file if no hookd daemon is running`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(5 * (attempt + 1), 50)));
  }
}

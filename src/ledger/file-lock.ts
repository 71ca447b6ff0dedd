import { isProcessAlive, waitForLock } from '../util/pid-lock.js';

export interface FileLockOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** A lock older than this is taken over even if its pid looks alive (pid reuse; default 60 s). */
  staleMs?: number;
}

/**
 * Take the ledger's exclusive lock file (holding our pid) for a short critical section, through the one
 * lock helper (src/util/pid-lock.ts: an atomic exclusive link, and a race-free takeover of a lock whose
 * pid is gone). Returns the release function.
 */
export async function acquireFileLock(
  path: string,
  options: FileLockOptions = {},
): Promise<() => Promise<void>> {
  const staleMs = options.staleMs ?? 60_000;
  const release = await waitForLock(path, {
    timeoutMs: options.timeoutMs ?? 10_000,
    isStale: ({ pid, ageMs }) => pid === undefined || !isProcessAlive(pid) || ageMs > staleMs,
  });
  return async () => release();
}

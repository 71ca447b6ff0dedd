import { existsSync } from 'node:fs';
import type { Env } from '../../paths.js';
import { PROTOCOL_VERSION, requestDaemon } from '../../link/client.js';
import {
  acquireLock,
  forceBreakLock,
  lockAgeMs,
  readPidFile,
  type DaemonFiles,
  type LockResult,
} from '../../link/runtime-files.js';

/** A lock held by a live pid that does not answer on the socket for this long is taken over. */
export const STALE_LOCK_MS = 30_000;

/** Thrown when another daemon of the same user holds the lock. */
export class DaemonRunningError extends Error {
  constructor(readonly pid: number) {
    super(`a hookd daemon is already running (pid ${pid})`);
    this.name = 'DaemonRunningError';
  }
}

/**
 * Asks whoever listens on the socket: `replied` when anything answered, `running` when it said it is a
 * daemon (with its pid when it gave one).
 */
export type PingDaemon = () => Promise<{ replied: boolean; running: boolean; pid?: number }>;

export function pingOverSocket(env: Env): PingDaemon {
  return async () => {
    const ping = await requestDaemon({ v: PROTOCOL_VERSION, type: 'ping' }, { env, timeoutMs: 1000 });
    if (!ping.ok) return { replied: false, running: false };
    return {
      replied: true,
      running: ping.reply.ok === true,
      ...(typeof ping.reply.pid === 'number' ? { pid: ping.reply.pid } : {}),
    };
  };
}

export interface HeldLock {
  release(): void;
}

/**
 * Takes the one-daemon lock, or throws DaemonRunningError. A daemon answering on the socket runs,
 * whatever the lock says: from another PID namespace (a hook of a sandboxed agent) its pid is invisible,
 * and the lock would look stale and be taken over. A lock held by a live pid that does not answer for
 * STALE_LOCK_MS is a reused pid, and is broken.
 */
export async function holdDaemonLock(
  files: Pick<DaemonFiles, 'socket' | 'lock'>,
  ping: PingDaemon,
  staleMs = STALE_LOCK_MS,
): Promise<HeldLock> {
  if (existsSync(files.socket)) {
    const answer = await ping();
    if (answer.running) throw new DaemonRunningError(answer.pid ?? readPidFile(files.lock) ?? 0);
  }
  let lock: LockResult = acquireLock(files.lock);
  if (!lock.acquired) {
    // The pid is alive. A daemon answers on its socket; a lock that old without one is a reused pid.
    const answer = await ping();
    if (answer.replied || lockAgeMs(files.lock) < staleMs) throw new DaemonRunningError(lock.heldBy);
    forceBreakLock(files.lock);
    lock = acquireLock(files.lock);
    if (!lock.acquired) throw new DaemonRunningError(lock.heldBy);
  }
  return { release: lock.release };
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { daemonState, type DaemonStats } from '../../../daemon/admin.js';
import { daemonFiles } from '../../../link/runtime-files.js';
import { listSpool } from '../../../link/spool.js';
import { spoolDir, stateDir, type Env } from '../../../paths.js';

/** What the doctor needs to know about the daemon, asked once and shared by several checks. */
export interface DaemonView {
  running: boolean;
  /** The running daemon's own report (its channels' health as seen from its environment). */
  stats?: DaemonStats;
  /** A live process holding the daemon lock without answering. */
  lockPid?: number;
  /** Why it is not running, as the client saw it. */
  reason?: string;
  spooled: number;
  pendingEvents: number;
  outbox: { pending: number; held: number; dead: number };
}

/**
 * Asks the running daemon for its status, else reads its files. Nothing is created: when the daemon
 * has never run here (no socket, no journal), the journal is not opened.
 */
export async function readDaemonView(env: Env, timeoutMs: number): Promise<DaemonView> {
  const spooled = listSpool(spoolDir(env)).length;
  const journal = join(stateDir(env), 'daemon', 'journal.jsonl');
  const empty = { pending: 0, held: 0, dead: 0 };
  if (!existsSync(daemonFiles(env).socket) && !existsSync(journal)) {
    return {
      running: false,
      reason: 'the daemon is not running (no socket)',
      spooled,
      pendingEvents: 0,
      outbox: empty,
    };
  }
  try {
    const state = await daemonState(env, timeoutMs);
    if (state.running)
      return {
        running: true,
        stats: state.stats,
        spooled,
        pendingEvents: state.stats.events.pending,
        outbox: state.stats.outbox,
      };
    return {
      running: false,
      reason: state.reason,
      ...(state.pid !== undefined ? { lockPid: state.pid } : {}),
      spooled,
      pendingEvents: state.pendingEvents,
      outbox: state.outbox,
    };
  } catch (error) {
    return {
      running: false,
      reason: `cannot read the daemon's state: ${(error as Error).message}`,
      spooled,
      pendingEvents: 0,
      outbox: empty,
    };
  }
}

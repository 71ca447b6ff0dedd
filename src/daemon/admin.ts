import { join } from 'node:path';
import { spoolDir, stateDir, type Env } from '../paths.js';
import { PROTOCOL_VERSION, requestDaemon } from '../link/client.js';
import { spawnDetached } from '../process/run.js';
import {
  acquireLock,
  daemonFiles,
  ensurePrivateDir,
  isProcessAlive,
  readPidFile,
} from '../link/runtime-files.js';
import { listSpool } from '../link/spool.js';
import { openDaemonJournal } from '../journal/journal-schema.js';
import { DaemonStore, type Delivery, type JournalRecord, type Ladder } from '../journal/store.js';
import { ackPlan, type AckedSession, type AckRequest } from '../journal/escalator.js';
import type { DaemonStats } from './lifecycle/daemon.js';
import { DAEMON_DEFAULTS } from '../config/schemas/daemon-schema.js';
import type { SessionState } from '../notify/session-state.js';

/**
 * Administration of the daemon for the CLI: ask the running daemon, or read its files when it is down.
 * This file is the daemon's one face for the CLI, doctor and explain (docs/architecture.md): what they
 * use of its records is named here, so that they import nothing else of the daemon.
 */
export type { DaemonStats } from './lifecycle/daemon.js';
export type { Delivery, Ladder } from '../journal/store.js';
export { describeLadderState, type AckedSession } from '../journal/escalator.js';
export { journalTrouble } from '../journal/journal.js';

export type DaemonState =
  | { running: true; stats: DaemonStats }
  | {
      running: false;
      pid?: number;
      spooled: number;
      pendingEvents: number;
      outbox: { pending: number; held: number; dead: number };
      reason: string;
    };

function journalFile(env: Env): string {
  return join(stateDir(env), 'daemon', 'journal.jsonl');
}

async function readStore(env: Env): Promise<DaemonStore> {
  const store = new DaemonStore(DAEMON_DEFAULTS.seenIdsMax);
  const journal = openDaemonJournal(journalFile(env), { fsync: false });
  try {
    for (const record of await journal.open({ readOnly: true })) store.apply(record);
  } finally {
    await journal.close();
  }
  return store;
}

export async function daemonState(env: Env, timeoutMs = 2000): Promise<DaemonState> {
  const reply = await requestDaemon({ v: PROTOCOL_VERSION, type: 'status' }, { env, timeoutMs });
  if (reply.ok && reply.reply.ok) return { running: true, stats: reply.reply.status as DaemonStats };
  const pid = readPidFile(daemonFiles(env).lock);
  const store = await readStore(env);
  const counts = store.counts();
  return {
    running: false,
    ...(pid !== undefined && isProcessAlive(pid) ? { pid } : {}),
    spooled: listSpool(spoolDir(env)).length,
    pendingEvents: counts.pendingEvents,
    outbox: { pending: counts.pending, held: counts.held, dead: counts.dead },
    reason: reply.ok ? String(reply.reply.error) : reply.error,
  };
}

/** The sessions' states the running daemon holds (docs/sessions.md), or undefined when it does not answer. */
export async function liveSessions(env: Env, timeoutMs = 2000): Promise<SessionState[] | undefined> {
  const reply = await requestDaemon({ v: PROTOCOL_VERSION, type: 'sessions' }, { env, timeoutMs });
  if (!reply.ok || !reply.reply.ok || !Array.isArray(reply.reply.sessions)) return undefined;
  return reply.reply.sessions as SessionState[];
}

export type OutboxAction =
  | { action: 'list'; state: 'pending' | 'held' | 'dead' | 'delivered' | 'cancelled' | 'all'; ids?: string[] }
  | {
      action: 'retry' | 'purge';
      state: 'pending' | 'held' | 'dead' | 'delivered' | 'cancelled' | 'all';
      ids?: string[];
    };

/** Lists, retries or purges deliveries: through the daemon when it runs, else in its journal under its lock. */
export async function outboxAction(
  env: Env,
  request: OutboxAction,
): Promise<{ items?: Delivery[]; affected?: number; via: 'daemon' | 'journal' }> {
  const reply = await requestDaemon(
    { v: PROTOCOL_VERSION, type: 'outbox', ...request },
    { env, timeoutMs: 5000 },
  );
  if (reply.ok) {
    if (!reply.reply.ok) throw new Error(String(reply.reply.error));
    return { ...(reply.reply as { items?: Delivery[]; affected?: number }), via: 'daemon' };
  }
  const wanted = (d: Delivery) =>
    request.ids ? request.ids.includes(d.id) : request.state === 'all' || d.state === request.state;
  if (request.action === 'list') {
    const store = await readStore(env);
    return {
      items: [...store.deliveries.values(), ...store.recentDelivered, ...store.recentCancelled].filter(
        wanted,
      ),
      via: 'journal',
    };
  }
  return withJournal(env, reply.error, (store) => {
    const at = Date.now();
    const targets = [...store.deliveries.values()].filter(wanted);
    const records: JournalRecord[] =
      request.action === 'retry'
        ? targets.filter((d) => d.state === 'dead').map((d) => ({ t: 'retry', id: d.id, at }))
        : targets.map((d) => ({ t: 'purge', id: d.id }));
    return { records, result: { affected: records.length, via: 'journal' as const } };
  });
}

/** Changes the daemon's journal while it is down: under its lock, the records `make` returns from its state. */
async function withJournal<T>(
  env: Env,
  why: string,
  make: (store: DaemonStore) => { records: JournalRecord[]; result: T },
): Promise<T> {
  const files = daemonFiles(env);
  const lock = acquireLock(files.lock);
  if (!lock.acquired)
    throw new Error(`the daemon (pid ${lock.heldBy}) holds its lock but does not answer: ${why}`);
  try {
    const journal = openDaemonJournal(journalFile(env), { fsync: true });
    const store = new DaemonStore(DAEMON_DEFAULTS.seenIdsMax);
    for (const record of await journal.open()) store.apply(record);
    const { records, result } = make(store);
    await journal.append(records);
    await journal.close();
    return result;
  } finally {
    lock.release();
  }
}

export interface AckResult {
  acked: AckedSession[];
  stillWaiting: AckedSession[];
  problem?: string;
  via: 'daemon' | 'journal';
}

/**
 * `hookd ack`: stops the escalation ladders and held "waiting" notifications of a session (the most
 * recent waiting one without a session, every one with `all`): through the daemon, else in its journal.
 */
export async function ackWaiting(env: Env, request: AckRequest): Promise<AckResult> {
  const reply = await requestDaemon(
    { v: PROTOCOL_VERSION, type: 'ack', ...request, all: request.all ?? false },
    { env, timeoutMs: 5000 },
  );
  if (reply.ok) {
    if (!reply.reply.ok) throw new Error(String(reply.reply.error));
    const r = reply.reply as unknown as Omit<AckResult, 'via'>;
    return {
      acked: r.acked ?? [],
      stillWaiting: r.stillWaiting ?? [],
      ...(r.problem ? { problem: r.problem } : {}),
      via: 'daemon',
    };
  }
  return withJournal(env, reply.error, (store) => {
    const plan = ackPlan(store, request, Date.now());
    return {
      records: plan.records,
      result: {
        acked: plan.acked,
        stillWaiting: plan.stillWaiting,
        ...(plan.problem ? { problem: plan.problem } : {}),
        via: 'journal' as const,
      },
    };
  });
}

/** The escalation ladders: the running daemon's, else those its journal holds. */
export async function daemonLadders(
  env: Env,
  timeoutMs = 2000,
  session?: string,
): Promise<{ active: Ladder[]; recent: Ladder[]; via: 'daemon' | 'journal' }> {
  const reply = await requestDaemon(
    { v: PROTOCOL_VERSION, type: 'ladders', ...(session ? { session } : {}) },
    { env, timeoutMs },
  );
  if (reply.ok && reply.reply.ok && Array.isArray(reply.reply.active))
    return {
      active: reply.reply.active as Ladder[],
      recent: Array.isArray(reply.reply.recent) ? (reply.reply.recent as Ladder[]) : [],
      via: 'daemon',
    };
  const store = await readStore(env);
  const mine = (l: Ladder) => session === undefined || l.session === session;
  return {
    active: [...store.ladders.values()].filter(mine),
    recent: store.recentLadders.filter(mine),
    via: 'journal',
  };
}

/** Starts `hookd daemon run` in the background and waits until it answers. */
export async function startDaemonProcess(
  env: Env,
  argv: readonly string[],
  waitMs = 10_000,
): Promise<{ pid: number; already: boolean }> {
  const ping = await requestDaemon({ v: PROTOCOL_VERSION, type: 'ping' }, { env, timeoutMs: 1000 });
  if (ping.ok && ping.reply.ok) return { pid: Number(ping.reply.pid), already: true };
  ensurePrivateDir(daemonFiles(env).dir);
  const child = spawnDetached(argv, env);
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    const reply = await requestDaemon({ v: PROTOCOL_VERSION, type: 'ping' }, { env, timeoutMs: 1000 });
    if (reply.ok && reply.reply.ok) return { pid: Number(reply.reply.pid), already: false };
    if (child.exitCode !== null) break;
  }
  throw new Error(`the daemon did not start within ${waitMs}ms`);
}

/** Asks the daemon to stop and waits for its process to end; SIGTERM when it does not answer. */
export async function stopDaemonProcess(
  env: Env,
  waitMs = 15_000,
): Promise<{ pid?: number; wasRunning: boolean }> {
  const files = daemonFiles(env);
  const pid = readPidFile(files.lock);
  const reply = await requestDaemon({ v: PROTOCOL_VERSION, type: 'shutdown' }, { env, timeoutMs: 2000 });
  const target = reply.ok && reply.reply.ok ? Number(reply.reply.pid) : pid;
  if (target === undefined || !isProcessAlive(target)) return { wasRunning: reply.ok };
  if (!(reply.ok && reply.reply.ok)) {
    try {
      process.kill(target, 'SIGTERM');
    } catch {}
  }
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline && isProcessAlive(target)) await new Promise((r) => setTimeout(r, 50));
  if (isProcessAlive(target)) throw new Error(`the daemon (pid ${target}) did not stop within ${waitMs}ms`);
  return { pid: target, wasRunning: true };
}

import { join } from 'node:path';
import { acquireFileLock } from './file-lock.js';
import { appendRecord, scanLedger } from './ledger-file.js';
import { computeStats } from './stats.js';
import { ensurePrivateDir } from '../util/private-fs.js';
import type { AgentUsage } from './agent-usage.js';
import {
  RECORD_VERSION,
  type LedgerFilters,
  type LedgerStats,
  type SessionRecord,
  type StatsBy,
} from './types.js';

export interface CreateLedgerOptions {
  /** hookd's data dir (`dataDir()` from src/paths.ts); the ledger lives in `<dataDir>/ledger/`. */
  dataDir: string;
}

export interface Ledger {
  /** `<dataDir>/ledger/sessions.jsonl`. */
  readonly path: string;
  /**
   * Write a session's record unless the ledger already has one for its id: exactly one record per
   * session, across SessionEnd repeats, restarts and processes (a lock file guards the check and append).
   * Resolves once the record is fsync'd. Throws only when the disk refuses (the caller retries later).
   */
  record(record: SessionRecord): Promise<'written' | 'duplicate'>;
  /**
   * Complete a recorded session with its agent usage (a line read back into the record); nothing is
   * written for a session that has no record yet (its record will carry the usage itself).
   */
  amend(sessionId: string, agentUsage: AgentUsage, nowMs: number): Promise<'written' | 'no-record'>;
  /** Records matching the filters, most recent end first. */
  list(filters?: LedgerFilters): Promise<SessionRecord[]>;
  /** The record whose id is, or uniquely starts with, `id`. */
  get(id: string): Promise<SessionRecord | undefined>;
  /** Every record whose id starts with `prefix` (to report an ambiguous prefix). */
  match(prefix: string): Promise<SessionRecord[]>;
  /** Totals of duration, messages, tokens and credits by UTC day, project or model. */
  stats(by: StatsBy, filters?: LedgerFilters): Promise<LedgerStats>;
}

/** The ledger file inside a data dir. */
export function ledgerPath(dataDir: string): string {
  return join(dataDir, 'ledger', 'sessions.jsonl');
}

/**
 * All valid records, the first one per session id winning (a duplicate line is never shown twice), each
 * with the agent usage of its latest amendment.
 */
async function readAll(path: string): Promise<SessionRecord[]> {
  const records = new Map<string, SessionRecord>();
  const usage = new Map<string, AgentUsage>();
  await scanLedger(
    path,
    (record) => {
      if (!records.has(record.sessionId)) records.set(record.sessionId, record);
    },
    0,
    (amendment) => usage.set(amendment.sessionId, amendment.agentUsage),
  );
  return [...records.values()].map((r) => {
    const later = usage.get(r.sessionId);
    return later ? { ...r, agentUsage: later } : r;
  });
}

function matches(record: SessionRecord, filters: LedgerFilters): boolean {
  if (filters.sinceMs !== undefined && record.endedAtMs < filters.sinceMs) return false;
  if (filters.reason !== undefined && record.reason !== filters.reason) return false;
  if (filters.project !== undefined) {
    const needle = filters.project.toLowerCase();
    const hay = `${record.project ?? ''}\n${record.projectName ?? ''}`.toLowerCase();
    if (!hay.includes(needle)) return false;
  }
  return true;
}

/**
 * Open the session ledger (JSON lines in `<dataDir>/ledger/sessions.jsonl`; see docs/enrich-ledger.md for
 * why). Cheap to create: nothing is read until the first call.
 */
export function createLedger(opts: CreateLedgerOptions): Ledger {
  const dir = join(opts.dataDir, 'ledger');
  const path = ledgerPath(opts.dataDir);
  const lockPath = `${path}.lock`;
  const ids = new Set<string>();
  let scannedTo = 0;
  let queue: Promise<unknown> = Promise.resolve();

  async function recordLocked(record: SessionRecord): Promise<'written' | 'duplicate'> {
    ensurePrivateDir(dir);
    const release = await acquireFileLock(lockPath);
    try {
      // Catch up with lines other processes (or an earlier run) appended since the last look.
      const scan = await scanLedger(path, (r) => ids.add(r.sessionId), scannedTo);
      scannedTo = scan.endOffset;
      if (ids.has(record.sessionId)) return 'duplicate';
      scannedTo = await appendRecord(path, record);
      ids.add(record.sessionId);
      return 'written';
    } finally {
      await release();
    }
  }

  async function amendLocked(sessionId: string, agentUsage: AgentUsage, nowMs: number) {
    ensurePrivateDir(dir);
    const release = await acquireFileLock(lockPath);
    try {
      const scan = await scanLedger(path, (r) => ids.add(r.sessionId), scannedTo);
      scannedTo = scan.endOffset;
      if (!ids.has(sessionId)) return 'no-record' as const;
      scannedTo = await appendRecord(path, {
        v: RECORD_VERSION,
        sessionId,
        amend: 'agentUsage',
        agentUsage,
        recordedAtMs: nowMs,
      });
      return 'written' as const;
    } finally {
      await release();
    }
  }

  const list = async (filters: LedgerFilters = {}) => {
    const records = (await readAll(path)).filter((r) => matches(r, filters));
    records.sort((a, b) => b.endedAtMs - a.endedAtMs);
    return filters.limit !== undefined ? records.slice(0, filters.limit) : records;
  };
  const match = async (prefix: string) => (await readAll(path)).filter((r) => r.sessionId.startsWith(prefix));

  return {
    path,
    record(record) {
      if (typeof record.sessionId !== 'string' || !record.sessionId) {
        return Promise.reject(new Error('a session record needs a sessionId'));
      }
      const run = queue.then(() => recordLocked(record));
      queue = run.catch(() => undefined);
      return run;
    },
    amend(sessionId, agentUsage, nowMs) {
      const run = queue.then(() => amendLocked(sessionId, agentUsage, nowMs));
      queue = run.catch(() => undefined);
      return run;
    },
    list,
    match,
    async get(id) {
      const found = await match(id);
      return found.find((r) => r.sessionId === id) ?? (found.length === 1 ? found[0] : undefined);
    },
    async stats(by, filters = {}) {
      return computeStats(await list({ ...filters, limit: undefined }), by);
    },
  };
}

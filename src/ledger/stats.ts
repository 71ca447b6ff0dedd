import { addTokenCounts } from '../enrich/tokens.js';
import type { TokenCounts } from '../enrich/types.js';
import type { LedgerStats, SessionRecord, StatsBy, StatsRow } from './types.js';

const ZERO_TOKENS: TokenCounts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, thinking: 0, total: 0 };
const UNKNOWN = '(unknown)';

function emptyRow(key: string): StatsRow {
  return {
    key,
    sessions: 0,
    durationMs: 0,
    activeTimeMs: 0,
    messageCount: 0,
    tokens: { ...ZERO_TOKENS },
    credits: 0,
    agentCostUsd: null,
    hookFailures: 0,
    hookTimeouts: 0,
  };
}

function add(row: StatsRow, r: SessionRecord): void {
  row.sessions++;
  row.durationMs += r.durationMs ?? 0;
  row.activeTimeMs += r.activeTimeMs ?? 0;
  row.messageCount += r.messageCount ?? 0;
  row.tokens = addTokenCounts(row.tokens, r.tokens ?? undefined) ?? row.tokens;
  row.credits += r.credits ?? 0;
  const cost = r.agentUsage?.costUsd;
  if (typeof cost === 'number') row.agentCostUsd = (row.agentCostUsd ?? 0) + cost;
  row.hookFailures += r.hookFailures;
  row.hookTimeouts += r.hookTimeouts;
}

/** The grouping key of a record: its UTC end day, its project, its model or its agent. */
export function statsKey(record: SessionRecord, by: StatsBy): string {
  if (by === 'day') return new Date(record.endedAtMs).toISOString().slice(0, 10);
  if (by === 'project') return record.project ?? record.cwd ?? UNKNOWN;
  if (by === 'agent') return record.agent || UNKNOWN;
  return record.model ?? UNKNOWN;
}

/**
 * Totals per group. Each record counts its own tokens and credits (a sub-agent has its own record), so
 * sums never count a sub-agent twice. Days ascend; projects, models and agents go by credits, then sessions.
 */
export function computeStats(records: readonly SessionRecord[], by: StatsBy): LedgerStats {
  const groups = new Map<string, StatsRow>();
  const total = emptyRow('total');
  for (const record of records) {
    const key = statsKey(record, by);
    let row = groups.get(key);
    if (!row) groups.set(key, (row = emptyRow(key)));
    add(row, record);
    add(total, record);
  }
  const rows = [...groups.values()];
  if (by === 'day') rows.sort((a, b) => a.key.localeCompare(b.key));
  else rows.sort((a, b) => b.credits - a.credits || b.sessions - a.sessions || a.key.localeCompare(b.key));
  return { by, rows, total };
}

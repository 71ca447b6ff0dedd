import type { TokenCounts } from '../enrich/types.js';
import type { AgentUsage } from './agent-usage.js';

/** Version of the record format; readers skip lines of other versions they do not know. */
export const RECORD_VERSION = 1;

/**
 * One finished session, as written once to the ledger. Times are Unix ms; a fact nobody could tell is
 * `null` (never left out), so JSON and CSV keep the same columns.
 */
export interface SessionRecord {
  v: typeof RECORD_VERSION;
  sessionId: string;
  /** The calling session of a sub-agent, else the session this one continued (compaction). */
  parentId: string | null;
  isSubagent: boolean;
  /** droid, claude or unknown. */
  agent: string;
  /** The project directory (agent project dir, git root, else cwd). */
  project: string | null;
  projectName: string | null;
  cwd: string | null;
  branch: string | null;
  title: string | null;
  /** SessionEnd reason (clear, logout, prompt_input_exit, other, resume...) or "idle-timeout". */
  reason: string;
  startedAtMs: number | null;
  endedAtMs: number;
  durationMs: number | null;
  /** Time the assistant was working. */
  activeTimeMs: number | null;
  messageCount: number | null;
  /**
   * Prompts typed by a person: UserPromptSubmit events that are not a Claude `<task-notification>`, or the
   * Claude transcript's count when larger. Absent from records written before it existed.
   */
  promptCount?: number | null;
  model: string | null;
  /** The session's own usage (sub-agents have their own records). */
  tokens: TokenCounts | null;
  /** Usage including sub-agents, when known. */
  inclusiveTokens: TokenCounts | null;
  /** The session's own credits. */
  credits: number | null;
  toolCalls: Record<string, number>;
  /** Hook commands that failed (non-zero exit other than a blocking command's deliberate 2, signal, spawn error). */
  hookFailures: number;
  /** Hook commands killed at their timeout. */
  hookTimeouts: number;
  /** Sub-agents started by this session. */
  subagentCount: number;
  /** Events hookd saw for this session. */
  eventCount: number;
  recordedAtMs: number;
  /**
   * Tokens per model and cost from the agent's own telemetry, when it exports to hookd's receiver;
   * completed by a later line of the ledger when it arrives after the session ended.
   */
  agentUsage?: AgentUsage | null;
}

/** A later line of the ledger that completes a session's record with its agent usage. */
export interface UsageAmendment {
  v: typeof RECORD_VERSION;
  sessionId: string;
  amend: 'agentUsage';
  agentUsage: AgentUsage;
  recordedAtMs: number;
}

export interface LedgerFilters {
  /** Only sessions that ended at or after this Unix ms. */
  sinceMs?: number;
  /** Substring of the project path or name (case-insensitive). */
  project?: string;
  /** Exact SessionEnd reason. */
  reason?: string;
  /** At most this many records (the most recent). */
  limit?: number;
}

export type StatsBy = 'day' | 'project' | 'model' | 'agent';

export interface StatsRow {
  /** The day (YYYY-MM-DD, UTC), the project, the model or the agent; "(unknown)" when the record has none. */
  key: string;
  sessions: number;
  durationMs: number;
  activeTimeMs: number;
  messageCount: number;
  tokens: TokenCounts;
  credits: number;
  /** USD the agents reported in their own telemetry (`agentUsage`); null when no session of the row had any. */
  agentCostUsd: number | null;
  hookFailures: number;
  hookTimeouts: number;
}

export interface LedgerStats {
  by: StatsBy;
  rows: StatsRow[];
  total: StatsRow;
}

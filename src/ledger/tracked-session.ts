import type { CommandOutcome } from '../events/types.js';
import { failed } from '../events/failed.js';

/** What the tracker knows about one open session; plain JSON so it can be saved and restored. */
export interface TrackedSession {
  sessionId: string;
  agent: string;
  firstSeenMs: number;
  lastSeenMs: number;
  /** receivedAt of its SessionStart (startup). */
  startedAtMs?: number;
  cwd?: string;
  projectDir?: string;
  transcriptPath?: string;
  parentId?: string;
  isSubagent: boolean;
  eventCount: number;
  hookFailures: number;
  hookTimeouts: number;
  /** SubagentStop events received by this session (not Claude's compaction forks). */
  subagentStops: number;
  /** UserPromptSubmit events typed by a person (absent in snapshots saved before it existed). */
  prompts?: number;
  /** Sessions whose SessionStart named this one as calling_session_id. */
  childIds: string[];
  /** PreToolUse events by tool name. */
  toolCalls: Record<string, number>;
  /** Set when its end was seen but the record could not be written yet (retried by sweepIdle). */
  end?: { reason: string; atMs: number; payload: Record<string, unknown> };
}

/** A new session entry, first seen at `atMs`. */
export function newTrackedSession(sessionId: string, agent: string, atMs: number): TrackedSession {
  return {
    sessionId,
    agent,
    firstSeenMs: atMs,
    lastSeenMs: atMs,
    isSubagent: false,
    eventCount: 0,
    hookFailures: 0,
    hookTimeouts: 0,
    subagentStops: 0,
    prompts: 0,
    childIds: [],
    toolCalls: {},
  };
}

/** How a command outcome counts: a timeout, a failure, or fine (a blocking command's exit 2 is a decision). */
export function classifyOutcome(outcome: CommandOutcome): 'timeout' | 'failure' | 'ok' {
  if (outcome.timedOut) return 'timeout';
  return failed(outcome, outcome.blocking) ? 'failure' : 'ok';
}

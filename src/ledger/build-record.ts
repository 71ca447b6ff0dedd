import { basename } from 'node:path';
import type { Enrichment } from '../enrich/types.js';
import type { HookEvent } from '../events/types.js';
import type { TrackedSession } from './tracked-session.js';
import { RECORD_VERSION, type SessionRecord } from './types.js';
import { addCount, ownValue } from '../util/own.js';

const positive = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;

/** Per tool, the larger of two counts: hook events can miss calls, a partly read transcript too. */
function mergeToolCalls(
  a: Record<string, number>,
  b: Record<string, number> | undefined,
): Record<string, number> {
  const out: Record<string, number> = { ...a };
  for (const [name, count] of Object.entries(b ?? {})) {
    const have = ownValue(out, name) ?? 0;
    if (count > have) addCount(out, name, count - have);
  }
  return out;
}

/**
 * The ledger record of a session from what the tracker counted, the end event (SessionEnd, or a
 * synthetic one for an idle close) and the enrichment of that event (when it could be had).
 */
export function buildSessionRecord(
  session: TrackedSession,
  endEvent: HookEvent,
  reason: string,
  enrichment: Enrichment | undefined,
  nowMs: number,
): SessionRecord {
  const p = endEvent.payload;
  const es = enrichment?.session;
  const endedAtMs = endEvent.receivedAt;
  const startedAtMs = session.startedAtMs ?? es?.startedAtMs ?? session.firstSeenMs;
  const project = es?.project ?? session.projectDir ?? session.cwd ?? null;
  const tokens = es?.ownTokens ?? null;
  const inclusive = es?.tokens && es.tokens !== es.ownTokens ? es.tokens : null;
  return {
    v: RECORD_VERSION,
    sessionId: session.sessionId,
    parentId: session.parentId ?? es?.parentId ?? null,
    isSubagent: session.isSubagent || Boolean(es?.isSubagent),
    agent: session.agent,
    project,
    projectName: es?.projectName ?? (project ? basename(project) : null),
    cwd: session.cwd ?? es?.cwd ?? null,
    branch: es?.branch ?? null,
    title: es?.title ?? null,
    reason,
    startedAtMs,
    endedAtMs,
    durationMs:
      positive(p.session_duration_ms) ?? (endedAtMs >= startedAtMs ? endedAtMs - startedAtMs : null) ?? null,
    activeTimeMs: es?.activeTimeMs ?? null,
    messageCount: positive(p.message_count) ?? es?.messageCount ?? null,
    promptCount: Math.max(session.prompts ?? 0, es?.promptCount ?? 0),
    model: es?.model ?? null,
    tokens,
    inclusiveTokens: inclusive && inclusive.total !== tokens?.total ? inclusive : null,
    credits: es?.ownCredits ?? null,
    toolCalls: mergeToolCalls(session.toolCalls, es?.toolCalls),
    hookFailures: session.hookFailures,
    hookTimeouts: session.hookTimeouts,
    subagentCount: Math.max(session.childIds.length, session.subagentStops),
    eventCount: session.eventCount,
    recordedAtMs: nowMs,
  };
}

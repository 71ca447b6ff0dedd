import type { SessionState } from './session-state.js';
import type { RenderedNotification, SessionSnapshot } from './notification.js';
import { formatCredits, formatTokens } from './default-text.js';
import type { TokenCounts } from '../enrich/types.js';
import { formatDuration } from '../util/format-duration.js';
import { excerpt } from '../enrich/excerpt.js';
import { finite, isObject, str } from '../util/json-values.js';

/**
 * One message per session (docs/sessions.md, "Slack, one message per session"): what the session's
 * message says as its state changes, and its final summary. Pure; the pipeline decides when.
 */

export function sessionSnapshot(state: SessionState): SessionSnapshot {
  return {
    phase: state.phase,
    ...(state.waitingFor ? { waitingFor: state.waitingFor } : {}),
    ...(state.failure ? { failure: state.failure } : {}),
    startedAt: state.startedAt,
    since: state.since,
  };
}

/** `waiting for you (permission)`, `failed (rate_limit)`, `working`... */
export function phaseLabel(snapshot: SessionSnapshot): string {
  switch (snapshot.phase) {
    case 'waiting':
      return `waiting for you${snapshot.waitingFor ? ` (${snapshot.waitingFor})` : ''}`;
    case 'failed':
      return `failed${snapshot.failure ? ` (${snapshot.failure})` : ''}`;
    default:
      return snapshot.phase;
  }
}

/** True when the state an event left differs from the one before it, as a session's message shows it. */
export function messageStateChanged(before: SessionState | undefined, after: SessionState): boolean {
  return !before || before.phase !== after.phase || before.waitingFor !== after.waitingFor;
}

/**
 * True when the move is the end of a piece of work whose summary goes in the message's thread: the turn
 * finished or failed, or the session ended from another state (an interrupted or waiting one).
 */
export function sessionFinished(before: SessionState | undefined, after: SessionState): boolean {
  if (!messageStateChanged(before, after)) return false;
  if (after.phase === 'done' || after.phase === 'failed') return true;
  return after.phase === 'ended' && before?.phase !== 'done' && before?.phase !== 'failed';
}

interface MessageEvent {
  name: string;
  id: string;
  sessionId: string;
  project?: string | undefined;
  cwd?: string | undefined;
}

function base(event: MessageEvent, state: SessionState, at: number) {
  return {
    urgency: 'low' as const,
    rule: 'session-message',
    event: event.name,
    eventIds: [event.id],
    count: 1,
    sessionId: event.sessionId,
    ...(event.project ? { project: event.project } : {}),
    ...(event.cwd ? { cwd: event.cwd } : {}),
    at,
    session: sessionSnapshot(state),
  };
}

/** The message's new state (`kind: update`); `answeredBy` names the event that answered a wait. */
export function sessionUpdateNotification(
  event: MessageEvent,
  state: SessionState,
  at: number,
  answeredBy?: string,
): RenderedNotification {
  const snapshot = sessionSnapshot(state);
  return {
    ...base(event, state, at),
    title: `${event.project ?? 'session'}: ${phaseLabel(snapshot)}`,
    body: answeredBy ? `Answered (${answeredBy}).` : '',
    fields: [],
    kind: 'update',
  };
}

function tokensOf(value: unknown): TokenCounts | undefined {
  return isObject(value) && finite(value.total) !== undefined ? (value as unknown as TokenCounts) : undefined;
}

/**
 * The final summary (`kind: summary`): duration, tokens, credits and the last message, from what the
 * enrichment knows (files changed when it says so); what is unknown is left out.
 */
export function sessionSummaryNotification(
  event: MessageEvent,
  state: SessionState,
  enrichment: Record<string, unknown>,
  at: number,
): RenderedNotification {
  const session = isObject(enrichment.session) ? enrichment.session : {};
  const snapshot = sessionSnapshot(state);
  const durationMs = finite(session.durationMs) ?? Math.max(0, at - state.startedAt);
  const fields: { label: string; value: string }[] = [
    { label: 'State', value: phaseLabel(snapshot) },
    { label: 'Duration', value: formatDuration(durationMs) },
  ];
  const files = finite(enrichment.filesChanged) ?? finite(session.filesChanged);
  if (files !== undefined) fields.push({ label: 'Files changed', value: String(files) });
  const tokens = formatTokens(tokensOf(session.tokens));
  if (tokens) fields.push({ label: 'Tokens', value: tokens });
  const credits = formatCredits(finite(session.credits));
  if (credits) fields.push({ label: 'Credits', value: credits });
  const last = str(enrichment.lastMessage);
  return {
    ...base(event, state, at),
    title: `Summary: ${phaseLabel(snapshot)}`,
    body: last ? excerpt(last, 1000) : '',
    durationMs,
    fields,
    kind: 'summary',
  };
}

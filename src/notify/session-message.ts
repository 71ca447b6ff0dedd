import { userMovedOn, type SessionState } from './session-state.js';
import { folderName, projectDirOf, type RenderedNotification, type SessionSnapshot } from './notification.js';
import { deliveriesFor, type Delivery } from './records.js';
import type { HookEvent } from '../events/types.js';
import { formatCredits, formatTokens } from './default-text.js';
import type { TokenCounts } from '../enrich/types.js';
import { formatDuration } from '../util/text/format-duration.js';
import { excerpt } from '../enrich/excerpt.js';
import { finite, isObject, str } from '../util/json-values.js';

/**
 * One message per session (docs/sessions.md, "Slack, one message per session"): what the session's
 * message says as its state changes, and its final summary, and when each is sent. Pure.
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

/** What moved a session: one of its events, or a record read from its transcript. */
export interface MessageEvent {
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

/** What a session's move means for its own messages (the channels that keep one message per session). */
export interface SessionMessageInput {
  about: MessageEvent;
  before: SessionState | undefined;
  after: SessionState;
  /** The channels that keep one message per session. */
  channels: readonly string[];
  /** The channels a rule notification of this event goes to: it starts (posts) their message. */
  firedTo?: readonly string[] | undefined;
  /** The event that answered what the session waited for, if it did. */
  answeredBy?: string | undefined;
  enrichment?: Record<string, unknown> | undefined;
  at: number;
}

export interface SessionMessageDecision {
  /** Channels whose message for the session starts now, with this event's rule notification (a post). */
  post: string[];
  /** The session's message channels after this move, when it changed (kept in the session's state). */
  messageChannels?: string[];
  /** The message's new state (an edit) and the summary of finished work (a reply in its thread). */
  deliveries: Delivery[];
}

/** A channel keeps a message for this many of a session's channels at most. */
const MESSAGE_CHANNELS_MAX = 32;

/**
 * One message per session: a channel keeps a message for a session from the first rule notification of
 * that session it is sent (the post); each later change of the session's state edits it, unless a rule
 * notification of the same event goes there anyway; the end of a piece of work adds a summary in its
 * thread.
 */
export function sessionMessage(input: SessionMessageInput): SessionMessageDecision {
  const { about, before, after, at } = input;
  const firedTo = new Set(input.firedTo ?? []);
  const had = new Set(after.messageChannels ?? []);
  const post = input.channels.filter((n) => firedTo.has(n) && !had.has(n));
  const known = input.channels.filter((n) => had.has(n));
  const deliveries: Delivery[] = [];
  const updateTo = known.filter((n) => !firedTo.has(n));
  if (updateTo.length > 0 && messageStateChanged(before, after)) {
    const update = sessionUpdateNotification(about, after, at, input.answeredBy);
    deliveries.push(...deliveriesFor(at, `${about.id}/session`, 0, updateTo, update));
  }
  const summaryTo = [...known, ...post];
  if (summaryTo.length > 0 && sessionFinished(before, after)) {
    const summary = sessionSummaryNotification(about, after, input.enrichment ?? {}, at);
    deliveries.push(...deliveriesFor(at, `${about.id}/summary`, 0, summaryTo, summary));
  }
  return {
    post,
    ...(post.length > 0 ? { messageChannels: [...had, ...post].slice(-MESSAGE_CHANNELS_MAX) } : {}),
    deliveries,
  };
}

/** A session's message after one of its events (`before`: its state before the event). */
export function eventSessionMessage(
  event: HookEvent,
  before: SessionState | undefined,
  after: SessionState,
  input: Pick<SessionMessageInput, 'channels' | 'firedTo' | 'enrichment' | 'at'>,
): SessionMessageDecision {
  const projectDir = projectDirOf(event);
  const about: MessageEvent = {
    name: event.name,
    id: event.id,
    sessionId: event.sessionId ?? after.id,
    project: projectDir ? folderName(projectDir) : undefined,
    cwd: event.cwd,
  };
  const answered = before?.phase === 'waiting' && userMovedOn(event);
  return sessionMessage({ ...input, about, before, after, answeredBy: answered ? event.name : undefined });
}

/** A session's message after a move read from its transcript: only the channels that already keep one. */
export function transcriptSessionMessage(
  before: SessionState,
  after: SessionState,
  channels: readonly string[],
  at: number,
): SessionMessageDecision {
  const about: MessageEvent = {
    name: after.transition,
    id: `${after.id}/transcript/${at}`,
    sessionId: after.id,
    project: after.cwd ? folderName(after.cwd) : undefined,
    cwd: after.cwd,
  };
  return sessionMessage({ about, before, after, channels, at });
}

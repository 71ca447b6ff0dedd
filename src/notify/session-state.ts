import {
  backgroundTasksRunning,
  isCompactionFork,
  isHumanPrompt,
  isPermissionAsk,
  subagentOf,
  type EventLike,
} from '../events/claude-facts.js';
import type { TranscriptSignal } from './transcript-signals.js';

/**
 * What each session (main or sub-agent) is doing, from its events alone: a pure state machine,
 * `nextSessionState(state, event, now)`, each move named (`SessionTransition`). docs/sessions.md.
 */

export type SessionPhase = 'starting' | 'working' | 'waiting' | 'done' | 'failed' | 'interrupted' | 'ended';
export type WaitingReason = 'permission' | 'question' | 'idle';

/** The named moves of the machine (the last one is kept on the state, for `hookd sessions` and tests). */
export type SessionTransition =
  | 'session-start'
  | 'compact-restart'
  | 'prompt'
  | 'task-notification'
  | 'tool'
  | 'tool-result'
  | 'permission-denied'
  | 'permission-ask'
  | 'question'
  | 'answer'
  | 'idle'
  | 'interrupt'
  | 'stop'
  | 'stop-asks'
  | 'stop-with-background-tasks'
  | 'stop-failure'
  | 'subagent-start'
  | 'subagent-stop'
  | 'subagent-finished'
  | 'compact'
  | 'compacted'
  | 'session-end'
  | 'ended-mid-turn'
  | 'activity'
  | 'transcript-interrupt'
  | 'transcript-turn-end'
  | 'transcript-turn-failed';

export interface SessionState {
  /** The session id; a Claude sub-agent's is `<parent session>#<agent_id>`. */
  id: string;
  agent: string;
  /** The parent session of a sub-agent (Droid `calling_session_id`, Claude the event's session_id). */
  parent?: string;
  /** A Claude sub-agent's `agent_type`. */
  agentType?: string;
  phase: SessionPhase;
  waitingFor?: WaitingReason;
  /** The last named transition and the event that made it. */
  transition: SessionTransition;
  lastEvent: string;
  /** When the phase was entered, and when the last event came. */
  since: number;
  lastEventAt: number;
  startedAt: number;
  /** A turn is under way: a prompt or tool came and no Stop/StopFailure since (a SessionEnd now is a failure). */
  inTurn: boolean;
  /** Why it failed (StopFailure's error kind, `session ended mid-turn`). */
  failure?: string;
  cwd?: string;
  /** The phase before a compaction (restored by PostCompact). */
  beforeCompact?: { phase: SessionPhase; waitingFor?: WaitingReason };
  /** Channels that keep one message for this session (Slack `session-message`), updated as it moves. */
  messageChannels?: string[];
}

/** The event as the machine reads it (a HookEvent fits). */
export interface SessionEvent extends EventLike {
  agent?: string;
  sessionId?: string;
  cwd?: string;
}

/** The id of the session an event moves: a Claude sub-agent's own id for `agent_id` events (not a compaction fork). */
export function sessionKeyOf(event: SessionEvent): string | undefined {
  if (!event.sessionId) return undefined;
  const sub = subagentOf(event);
  if (sub && !isCompactionFork(event)) return `${event.sessionId}#${sub.agentId}`;
  return event.sessionId;
}

const QUESTION = /\?\s*(?:[)"'`*_\]]\s*)*$/;

/** True when a Stop's last assistant message ends by asking the user something (Claude `last_assistant_message`). */
export function stopAsksUser(event: EventLike): boolean {
  const last = event.payload.last_assistant_message;
  return typeof last === 'string' && QUESTION.test(last.trim());
}

/**
 * True when the event shows the user answered the session in the terminal (the session moved on):
 * a prompt typed by a person, a tool starting, a permission answered. Never a `<task-notification>`
 * prompt, a sub-agent's event (`agent_id`) or a Stop-hook continuation (`stop_hook_active`).
 */
export function userMovedOn(event: EventLike): boolean {
  if (subagentOf(event) !== undefined || event.payload.stop_hook_active === true) return false;
  if (event.name === 'UserPromptSubmit') return isHumanPrompt(event);
  return MOVED_ON_EVENTS.includes(event.name);
}

/** The events userMovedOn looks at (hookd install wires them while waiting notifications are held). */
export const MOVED_ON_EVENTS: readonly string[] = [
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionDenied',
  'ElicitationResult',
];

/**
 * True for an event whose notification says the session waits for the user (a permission ask, an idle
 * prompt, a question): what delay-then-cancel holds back (`notify.waitingDelayMs`).
 */
export function isWaitingAsk(event: EventLike): boolean {
  return event.name === 'PermissionRequest' || event.name === 'Notification';
}

const ACTIVITY = new Set(['PostToolBatch']);

function move(
  s: SessionState,
  event: SessionEvent,
  now: number,
  transition: SessionTransition,
  phase: SessionPhase = s.phase,
  extra: Partial<SessionState> = {},
): SessionState {
  const next: SessionState = {
    ...s,
    transition,
    lastEvent: event.name,
    lastEventAt: now,
    since: phase === s.phase && extra.waitingFor === s.waitingFor ? s.since : now,
    phase,
    ...extra,
  };
  if (phase !== 'waiting') delete next.waitingFor;
  if (phase !== 'failed') delete next.failure;
  return next;
}

/** A session's first state, from the first event seen of it. */
export function newSessionState(key: string, event: SessionEvent, now: number): SessionState {
  const sub = subagentOf(event);
  const parent =
    sub && key !== event.sessionId
      ? event.sessionId
      : typeof event.payload.calling_session_id === 'string' && event.payload.calling_session_id
        ? event.payload.calling_session_id
        : undefined;
  return {
    id: key,
    agent: event.agent ?? 'unknown',
    ...(parent ? { parent } : {}),
    ...(sub && key !== event.sessionId ? { agentType: sub.agentType } : {}),
    phase: 'starting',
    transition: 'session-start',
    lastEvent: event.name,
    since: now,
    lastEventAt: now,
    startedAt: now,
    inTurn: false,
    ...(event.cwd ? { cwd: event.cwd } : {}),
  };
}

/**
 * The session's next state after one of its events (`state` undefined: the first one seen). Pure.
 * The event must belong to the session (`sessionKeyOf(event)`).
 */
export function nextSessionState(
  state: SessionState | undefined,
  event: SessionEvent,
  now: number,
): SessionState {
  const key = sessionKeyOf(event) ?? state?.id ?? 'unknown';
  const s = state ?? newSessionState(key, event, now);
  const isSub = s.id !== event.sessionId;
  const p = event.payload;
  const turn = { inTurn: true };
  switch (event.name) {
    case 'SessionStart':
      if (p.source === 'compact') return move(s, event, now, 'compact-restart');
      return move(s, event, now, 'session-start', 'starting', { inTurn: false });
    case 'SubagentStart':
      return isSub ? move(s, event, now, 'subagent-start', 'working', turn) : move(s, event, now, 'activity');
    case 'UserPromptSubmit':
      return move(s, event, now, isHumanPrompt(event) ? 'prompt' : 'task-notification', 'working', turn);
    case 'UserPromptExpansion':
      return move(s, event, now, 'prompt', 'working', turn);
    case 'PreToolUse':
      return move(s, event, now, 'tool', 'working', turn);
    case 'PermissionDenied':
      return move(s, event, now, 'permission-denied', 'working', turn);
    case 'PostToolUse':
      return move(s, event, now, 'tool-result', 'working', turn);
    case 'PostToolUseFailure':
      if (p.is_interrupt === true) return move(s, event, now, 'interrupt', 'interrupted', { inTurn: false });
      return move(s, event, now, 'tool-result', 'working', turn);
    case 'PermissionRequest':
      return move(s, event, now, 'permission-ask', 'waiting', { ...turn, waitingFor: 'permission' });
    case 'Interrupt':
      // Codex CLI's own event: the user stopped the turn.
      return move(s, event, now, 'interrupt', 'interrupted', { inTurn: false });
    case 'Notification':
      if (isPermissionAsk(event))
        return move(s, event, now, 'permission-ask', 'waiting', { waitingFor: 'permission' });
      if (p.notification_type === 'idle_prompt')
        return move(s, event, now, 'idle', 'waiting', { waitingFor: 'idle' });
      if (p.notification_type === 'elicitation_dialog')
        return move(s, event, now, 'question', 'waiting', { waitingFor: 'question' });
      return move(s, event, now, 'activity');
    case 'Elicitation':
      return move(s, event, now, 'question', 'waiting', { waitingFor: 'question' });
    case 'ElicitationResult':
      return move(s, event, now, 'answer', 'working', turn);
    case 'Stop':
      if (backgroundTasksRunning(event).length > 0)
        return move(s, event, now, 'stop-with-background-tasks', 'working', { inTurn: false });
      if (stopAsksUser(event))
        return move(s, event, now, 'stop-asks', 'waiting', { inTurn: false, waitingFor: 'question' });
      return move(s, event, now, 'stop', 'done', { inTurn: false });
    case 'StopFailure': {
      const error = typeof p.error === 'string' && p.error ? p.error : 'unknown';
      return move(s, event, now, 'stop-failure', 'failed', { inTurn: false, failure: error });
    }
    case 'SubagentStop':
      if (isSub) return move(s, event, now, 'subagent-stop', 'done', { inTurn: false });
      // A Droid parent hears its sub-agent finished; a compaction fork changes nothing.
      return move(s, event, now, isCompactionFork(event) ? 'activity' : 'subagent-finished');
    case 'PreCompact':
      return move(s, event, now, 'compact', 'working', {
        beforeCompact: { phase: s.phase, ...(s.waitingFor ? { waitingFor: s.waitingFor } : {}) },
      });
    case 'PostCompact': {
      const before = s.beforeCompact ?? { phase: 'working' as const };
      const next = move(s, event, now, 'compacted', before.phase, {
        ...(before.waitingFor ? { waitingFor: before.waitingFor } : {}),
      });
      delete next.beforeCompact;
      return next;
    }
    case 'SessionEnd':
      if (s.inTurn)
        return {
          ...move(s, event, now, 'ended-mid-turn', 'failed', { inTurn: false }),
          failure: 'session ended mid-turn',
        };
      return move(s, event, now, 'session-end', 'ended', { inTurn: false });
    default:
      // Setup, InstructionsLoaded, MessageDisplay, CwdChanged...: the session is alive, its phase unchanged.
      return move(s, event, now, 'activity', ACTIVITY.has(event.name) ? 'working' : s.phase);
  }
}

/**
 * The session's next state after a signal read from its transcript (`transcript-signals.ts`), or the same
 * object when the signal changes nothing. An interrupt moves any live session (Droid fires Stop before it
 * writes the turn's `cancelled` outcome); the end or failure of a turn only moves a session whose turn is
 * under way (no Stop seen yet: a Stop that asked a question stays `waiting`). Pure.
 */
export function transcriptTransition(s: SessionState, signal: TranscriptSignal, now: number): SessionState {
  if (!isLive(s)) return s;
  const to = (transition: SessionTransition, phase: SessionPhase, failure?: string): SessionState => {
    const next: SessionState = {
      ...s,
      transition,
      lastEvent: 'transcript',
      lastEventAt: now,
      since: phase === s.phase ? s.since : now,
      phase,
      inTurn: false,
      ...(failure ? { failure } : {}),
    };
    delete next.waitingFor;
    if (!failure) delete next.failure;
    return next;
  };
  if (signal.kind === 'interrupt')
    return s.phase === 'interrupted' ? s : to('transcript-interrupt', 'interrupted');
  if (!s.inTurn) return s;
  if (signal.kind === 'turn-end') return to('transcript-turn-end', 'done');
  return to('transcript-turn-failed', 'failed', signal.detail);
}

/** Whether a session is still live (not ended, not failed by its end). */
export function isLive(state: SessionState): boolean {
  return state.phase !== 'ended' && !(state.phase === 'failed' && state.transition === 'ended-mid-turn');
}

/** The states of all sessions, bounded: the oldest-touched go first. */
export type SessionTable = Map<string, SessionState>;

export const SESSION_TABLE_MAX = 2000;
/** An ended session is kept this long (for `hookd sessions`), then dropped. */
export const SESSION_ENDED_TTL_MS = 10 * 60_000;
/** A session silent this long is dropped whatever its state (an agent killed without a SessionEnd). */
export const SESSION_MAX_AGE_MS = 24 * 60 * 60_000;

/** Applies an event to the table (no-op for an event without a session). Returns the moved state. */
export function observeSession(
  table: SessionTable,
  event: SessionEvent,
  now: number,
): SessionState | undefined {
  const key = sessionKeyOf(event);
  if (!key) return undefined;
  const next = nextSessionState(table.get(key), event, now);
  table.delete(key);
  table.set(key, next);
  while (table.size > SESSION_TABLE_MAX) table.delete(table.keys().next().value as string);
  return next;
}

/**
 * Drops sessions that ended (or failed at their end; a finished sub-agent, or one of an ended parent)
 * longer than `endedTtlMs` ago, and any silent for `maxAgeMs`.
 */
export function pruneSessions(table: SessionTable, now: number, endedTtlMs: number, maxAgeMs: number): void {
  // A sub-agent that finished, or whose parent ended, counts as ended.
  const over = (s: SessionState): boolean =>
    !isLive(s) ||
    (s.parent !== undefined && (s.phase === 'done' || !table.has(s.parent) || !isLive(table.get(s.parent)!)));
  const drop = [...table.values()].filter(
    (s) => now - s.lastEventAt > maxAgeMs || (over(s) && now - s.lastEventAt > endedTtlMs),
  );
  for (const s of drop) table.delete(s.id);
}

const PHASES = new Set<string>(['starting', 'working', 'waiting', 'done', 'failed', 'interrupted', 'ended']);

/** A state read back from disk, or undefined when it is not one. */
export function parseSessionState(value: unknown): SessionState | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  const num = (x: unknown) => typeof x === 'number' && Number.isFinite(x);
  if (typeof v.id !== 'string' || !v.id || typeof v.agent !== 'string') return undefined;
  if (typeof v.phase !== 'string' || !PHASES.has(v.phase) || typeof v.transition !== 'string')
    return undefined;
  if (typeof v.lastEvent !== 'string' || !num(v.since) || !num(v.lastEventAt) || !num(v.startedAt))
    return undefined;
  if (v.waitingFor !== undefined && !['permission', 'question', 'idle'].includes(v.waitingFor as string))
    return undefined;
  const state: SessionState = { ...(v as unknown as SessionState), inTurn: v.inTurn === true };
  const channels = v.messageChannels;
  if (!Array.isArray(channels) || !channels.every((c) => typeof c === 'string')) delete state.messageChannels;
  else state.messageChannels = channels.slice(0, 32);
  return state;
}

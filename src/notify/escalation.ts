import { isPermissionAsk, permissionTool, subagentOf, type EventLike } from '../events/claude-facts.js';
import { formatDuration } from '../util/text/format-duration.js';
import type { RenderedNotification } from './notification.js';
import { userMovedOn } from './session-state.js';
import type { PresenceState } from './presence.js';

/**
 * Escalation ladders (docs/sessions.md#escalation-ladders), the pure part: when each step of a ladder
 * is due, what an event answers, what presence changes. The daemon keeps the ladders and sends.
 */

/** One step of a ladder as the daemon keeps it (durations in ms). */
export interface LadderStep {
  afterMs: number;
  channels: string[];
  /** Sent again this often while nobody answers... */
  repeatMs?: number;
  /** ...this many times after the first (default 3 when repeatMs is set). */
  maxRepeats?: number;
}

export const DEFAULT_MAX_REPEATS = 3;

/** How many times a step is sent in all: once, plus its reminders. */
export function firingsOf(step: LadderStep): number {
  return step.repeatMs ? 1 + (step.maxRepeats ?? DEFAULT_MAX_REPEATS) : 1;
}

/** When the `k`-th sending (0 = the first) of a step is due, for a ladder started at `startedAt`. */
export function dueAt(step: LadderStep, startedAt: number, k: number): number {
  return startedAt + step.afterMs + k * (step.repeatMs ?? 0);
}

/** A step that is due now: `sent` is its progress after this sending (sendings past due are skipped). */
export interface DueStep {
  step: number;
  /** The sending made now (0 = the first, 1 = the first reminder...). */
  repeat: number;
  /** How many sendings of the step count as done after it (a sending missed while the daemon was down or quiet hours held it is not made up). */
  sent: number;
  /** Earlier sendings skipped for this one (they fell due while nothing could be sent). */
  skipped: number;
  dueAt: number;
}

/**
 * The steps due at `now`, given how many sendings of each are done (`progress[i]`). Several sendings
 * of one step that fell due (a daemon down for an hour, quiet hours) become one: the latest.
 */
export function dueSteps(
  steps: readonly LadderStep[],
  startedAt: number,
  progress: readonly number[],
  now: number,
): DueStep[] {
  const due: DueStep[] = [];
  steps.forEach((step, i) => {
    const total = firingsOf(step);
    const done = progress[i] ?? 0;
    if (done >= total || dueAt(step, startedAt, done) > now) return;
    let k = done;
    while (k + 1 < total && dueAt(step, startedAt, k + 1) <= now) k++;
    due.push({ step: i, repeat: k, sent: k + 1, skipped: k - done, dueAt: dueAt(step, startedAt, k) });
  });
  return due;
}

/** When the next sending of the ladder is due, or undefined when every step is sent. */
export function nextDueAt(
  steps: readonly LadderStep[],
  startedAt: number,
  progress: readonly number[],
): number | undefined {
  let next: number | undefined;
  steps.forEach((step, i) => {
    const done = progress[i] ?? 0;
    if (done >= firingsOf(step)) return;
    const at = dueAt(step, startedAt, done);
    if (next === undefined || at < next) next = at;
  });
  return next;
}

/** What a "waiting" notification waits for: a permission (for one tool, when known) or anything. */
export interface WaitingAsk {
  kind: 'permission' | 'other';
  tool?: string;
  toolUseId?: string;
  /** A Claude sub-agent's ask (`agent_id`): only that sub-agent's events (or a person's prompt) answer it. */
  agentId?: string;
}

const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

export function waitingAskOf(event: EventLike): WaitingAsk {
  const agentId = subagentOf(event)?.agentId;
  const sub = agentId ? { agentId } : {};
  if (!isPermissionAsk(event)) return { kind: 'other', ...sub };
  const tool = permissionTool(event);
  const toolUseId = str(event.payload.tool_use_id);
  return { kind: 'permission', ...(tool ? { tool } : {}), ...(toolUseId ? { toolUseId } : {}), ...sub };
}

const TOOL_EVENTS = new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionDenied']);

/**
 * THE answer detection: whether `event` (of the same session) answers a waiting notification.
 * `answered`: the session moved on (a person's prompt, an elicitation answered, the tool the permission
 * was for starting or finishing, a permission denied: same `tool_name`, same `tool_use_id` where both
 * have one). `ended`: the session ended, or the turn ended while a permission was asked. Never: a
 * sub-agent's event (`agent_id`), a Stop-hook continuation, a `<task-notification>` prompt, another
 * tool's event while a permission for one tool is asked. An ask of a Claude sub-agent (`agent_id`) is
 * answered by that sub-agent's events (or a person's prompt), never by the main session's tools. An ask
 * without details (held before this existed) is answered by any move.
 */
export function answerTo(event: EventLike, ask: WaitingAsk | undefined): 'answered' | 'ended' | undefined {
  if (event.payload.stop_hook_active === true) return undefined;
  const agent = subagentOf(event)?.agentId;
  if (agent !== undefined) {
    // A sub-agent's event answers only its own ask: the tool it asked permission for, run.
    if (agent !== ask?.agentId || !TOOL_EVENTS.has(event.name)) return undefined;
  } else if (ask?.agentId !== undefined && TOOL_EVENTS.has(event.name)) return undefined;
  // The session ending, or the user stopping the turn (Codex CLI's Interrupt), ends every ask.
  if (event.name === 'SessionEnd' || event.name === 'Interrupt') return 'ended';
  if ((event.name === 'Stop' || event.name === 'StopFailure') && ask?.kind === 'permission') return 'ended';
  if (agent === undefined && !userMovedOn(event)) return undefined;
  if (TOOL_EVENTS.has(event.name) && ask?.kind === 'permission') {
    const tool = str(event.payload.tool_name);
    if (ask.tool !== undefined && tool !== undefined && tool !== ask.tool) return undefined;
    const id = str(event.payload.tool_use_id);
    if (ask.toolUseId !== undefined && id !== undefined && id !== ask.toolUseId) return undefined;
  }
  return 'answered';
}

export type { PresenceState };

/** What presence did to one notification: the channels now, the ladder, and a line for logs and explain. */
export interface PresencePlan {
  now: string[];
  steps: LadderStep[];
  applied: 'local-only' | 'remote-at-once' | 'as-written';
  note: string;
}

/**
 * Presence (`"presence": "auto"`): active at this machine, only local channels now and the remote
 * ones by the ladder alone; idle, the first step with a remote channel fires at once; unknown, as
 * written.
 */
export function applyPresence(
  channels: readonly string[],
  steps: readonly LadderStep[],
  state: PresenceState,
  isRemote: (channel: string) => boolean,
): PresencePlan {
  if (state === 'active') {
    const local = channels.filter((c) => !isRemote(c));
    const remote = channels.filter((c) => isRemote(c));
    return {
      now: local,
      steps: [...steps],
      applied: 'local-only',
      note:
        remote.length > 0
          ? `presence active: ${remote.join(', ')} not now${steps.length > 0 ? ' (the ladder escalates if you do not answer)' : ''}`
          : 'presence active: every channel of the rule is local',
    };
  }
  if (state === 'idle') {
    const first = steps.findIndex((s) => s.channels.some(isRemote));
    if (first < 0)
      return {
        now: [...channels],
        steps: [...steps],
        applied: 'as-written',
        note: 'presence idle: no remote step',
      };
    return {
      now: [...channels],
      steps: steps.map((s, i) => (i === first ? { ...s, afterMs: 0 } : s)),
      applied: 'remote-at-once',
      note: `presence idle: step ${first + 1} (${steps[first]!.channels.join(', ')}) at once`,
    };
  }
  return {
    now: [...channels],
    steps: [...steps],
    applied: 'as-written',
    note: 'presence unknown: as written',
  };
}

/** A ladder for people: "slack after 5m00s; phone after 15m00s, then every 10m00s up to 3 times". */
export function describeLadder(steps: readonly LadderStep[]): string {
  return steps
    .map((s) => {
      const base = `${s.channels.join(', ')} after ${formatDuration(s.afterMs)}`;
      if (!s.repeatMs) return base;
      const times = s.maxRepeats ?? DEFAULT_MAX_REPEATS;
      return `${base}, then every ${formatDuration(s.repeatMs)} up to ${times} time${times === 1 ? '' : 's'}`;
    })
    .join('; ');
}

/** The notification an escalation step sends: the original, saying how long it has waited. */
export function escalatedNotification(
  original: RenderedNotification,
  step: number,
  repeat: number,
  waitedMs: number,
): RenderedNotification {
  return {
    ...original,
    title: `Still waiting (${formatDuration(waitedMs)}): ${original.title}`,
    fields: [
      ...original.fields,
      { label: 'Escalation', value: `step ${step + 1}${repeat > 0 ? `, reminder ${repeat}` : ''}` },
    ],
  };
}

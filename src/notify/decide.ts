import type { CommandOutcome, HookdNotice, HookEvent } from '../events/types.js';
import type { NotifyConfig } from '../config/schemas/notify-schema.js';
import { effectiveRules, evaluateRules, type FiredRule, type RuleEvaluation } from './rules.js';
import type { NoiseState, SentNote } from './noise.js';
import { isWaitingAsk, transcriptTransition, type SessionState } from './session-state.js';
import { answerTo, applyPresence, waitingAskOf, type PresenceState, type WaitingAsk } from './escalation.js';
import { isRemoteChannel } from './redact-notification.js';
import type { DefaultText } from './notification.js';
import { eventSessionMessage, sessionSnapshot, transcriptSessionMessage } from './session-message.js';
import { coalescedNotification, type Burst } from './coalescer.js';
import { breaksQuietHours, quietStateAt } from './quiet-hours.js';
import type { TranscriptSignal } from './transcript-signals.js';
import {
  deliveriesFor,
  resolvedDeliveries,
  type Delivery,
  type Ladder,
  type WaitingHold,
} from './records.js';

export { deliveriesFor };

/** What one event is judged on: the event, what enrichment found, the session, the noise memory, a clock. */
export interface DecideInput {
  event: HookEvent;
  /** What enrichment found for it ({} when none or too slow). */
  enrichment: Record<string, unknown>;
  /** The hook commands' outcomes (for `commandsFailed` and templates). */
  results?: readonly CommandOutcome[] | undefined;
  /** The notify config in force for this event. */
  notify: NotifyConfig;
  /** The noise memory (read only: what to remember is an effect). */
  noise: NoiseState;
  /** The main session's state after this event, if it has one, and before it. */
  session?: SessionState | undefined;
  before?: SessionState | undefined;
  /** The channels that keep one message per session (Slack `session-message`). */
  messageChannels?: readonly string[] | undefined;
  /** hookd's own notices about the event (an untrusted project file, a broken config): to the desktop. */
  notices?: readonly HookdNotice[] | undefined;
  /** The event failed the session (StopFailure, a SessionEnd mid-turn). */
  sessionFailed?: boolean | undefined;
  /** The clock: when the event is judged. */
  at: number;
  /** Whether the user is at this machine, when known; undefined: not read yet (see `needs`). */
  presence?: PresenceState | undefined;
  home?: string | undefined;
  defaultText?: DefaultText | undefined;
}

/** One thing to do about an event, in order. */
export type NotifyEffect =
  /** Remember what fired (dedupe, cooldowns, the idle prompt and permission asks already told). */
  | { t: 'remember'; sent: SentNote[] }
  /** Start an escalation ladder (its steps scheduled from its start). */
  | { t: 'escalate'; ladder: Ladder }
  /** Hold "waiting" notifications until `until`; answered before then, they are cancelled. */
  | { t: 'hold'; session: string; until: number; deliveries: Delivery[] }
  /** Add to the coalescing burst of its rule. */
  | { t: 'coalesce'; fired: FiredRule }
  /** Send now, or (deferred) when quiet hours end. */
  | { t: 'send'; deferred: boolean; deliveries: Delivery[] }
  /**
   * The session's message starts on `post` with this event's rule notification: its message channels
   * are now `channels` (kept in the session's state).
   */
  | { t: 'message'; session: string; post: string[]; channels: string[] };

export interface Decision {
  /** What the rules made of the event (for logs and counts). */
  evaluation: RuleEvaluation;
  /** How many fired rules noise control held back (dedupe, cooldown, a duplicate ask...). */
  suppressed: number;
  effects: NotifyEffect[];
  /** What presence did to each rule it applied to (for logs). */
  presenceNotes: string[];
}

/** The decision needs to know whether the user is at this machine: read presence and decide again. */
export interface NeedsPresence {
  needs: 'presence';
}

/**
 * Where one fired rule goes now and its ladder: presence (`auto`) may keep remote channels for the
 * ladder or fire its first remote step at once; a ladder never fires before delay-then-cancel's hold.
 */
function plan(
  fired: FiredRule,
  input: DecideInput,
  presence: PresenceState,
  holdMs: number,
  notes: string[],
): { channels: string[]; ladder?: Ladder } {
  const { event, notify } = input;
  const sid = event.sessionId;
  let channels = fired.channels;
  let steps = fired.escalate ?? [];
  let note: string | undefined;
  if (sid && fired.presence === 'auto') {
    const isRemote = (name: string) => {
      const channel = notify.channels[name];
      return channel ? isRemoteChannel(channel) : false;
    };
    const p = applyPresence(channels, steps, presence, isRemote);
    channels = p.now;
    steps = p.steps;
    note = p.note;
    notes.push(`${fired.rule}: ${p.note}`);
  }
  if (!sid || steps.length === 0) return { channels };
  const ladder: Ladder = {
    id: `${event.id}/${fired.index}`,
    session: sid,
    rule: fired.rule,
    startedAt: input.at,
    notification: fired.notification,
    steps: steps.map((s) => ({ ...s, afterMs: Math.max(s.afterMs, holdMs) })),
    progress: steps.map(() => 0),
    breakthrough: fired.breakthrough,
    ask: isWaitingAsk(event) ? waitingAskOf(event) : { kind: 'other' },
    ...(note ? { presence: note } : {}),
  };
  return { channels, ladder };
}

/**
 * The notify core: what to do about one event, from the event, what enrichment found, the session's
 * state, the noise memory, the config and the clock. No I/O, no clock of its own, nothing changed in
 * place: the caller applies the effects (records them, wakes the outbox). When a fired rule depends on
 * presence and `input.presence` is not given, the answer is `{ needs: 'presence' }`: read it and call
 * again (presence is read only for the events that need it).
 */
export function decide(input: DecideInput): Decision | NeedsPresence {
  const { event, notify, noise, at } = input;
  const sid = event.sessionId;
  const evaluation = evaluateRules(event, input.enrichment, notify, noise, at, {
    ...(input.home ? { home: input.home } : {}),
    ...(input.defaultText ? { defaultText: input.defaultText } : {}),
    ...(input.results ? { results: input.results } : {}),
    sessionFailed: input.sessionFailed === true,
  });
  if (input.presence === undefined && sid && evaluation.fired.some((f) => f.presence === 'auto'))
    return { needs: 'presence' };
  const effects: NotifyEffect[] = [
    {
      t: 'remember',
      sent: evaluation.fired.map((f) => ({
        dedupeKey: f.dedupeKey,
        ...(f.cooldownKey ? { cooldownKey: f.cooldownKey } : {}),
        idle: event.name === 'Notification' && event.payload.notification_type === 'idle_prompt',
        ...(sid ? { sessionId: sid } : {}),
        ...(f.permissionAsk ? { permissionAsk: f.permissionAsk } : {}),
      })),
    },
  ];
  const waiting = sid !== undefined && isWaitingAsk(event);
  const waitUntil = waiting && notify.waitingDelayMs > 0 ? at + notify.waitingDelayMs : undefined;
  // Sent at once, a "waiting" notification is still one that can be marked resolved when answered.
  const shownWaiting: WaitingHold | undefined =
    waiting && waitUntil === undefined ? { session: sid, until: at, ask: waitingAskOf(event) } : undefined;
  const presenceNotes: string[] = [];
  for (const rule of evaluation.fired) {
    if (input.session) rule.notification.session = sessionSnapshot(input.session);
    const holdMs = waitUntil !== undefined ? notify.waitingDelayMs : 0;
    const planned = plan(rule, input, input.presence ?? 'unknown', holdMs, presenceNotes);
    if (planned.ladder) effects.push({ t: 'escalate', ladder: planned.ladder });
    if (planned.channels.length === 0) continue;
    const fired = { ...rule, channels: planned.channels };
    if (waitUntil !== undefined && sid) {
      const quietEnd = fired.deferred ? (fired.quietEndsAt ?? 0) : 0;
      const hold: WaitingHold = {
        session: sid,
        until: waitUntil,
        dedupeKey: fired.dedupeKey,
        ...(fired.cooldownKey ? { cooldownKey: fired.cooldownKey } : {}),
        ask: waitingAskOf(event),
      };
      const until = Math.max(waitUntil, quietEnd);
      const deliveries = deliveriesFor(
        at,
        event.id,
        fired.index,
        fired.channels,
        fired.notification,
        until,
        hold,
      );
      effects.push({ t: 'hold', session: sid, until: waitUntil, deliveries });
      continue;
    }
    if (fired.coalesce && notify.noise.coalesceWindowMs > 0) {
      effects.push({ t: 'coalesce', fired });
      continue;
    }
    const deferred = fired.deferred !== undefined;
    effects.push({
      t: 'send',
      deferred,
      deliveries: deliveriesFor(
        at,
        event.id,
        fired.index,
        fired.channels,
        fired.notification,
        deferred ? fired.quietEndsAt : undefined,
        deferred ? undefined : shownWaiting,
      ),
    });
  }
  effects.push(...sessionEffects(input, evaluation.fired));
  const suppressed = evaluation.skipped.filter(
    (r) => !r.reason.startsWith('filter:') && !r.reason.startsWith('rule disabled'),
  ).length;
  return { evaluation, suppressed, effects, presenceNotes };
}

/** The session's own message (post, edit, summary), then hookd's notices about the event. */
function sessionEffects(input: DecideInput, fired: readonly FiredRule[]): NotifyEffect[] {
  const { event, session, at } = input;
  const effects: NotifyEffect[] = [];
  if (event.sessionId && session && input.messageChannels && input.messageChannels.length > 0) {
    const m = eventSessionMessage(event, input.before, session, {
      channels: input.messageChannels,
      firedTo: fired.flatMap((f) => f.channels),
      enrichment: input.enrichment,
      at,
    });
    if (m.messageChannels)
      effects.push({ t: 'message', session: session.id, post: m.post, channels: m.messageChannels });
    if (m.deliveries.length > 0) effects.push({ t: 'send', deferred: false, deliveries: m.deliveries });
  }
  (input.notices ?? []).forEach((notice, i) => {
    const notification = {
      title: notice.title,
      body: notice.body,
      urgency: 'normal' as const,
      rule: 'hookd-config',
      event: event.name,
      eventIds: [event.id],
      count: 1,
      at,
      fields: [],
    };
    effects.push({
      t: 'send',
      deferred: false,
      deliveries: deliveriesFor(at, `${event.id}/notice`, i, ['desktop'], notification),
    });
  });
  return effects;
}

/** Whether any enabled rule listens to this event (else enrichment would be wasted). */
export function wantsEnrichment(event: HookEvent, notify: NotifyConfig): boolean {
  if (!notify.enabled) return false;
  return effectiveRules(notify).rules.some((rule) => {
    const on = Array.isArray(rule.on) ? rule.on : [rule.on];
    return rule.enabled && (on.includes(event.name) || on.includes('*'));
  });
}

/**
 * A coalescing burst whose window closed: one notification to the burst's channels, held until quiet
 * hours end unless it is critical and quiet hours let critical ones through.
 */
export function flushBurst(
  burst: Burst,
  notify: NotifyConfig,
  at: number,
): { deliveries: Delivery[]; held: boolean } {
  const notification = coalescedNotification(burst);
  const quiet = quietStateAt(at, notify.quietHours);
  const heldUntil =
    quiet.quiet && !breaksQuietHours(undefined, notification.urgency === 'critical', notify.quietHours)
      ? quiet.endsAt
      : undefined;
  const firstId = burst.items[0]!.notification.eventIds[0]!;
  const deliveries = deliveriesFor(
    at,
    `${firstId}/burst`,
    burst.index,
    burst.channels,
    notification,
    heldUntil,
  );
  return { deliveries, held: heldUntil !== undefined };
}

/** What is waiting in a session when one of its events arrives. */
export interface AnswerInput {
  event: HookEvent;
  /** Its "waiting" notifications still held (delay-then-cancel). */
  held: readonly Delivery[];
  /** Its running escalation ladders. */
  ladders: readonly Ladder[];
  /** Its "waiting" notifications already shown that their channel can mark resolved. */
  shown: readonly Delivery[];
  /** What the session last asked for, if it is remembered. */
  lastAsk?: WaitingAsk | undefined;
  /** The session was waiting for the user before this event. */
  wasWaiting: boolean;
}

/** What an event answers in its session. */
export interface Answer {
  /** Held notifications to cancel (nothing was sent: their dedupe and cooldown keys are forgotten). */
  cancel: Delivery[];
  /** Shown notifications to mark resolved. */
  resolve: Delivery[];
  /** Ladders to stop, by how the ask ended. */
  halt: { answered: Ladder[]; ended: Ladder[] };
  /** How the session's ask ended, when it did (the "answered" notice). */
  how?: 'answered' | 'ended';
  /** What the session waits for after this event: a new ask, none (`forget`), or as before (`keep`). */
  ask: WaitingAsk | 'forget' | 'keep';
}

/**
 * What an event of a session answers: the held "waiting" notifications it cancels, the shown ones it
 * marks resolved (only an answer, not the end of a turn or a session) and the ladders it stops. Pure.
 */
export function answer(input: AnswerInput): Answer {
  const { event, lastAsk } = input;
  const cancel = input.held.filter((d) => answerTo(event, d.waiting?.ask) !== undefined);
  const resolve = input.shown.filter((d) => answerTo(event, d.waiting?.ask) === 'answered');
  const halt = { answered: [] as Ladder[], ended: [] as Ladder[] };
  for (const l of input.ladders) {
    const kind = answerTo(event, l.ask);
    if (kind) halt[kind].push(l);
  }
  const how = lastAsk || input.wasWaiting ? answerTo(event, lastAsk) : undefined;
  const ask = isWaitingAsk(event) ? waitingAskOf(event) : how ? 'forget' : 'keep';
  return { cancel, resolve, halt, ...(how ? { how } : {}), ask };
}

/** What waits in a session when a record of its transcript is read, and the record. */
export interface TranscriptInput {
  /** The session's state before the record. */
  state: SessionState;
  signal: TranscriptSignal;
  /** Its held "waiting" notifications, those already shown, its running ladders. */
  held: readonly Delivery[];
  shown: readonly Delivery[];
  ladders: readonly Ladder[];
  /** The channels that keep one message per session. */
  messageChannels: readonly string[];
  at: number;
}

/** What a transcript record decides; `by` names it (`transcript-interrupt`...). */
export interface TranscriptDecision {
  /** The session's new state, when the record moved it. */
  state?: SessionState;
  by: string;
  /** Held notifications to cancel, shown ones' resolved deliveries, ladders to stop (the turn ended). */
  cancel: Delivery[];
  resolved: Delivery[];
  halt: Ladder[];
  /** The session's message: the edit and the summary. */
  messages: Delivery[];
}

/**
 * A record read from a session's transcript that no hook reported (docs/sessions.md): the session's
 * state moves, what waited for the user goes (held cancelled, shown resolved, ladders stopped: the turn is
 * over) and the session's message follows. An interrupt ends any ask, even of a session already done.
 * Undefined: nothing to do. Pure.
 */
export function transcriptMove(input: TranscriptInput): TranscriptDecision | undefined {
  const { state, signal, at } = input;
  const next = transcriptTransition(state, signal, at);
  const moved = next !== state;
  if (!moved && signal.kind !== 'interrupt') return undefined;
  const by = `transcript-${signal.kind}`;
  const messages = moved ? transcriptSessionMessage(state, next, input.messageChannels, at).deliveries : [];
  return {
    ...(moved ? { state: next } : {}),
    by,
    cancel: [...input.held],
    resolved: resolvedDeliveries(input.shown, by, at),
    halt: [...input.ladders],
    messages,
  };
}

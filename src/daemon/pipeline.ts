import type { Logger } from 'pino';
import type { EventHandoff, HookEvent } from '../events/types.js';
import type { NotifyConfig } from '../config/notify-schema.js';
import { ENRICH_DEFAULTS } from '../config/enrich-schema.js';
import { Coalescer, coalescedNotification, type Burst } from '../notify/coalescer.js';
import {
  createNoiseState,
  noiseRetentionMs,
  forgetUnsent,
  observeEvent,
  pruneNoise,
  recordSent,
  type NoiseState,
} from '../notify/noise.js';
import { effectiveRules } from '../notify/rules.js';
import { answer, decide, deliveriesFor, type Decision, type DecideInput } from '../notify/decide.js';
import {
  observeSession,
  transcriptTransition,
  userMovedOn,
  pruneSessions,
  SESSION_ENDED_TTL_MS,
  SESSION_MAX_AGE_MS,
  type SessionTable,
} from '../notify/session-state.js';
import { breaksQuietHours, quietStateAt } from '../notify/quiet-hours.js';
import { describeLadder, type PresenceState, type WaitingAsk } from '../notify/escalation.js';
import type { TranscriptSignal } from '../notify/transcript-signals.js';
import {
  folderName,
  projectDirOf,
  type DefaultText,
  type RenderedNotification,
  type Urgency,
} from '../notify/notification.js';
import {
  messageStateChanged,
  sessionFinished,
  sessionSummaryNotification,
  sessionUpdateNotification,
} from '../notify/session-message.js';
import type { FiredRule } from '../notify/rules.js';
import type { SessionState } from '../notify/session-state.js';
import type { PresenceReading } from '../notify/presence.js';
import { resolvedId, type Delivery, type JournalRecord, type Ladder } from './state/store.js';
import { haltLadders, type Answered } from './escalator.js';

/** How long the pipeline waits for a presence reading before it counts as unknown. */
export const PRESENCE_BUDGET_MS = 1000;
const ASKS_MAX = 2000;

/** What the pipeline counts, for `hookd status`. */
export interface PipelineCounts {
  processed: number;
  fired: number;
  suppressed: number;
  coalesced: number;
  held: number;
}

export interface PipelineOptions {
  /** The notify config in force (read at each use: a reload applies to the next event). */
  notify: () => NotifyConfig;
  /** The rules for one event when its project adds some (a trusted project file), else undefined. */
  notifyFor?: ((event: HookEvent) => NotifyConfig | undefined) | undefined;
  now: () => number;
  logger: Logger;
  /** Applies records and makes them durable (the journal). */
  commit: (records: JournalRecord[]) => Promise<void>;
  /** Tells the outbox that these channels have work. */
  wake: (channels: Iterable<string>) => void;
  /** Enrichment of an event (session title, last message...); the enricher keeps its own budget. */
  enrich?: ((event: HookEvent) => Promise<Record<string, unknown>>) | undefined;
  /** A safety net around `enrich` (default: enrich.budgetMs + 250 ms). */
  enrichBudgetMs?: number | undefined;
  /** Called once per event, in order, before rules (the session ledger). Errors are logged, not fatal. */
  onEvent?: ((handoff: EventHandoff) => Promise<void>) | undefined;
  defaultText?: DefaultText | undefined;
  home?: string | undefined;
  /** The noise memory to use (the daemon's, loaded from disk) and a callback when it changed. */
  noise?: NoiseState | undefined;
  noiseChanged?: (() => void) | undefined;
  /** The sessions' states (saved with the noise memory; docs/sessions.md). */
  sessions?: SessionTable | undefined;
  /** Held "waiting" deliveries of a session (delay-then-cancel), and a call when one is held until a time. */
  heldWaiting?: ((session: string) => readonly Delivery[]) | undefined;
  onHeld?: ((until: number) => void) | undefined;
  /** "Waiting" notifications of a session already shown, that their channel can mark resolved. */
  shownWaiting?: ((session: string) => readonly Delivery[]) | undefined;
  /** The channels that keep one message per session (Slack `session-message`). */
  sessionMessageChannels?: (() => readonly string[]) | undefined;
  /**
   * Whether the user is at this machine now (docs/sessions.md#presence), for rules with `presence:
   * auto`; never throws (a reading slower than 1 s, or none, counts as unknown).
   */
  presence?: (() => Promise<Pick<PresenceReading, 'state'>>) | undefined;
  /** Called with a session's state after each of its events (the transcript watcher). */
  onSession?: ((state: SessionState, event: HookEvent) => void) | undefined;
  /** The running escalation ladders of a session, and a call when one starts (to schedule its steps). */
  ladders?: ((session: string) => readonly Ladder[]) | undefined;
  onLadder?: ((ladder: Ladder) => void) | undefined;
  /**
   * The one place where "the user answered" is told (an event of the session answered what waited, or it
   * ended; `hookd ack` calls it too, from the daemon): held notifications are cancelled, ladders stopped
   * and shown ones marked resolved (resolveShown) by then.
   */
  onAnswered?: ((answer: Answered) => void) | undefined;
}

/** One delivery record per channel for a notification. */
export function deliveryRecords(
  now: () => number,
  idBase: string,
  index: number,
  targets: readonly string[],
  notification: RenderedNotification,
  heldUntil?: number,
): JournalRecord[] {
  return deliveriesFor(now(), idBase, index, targets, notification, heldUntil).map((d) => ({ t: 'add', d }));
}

/**
 * The pipeline: event -> ledger hook -> enrichment -> rules (noise, coalescing, quiet hours) ->
 * deliveries in the outbox. Events are processed in order, in batches of 64; an event is marked done
 * in the journal once all its notifications are recorded (a coalesced one when its burst flushes).
 */
export class Pipeline {
  readonly counts: PipelineCounts = { processed: 0, fired: 0, suppressed: 0, coalesced: 0, held: 0 };
  readonly noise: NoiseState;
  readonly sessions: SessionTable;
  /** Events whose coalesced notifications are still in a burst: how many. */
  private readonly outstanding = new Map<string, number>();
  private readonly queue: EventHandoff[] = [];
  private processing: Promise<void> | undefined;
  private stopping = false;
  private readonly coalescer: Coalescer;
  /** "Waiting" deliveries held in the batch being processed (not in the store until it is committed). */
  private readonly batchWaiting = new Map<string, Delivery[]>();
  /** Deliveries marked resolved in the batch being processed. */
  private readonly batchResolved = new Set<string>();
  /** Ladders started in the batch being processed, and ladders it stopped (not committed yet). */
  private readonly batchLadders = new Map<string, Ladder[]>();
  private readonly halting = new Set<string>();
  /** What each session waits for (its last ask), for onAnswered. */
  private readonly asks = new Map<string, WaitingAsk>();

  constructor(private readonly o: PipelineOptions) {
    this.noise = o.noise ?? createNoiseState();
    this.sessions = o.sessions ?? new Map();
    this.coalescer = new Coalescer(
      () => ({
        windowMs: o.notify().noise.coalesceWindowMs,
        maxHoldMs: o.notify().noise.coalesceMaxHoldMs,
      }),
      (burst) => this.flushBurst(burst),
      o.now,
    );
  }

  /** Queues an event (already durable in the journal) for processing. */
  enqueue(handoff: EventHandoff): void {
    this.queue.push(handoff);
    this.processing ??= this.processQueue();
  }

  /** Resolves when the queue is empty (or stopped). */
  async idle(): Promise<void> {
    await this.processing;
  }

  /** Takes no new batch from now on (the daemon is stopping). */
  halt(): void {
    this.stopping = true;
  }

  /** Stops after the batch in flight; returns the events held in bursts (they stay pending). */
  async stop(): Promise<number> {
    this.halt();
    await this.processing;
    return this.coalescer.discard();
  }

  /** Forgets noise state older than the longest window in force. */
  prune(): void {
    pruneNoise(this.noise, this.o.now(), noiseRetentionMs(this.o.notify().noise));
    pruneSessions(this.sessions, this.o.now(), SESSION_ENDED_TTL_MS, SESSION_MAX_AGE_MS);
  }

  /** True while a ladder is stopped by an event whose records are not committed yet. */
  isHalting(ladder: string): boolean {
    return this.halting.has(ladder);
  }

  private quietHold(urgency: Urgency): number | undefined {
    const quietHours = this.o.notify().quietHours;
    const quiet = quietStateAt(this.o.now(), quietHours);
    if (!quiet.quiet || breaksQuietHours(undefined, urgency === 'critical', quietHours)) return undefined;
    return quiet.endsAt;
  }

  /**
   * What an event of session `sid` answers (answer, src/notify/decide.ts, decides): its held "waiting"
   * notifications are cancelled, shown ones marked resolved and its ladders stopped, then onAnswered is
   * told.
   */
  private answer(event: HookEvent, sid: string, at: number, wasWaiting: boolean): JournalRecord[] {
    const { o } = this;
    const by = `${event.name} ${event.id}`;
    const a = answer({
      event,
      held: [...(o.heldWaiting?.(sid) ?? []), ...(this.batchWaiting.get(sid) ?? [])],
      ladders: [...(o.ladders?.(sid) ?? []), ...(this.batchLadders.get(sid) ?? [])].filter(
        (l) => !this.halting.has(l.id),
      ),
      shown: (o.shownWaiting?.(sid) ?? []).filter((d) => !this.batchResolved.has(d.id)),
      lastAsk: this.asks.get(sid),
      wasWaiting,
    });
    const records: JournalRecord[] = [];
    const gone = new Set(a.cancel.map((d) => d.id));
    this.batchWaiting.set(
      sid,
      (this.batchWaiting.get(sid) ?? []).filter((d) => !gone.has(d.id)),
    );
    forgetUnsent(this.noise, a.cancel);
    if (a.cancel.length > 0) {
      records.push({ t: 'cancel', ids: [...gone], at, by });
      o.logger.info(
        { event: event.name, eventId: event.id, sessionId: sid, cancelled: [...gone] },
        'the session moved on: held notifications cancelled',
      );
    }
    const resolve = new Set(a.resolve.map((d) => d.id));
    records.push(...this.resolveShown(sid, by, (d) => resolve.has(d.id)));
    for (const kind of ['answered', 'ended'] as const) {
      for (const l of a.halt[kind]) this.halting.add(l.id);
      records.push(...haltLadders(a.halt[kind], kind, by, at, o.logger));
    }
    const ladderIds = [...a.halt.answered, ...a.halt.ended].map((l) => l.id);
    if (a.how) o.onAnswered?.({ session: sid, how: a.how, by, at, cancelled: [...gone], ladders: ladderIds });
    if (a.ask !== 'keep') this.asks.delete(sid);
    if (a.ask !== 'keep' && a.ask !== 'forget') {
      this.asks.set(sid, a.ask);
      while (this.asks.size > ASKS_MAX) this.asks.delete(this.asks.keys().next().value!);
    }
    return records;
  }

  private async presenceState(): Promise<PresenceState> {
    const probe = this.o.presence;
    if (!probe) return 'unknown';
    let timer: NodeJS.Timeout | undefined;
    try {
      const result = await Promise.race([
        probe(),
        new Promise<Pick<PresenceReading, 'state'>>(
          (resolve) => (timer = setTimeout(() => resolve({ state: 'unknown' }), PRESENCE_BUDGET_MS)),
        ),
      ]);
      return ['active', 'idle'].includes(result?.state) ? result.state : 'unknown';
    } catch {
      return 'unknown';
    } finally {
      clearTimeout(timer);
    }
  }

  private flushBurst(burst: Burst): void {
    const notification = coalescedNotification(burst);
    if (burst.items.length > 1) this.counts.coalesced += burst.items.length;
    const heldUntil = this.quietHold(notification.urgency);
    if (heldUntil !== undefined) this.counts.held++;
    const firstId = burst.items[0]!.notification.eventIds[0]!;
    const records = deliveryRecords(
      this.o.now,
      `${firstId}/burst`,
      burst.index,
      burst.channels,
      notification,
      heldUntil,
    );
    for (const item of burst.items) {
      for (const id of item.notification.eventIds) {
        const left = (this.outstanding.get(id) ?? 1) - 1;
        if (left <= 0) {
          this.outstanding.delete(id);
          records.push({ t: 'done', id });
        } else this.outstanding.set(id, left);
      }
    }
    this.o
      .commit(records)
      .then(() => this.o.wake(burst.channels))
      .catch((error: Error) =>
        this.o.logger.error({ error: error.message }, 'cannot record a coalesced notification'),
      );
  }

  /** The notify config for one event: the user's, or merged with its trusted project file's. */
  private notifyOf(event: HookEvent): NotifyConfig {
    return this.o.notifyFor?.(event) ?? this.o.notify();
  }

  private async enrichWithin(event: HookEvent, notify: NotifyConfig): Promise<Record<string, unknown>> {
    const { enrich } = this.o;
    if (!enrich) return {};
    const { rules } = effectiveRules(notify);
    const wanted = rules.some((rule) => {
      const on = Array.isArray(rule.on) ? rule.on : [rule.on];
      return rule.enabled && (on.includes(event.name) || on.includes('*'));
    });
    if (!wanted || !notify.enabled) return {};
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        enrich(event),
        new Promise<Record<string, unknown>>(
          (resolve) =>
            (timer = setTimeout(() => resolve({}), this.o.enrichBudgetMs ?? ENRICH_DEFAULTS.budgetMs + 250)),
        ),
      ]);
    } catch (error) {
      this.o.logger.warn(
        { event: event.name, eventId: event.id, error: (error as Error).message },
        'enrichment failed; sending without it',
      );
      return {};
    } finally {
      clearTimeout(timer);
    }
  }

  private async processOne(
    handoff: EventHandoff,
    enrichment: Record<string, unknown>,
    notify: NotifyConfig,
  ): Promise<JournalRecord[]> {
    const { o, counts, noise } = this;
    const log = o.logger;
    const event = handoff.event;
    const at = o.now();
    const sid = event.sessionId;
    // The main session's state before the event (a Claude sub-agent's event leaves it as it was).
    const before = sid ? this.sessions.get(sid) : undefined;
    const wasWaiting = before?.phase === 'waiting';
    observeEvent(noise, event, at);
    const moved = observeSession(this.sessions, event, at);
    if (moved) o.onSession?.(moved, event);
    const records: JournalRecord[] = [];
    // Delay-then-cancel, ladders, shown notifications: the user answered, so what waits for it goes.
    if (sid) records.push(...this.answer(event, sid, at, wasWaiting));
    if (o.onEvent) {
      try {
        await o.onEvent(handoff);
      } catch (error) {
        log.error(
          { event: event.name, eventId: event.id, error: (error as Error).message },
          'event hook (ledger) failed',
        );
      }
    }
    const main = sid ? this.sessions.get(sid) : undefined;
    const input: DecideInput = {
      event,
      enrichment,
      results: handoff.results,
      notify,
      noise,
      session: main,
      sessionFailed:
        moved !== undefined && (moved.transition === 'stop-failure' || moved.transition === 'ended-mid-turn'),
      at,
      home: o.home,
      defaultText: o.defaultText,
    };
    let decision = decide(input);
    let presence: PresenceState | undefined;
    if ('needs' in decision) {
      presence = await this.presenceState();
      decision = decide({ ...input, presence }) as Decision;
    }
    const { evaluation } = decision;
    counts.fired += evaluation.fired.length;
    const suppressed = evaluation.skipped.filter(
      (s) => !s.reason.startsWith('filter:') && !s.reason.startsWith('rule disabled'),
    ).length;
    counts.suppressed += suppressed;
    // Suppressed notifications (dedupe, cooldown, a duplicate permission ask, a held Stop) are logged too.
    if (evaluation.fired.length > 0 || suppressed > 0 || log.isLevelEnabled('debug')) {
      log.info(
        {
          event: event.name,
          eventId: event.id,
          ...(event.sessionId ? { sessionId: event.sessionId } : {}),
          fired: evaluation.fired.map((f) => f.rule),
          skipped: evaluation.skipped.map((s) => `${s.rule}: ${s.reason}`),
        },
        'rules evaluated',
      );
    }
    const held = this.applyEffects(decision, sid, event, at, records);
    if (decision.presenceNotes.length > 0)
      log.info(
        { event: event.name, eventId: event.id, sessionId: sid, presence, applied: decision.presenceNotes },
        'presence applied',
      );
    if (sid && main)
      records.push(...this.sessionMessageRecords(event, before, main, evaluation.fired, enrichment));
    // hookd's own notices (an untrusted project file, a broken config) go to the desktop as they are.
    (handoff.notices ?? []).forEach((notice, i) => {
      records.push(
        ...deliveryRecords(o.now, `${event.id}/notice`, i, ['desktop'], {
          title: notice.title,
          body: notice.body,
          urgency: 'normal',
          rule: 'hookd-config',
          event: event.name,
          eventIds: [event.id],
          count: 1,
          at,
          fields: [],
        }),
      );
    });
    if (held > 0) this.outstanding.set(event.id, held);
    else records.push({ t: 'done', id: event.id });
    counts.processed++;
    return records;
  }

  /**
   * Applies what the notify core decided for one event: the noise memory, ladders, held and sent
   * deliveries (as journal records, committed with the batch) and bursts. Returns how many notifications
   * wait in a burst.
   */
  private applyEffects(
    decision: Decision,
    sid: string | undefined,
    event: HookEvent,
    at: number,
    records: JournalRecord[],
  ): number {
    const { o, counts } = this;
    let inBurst = 0;
    for (const effect of decision.effects) {
      switch (effect.t) {
        case 'remember':
          recordSent(this.noise, effect.sent, at);
          o.noiseChanged?.();
          break;
        case 'escalate': {
          const l = effect.ladder;
          records.push({ t: 'ladder', l });
          this.batchLadders.set(l.session, [...(this.batchLadders.get(l.session) ?? []), l]);
          o.logger.info(
            { ladder: l.id, rule: l.rule, sessionId: sid, eventId: event.id, steps: describeLadder(l.steps) },
            'escalation ladder started',
          );
          o.onLadder?.(l);
          break;
        }
        case 'hold':
          this.batchWaiting.set(effect.session, [
            ...(this.batchWaiting.get(effect.session) ?? []),
            ...effect.deliveries,
          ]);
          records.push(...effect.deliveries.map((d): JournalRecord => ({ t: 'add', d })));
          o.onHeld?.(effect.until);
          break;
        case 'coalesce':
          this.coalescer.add(effect.fired);
          inBurst++;
          break;
        case 'send':
          if (effect.deferred) counts.held++;
          records.push(...effect.deliveries.map((d): JournalRecord => ({ t: 'add', d })));
          break;
      }
    }
    return inBurst;
  }

  /**
   * The session was answered (it moved on, or someone acknowledged it): its "waiting" notifications
   * already shown get a `resolved` delivery on their channel, which marks them resolved where it can
   * (docs/sessions.md, "Resolved notifications"). Returns the records to commit; best-effort.
   */
  resolveShown(session: string, by: string, answers: (d: Delivery) => boolean = () => true): JournalRecord[] {
    const at = this.o.now();
    const shown = (this.o.shownWaiting?.(session) ?? []).filter(
      (d) => !this.batchResolved.has(d.id) && answers(d),
    );
    const records: JournalRecord[] = [];
    for (const d of shown) {
      this.batchResolved.add(d.id);
      const resolved: Delivery = {
        id: resolvedId(d.id),
        channel: d.channel,
        notification: {
          ...d.notification,
          kind: 'resolved',
          resolves: { deliveryId: d.id, ref: d.ref!, by },
          at,
        },
        createdAt: at,
        state: 'pending',
        attempts: 0,
        nextAt: at,
      };
      records.push({ t: 'add', d: resolved });
    }
    if (records.length > 0)
      this.o.logger.info(
        { sessionId: session, by, resolved: shown.map((d) => d.id) },
        'the session was answered: shown notifications marked resolved',
      );
    return records;
  }

  /**
   * One message per session: the channels that keep one learn of each change of the session's state (an
   * update), and of the end of its work (a summary in the message's thread). A channel keeps a message
   * for a session from the first rule notification of that session it is sent.
   */
  private sessionMessageRecords(
    event: HookEvent,
    before: SessionState | undefined,
    state: SessionState,
    fired: readonly FiredRule[],
    enrichment: Record<string, unknown>,
  ): JournalRecord[] {
    const names = this.o.sessionMessageChannels?.() ?? [];
    if (names.length === 0 || !event.sessionId) return [];
    const firedTo = new Set(fired.flatMap((f) => f.channels));
    const had = new Set(state.messageChannels ?? []);
    const newly = names.filter((n) => firedTo.has(n) && !had.has(n));
    if (newly.length > 0) {
      this.sessions.set(state.id, { ...state, messageChannels: [...had, ...newly].slice(-32) });
      this.o.noiseChanged?.();
    }
    const known = names.filter((n) => had.has(n));
    const at = this.o.now();
    const projectDir = projectDirOf(event);
    const about = {
      name: event.name,
      id: event.id,
      sessionId: event.sessionId,
      project: projectDir ? folderName(projectDir) : undefined,
      cwd: event.cwd,
    };
    const records: JournalRecord[] = [];
    const updateTo = known.filter((n) => !firedTo.has(n));
    if (updateTo.length > 0 && messageStateChanged(before, state)) {
      const answered = before?.phase === 'waiting' && userMovedOn(event);
      const update = sessionUpdateNotification(about, state, at, answered ? event.name : undefined);
      records.push(...deliveryRecords(this.o.now, `${event.id}/session`, 0, updateTo, update));
    }
    const summaryTo = [...known, ...newly];
    if (summaryTo.length > 0 && sessionFinished(before, state)) {
      const summary = sessionSummaryNotification(about, state, enrichment, at);
      records.push(...deliveryRecords(this.o.now, `${event.id}/summary`, 0, summaryTo, summary));
    }
    return records;
  }

  /** The cancel record of a session's held "waiting" notifications (none: no record), logged. */
  private cancelHeld(sid: string, at: number, by: string, why: Record<string, unknown>): JournalRecord[] {
    const { noise } = this;
    const cancelled = [...(this.o.heldWaiting?.(sid) ?? []), ...(this.batchWaiting.get(sid) ?? [])];
    this.batchWaiting.delete(sid);
    const ids = cancelled.map((d) => d.id);
    forgetUnsent(noise, cancelled);
    if (ids.length === 0) return [];
    this.o.logger.info(
      { ...why, sessionId: sid, cancelled: ids },
      'the session moved on: held notifications cancelled',
    );
    return [{ t: 'cancel', ids, at, by }];
  }

  /**
   * A record read from a session's transcript that no hook reported (docs/sessions.md): the session's
   * state moves (`transcript-interrupt`, `transcript-turn-end`, `transcript-turn-failed`), its held
   * "waiting" notifications are cancelled and those already shown marked resolved. Runs after the events
   * already queued (Droid hands its Stop over before it writes the turn's outcome).
   */
  async transcriptSignal(sessionId: string, signal: TranscriptSignal): Promise<void> {
    await this.idle();
    const before = this.sessions.get(sessionId);
    if (!before || this.stopping) return;
    const at = this.o.now();
    const next = transcriptTransition(before, signal, at);
    const moved = next !== before;
    if (moved) {
      this.sessions.delete(sessionId);
      this.sessions.set(sessionId, next);
      this.o.logger.info(
        { sessionId, transition: next.transition, phase: next.phase, detail: signal.detail.slice(0, 200) },
        'session state moved by its transcript',
      );
      this.o.noiseChanged?.();
    }
    // An interrupt ends any ask, even of a session already done or ended by the time it is read.
    if (!moved && signal.kind !== 'interrupt') return;
    const by = `transcript-${signal.kind}`;
    // The turn ended or was interrupted: the ask is gone, and so are the session's ladders.
    const ladders = (this.o.ladders?.(sessionId) ?? []).filter((l) => !this.halting.has(l.id));
    const records = [
      ...this.cancelHeld(sessionId, at, by, { transition: by }),
      ...this.resolveShown(sessionId, by),
      ...haltLadders(ladders, 'ended', by, at, this.o.logger),
      ...(moved ? this.transcriptMessageRecords(before, next, at) : []),
    ];
    if (records.length > 0) {
      await this.o.commit(records);
      this.o.wake(records.flatMap((r) => (r.t === 'add' ? [r.d.channel] : [])));
    }
  }

  /**
   * The session's own messages (Slack `session-message`) follow a move read from its transcript too:
   * an update of the state, and the summary in the thread when the turn ended there.
   */
  private transcriptMessageRecords(before: SessionState, next: SessionState, at: number): JournalRecord[] {
    const names = new Set(this.o.sessionMessageChannels?.() ?? []);
    const known = (next.messageChannels ?? []).filter((n) => names.has(n));
    if (known.length === 0) return [];
    const key = `${next.id}/transcript/${at}`;
    const about = {
      name: next.transition,
      id: key,
      sessionId: next.id,
      project: next.cwd ? folderName(next.cwd) : undefined,
      cwd: next.cwd,
    };
    const records: JournalRecord[] = [];
    if (messageStateChanged(before, next)) {
      const update = sessionUpdateNotification(about, next, at, undefined);
      records.push(...deliveryRecords(this.o.now, `${key}/session`, 0, known, update));
    }
    if (sessionFinished(before, next)) {
      const summary = sessionSummaryNotification(about, next, {}, at);
      records.push(...deliveryRecords(this.o.now, `${key}/summary`, 0, known, summary));
    }
    return records;
  }

  private async processQueue(): Promise<void> {
    while (this.queue.length > 0 && !this.stopping) {
      const batch = this.queue.splice(0, 64);
      // One lookup of each event's notify config (a project file's stat) for its enrichment and rules.
      const notifies = batch.map((h) => this.notifyOf(h.event));
      const enrichments = await Promise.all(batch.map((h, i) => this.enrichWithin(h.event, notifies[i]!)));
      const records: JournalRecord[] = [];
      const touched = new Set<string>();
      for (let i = 0; i < batch.length; i++) {
        const out = await this.processOne(batch[i]!, enrichments[i]!, notifies[i]!);
        for (const r of out) if (r.t === 'add') touched.add(r.d.channel);
        records.push(...out);
      }
      this.batchWaiting.clear();
      this.batchResolved.clear();
      this.batchLadders.clear();
      try {
        await this.o.commit(records);
      } catch (error) {
        this.o.logger.error(
          { error: (error as Error).message },
          'cannot record processed events; they stay pending',
        );
      }
      this.halting.clear();
      this.o.wake(touched);
    }
    this.processing = undefined;
  }
}

import type { Logger } from 'pino';
import type { EventHandoff, HookEvent } from '../events/types.js';
import type { NotifyConfig } from '../config/schemas/notify-schema.js';
import { ENRICH_DEFAULTS } from '../config/schemas/enrich-schema.js';
import { Coalescer, type Burst } from '../notify/coalescer.js';
import {
  createNoiseState,
  noiseRetentionMs,
  forgetUnsent,
  observeEvent,
  pruneNoise,
  recordSent,
  type NoiseState,
} from '../notify/noise.js';
import {
  answer,
  decide,
  flushBurst,
  transcriptMove,
  wantsEnrichment,
  type Decision,
  type DecideInput,
} from '../notify/decide.js';
import {
  observeSession,
  pruneSessions,
  SESSION_ENDED_TTL_MS,
  SESSION_MAX_AGE_MS,
  type SessionTable,
} from '../notify/session-state.js';
import { describeLadder, type PresenceState, type WaitingAsk } from '../notify/escalation.js';
import type { TranscriptSignal } from '../notify/transcript-signals.js';
import type { DefaultText } from '../notify/notification.js';
import { resolvedDeliveries } from '../notify/records.js';
import type { SessionState } from '../notify/session-state.js';
import type { PresenceReading } from '../notify/presence.js';
import type { DaemonStore, Delivery, JournalRecord, Ladder } from './store.js';
import { haltLadders, type Answered } from './escalator.js';
import { within } from '../util/within.js';

/** How long the daemon waits for a presence reading before it counts as unknown. */
export const PRESENCE_BUDGET_MS = 1000;
const ASKS_MAX = 2000;

/** What the notify side counts, for `hookd status`. */
export interface NotifyCounts {
  processed: number;
  fired: number;
  suppressed: number;
  coalesced: number;
  held: number;
}

export interface ApplyNotifyOptions {
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
  /** What the journal holds for a session: held and shown "waiting" deliveries, running ladders. */
  store?: Pick<DaemonStore, 'heldWaiting' | 'shownWaiting' | 'laddersOf'> | undefined;
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
  /** Called when a "waiting" notification is held until a time (to release it then). */
  onHeld?: ((until: number) => void) | undefined;
  /** The channels that keep one message per session (Slack `session-message`). */
  sessionMessageChannels?: (() => readonly string[]) | undefined;
  /**
   * Whether the user is at this machine now (docs/sessions.md#presence), for rules with `presence:
   * auto`; never throws (a reading slower than 1 s, or none, counts as unknown).
   */
  presence?: (() => Promise<Pick<PresenceReading, 'state'>>) | undefined;
  /** Called with a session's state after each of its events (the transcript watcher). */
  onSession?: ((state: SessionState, event: HookEvent) => void) | undefined;
  /** Called when a ladder starts (to schedule its steps). */
  onLadder?: ((ladder: Ladder) => void) | undefined;
  /**
   * The one place where "the user answered" is told (an event of the session answered what waited, or it
   * ended; `hookd ack` calls it too, from the daemon): held notifications are cancelled, ladders stopped
   * and shown ones marked resolved (resolveShown) by then.
   */
  onAnswered?: ((answer: Answered) => void) | undefined;
}

const adds = (deliveries: readonly Delivery[]): JournalRecord[] => deliveries.map((d) => ({ t: 'add', d }));

/**
 * Applies what the notify core (src/notify/decide.ts) decides: event -> ledger hook -> enrichment ->
 * decide -> journal records, the noise memory, bursts and timers, then wakes the outbox. Events are
 * processed in order, in batches of 64; an event is marked done in the journal once all its notifications
 * are recorded (a coalesced one when its burst flushes).
 */
export class NotifyApplier {
  readonly counts: NotifyCounts = { processed: 0, fired: 0, suppressed: 0, coalesced: 0, held: 0 };
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

  constructor(private readonly o: ApplyNotifyOptions) {
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

  private held(sid: string): Delivery[] {
    return [...(this.o.store?.heldWaiting(sid) ?? []), ...(this.batchWaiting.get(sid) ?? [])];
  }

  private ladders(sid: string, batch: boolean): Ladder[] {
    const running = [
      ...(this.o.store?.laddersOf(sid) ?? []),
      ...(batch ? (this.batchLadders.get(sid) ?? []) : []),
    ];
    return running.filter((l) => !this.halting.has(l.id));
  }

  /** The cancel record of held deliveries (their dedupe and cooldown keys forgotten: nothing was sent). */
  private cancel(
    sid: string,
    cancelled: readonly Delivery[],
    at: number,
    by: string,
    why: object,
  ): JournalRecord[] {
    const gone = new Set(cancelled.map((d) => d.id));
    const kept = (this.batchWaiting.get(sid) ?? []).filter((d) => !gone.has(d.id));
    if (kept.length > 0) this.batchWaiting.set(sid, kept);
    else this.batchWaiting.delete(sid);
    forgetUnsent(this.noise, cancelled);
    if (gone.size === 0) return [];
    this.o.logger.info(
      { ...why, sessionId: sid, cancelled: [...gone] },
      'the session moved on: held notifications cancelled',
    );
    return [{ t: 'cancel', ids: [...gone], at, by }];
  }

  /**
   * Applies what an event of session `sid` answers (answer() decides): its held "waiting" notifications
   * cancelled, shown ones marked resolved and its ladders stopped, then onAnswered is told.
   */
  private applyAnswer(event: HookEvent, sid: string, at: number, wasWaiting: boolean): JournalRecord[] {
    const { o } = this;
    const by = `${event.name} ${event.id}`;
    const a = answer({
      event,
      held: this.held(sid),
      ladders: this.ladders(sid, true),
      shown: (o.store?.shownWaiting(sid) ?? []).filter((d) => !this.batchResolved.has(d.id)),
      lastAsk: this.asks.get(sid),
      wasWaiting,
    });
    const records = this.cancel(sid, a.cancel, at, by, { event: event.name, eventId: event.id });
    const resolve = new Set(a.resolve.map((d) => d.id));
    records.push(...this.resolveShown(sid, by, (d) => resolve.has(d.id)));
    for (const kind of ['answered', 'ended'] as const) {
      for (const l of a.halt[kind]) this.halting.add(l.id);
      records.push(...haltLadders(a.halt[kind], kind, by, at, o.logger));
    }
    const ladderIds = [...a.halt.answered, ...a.halt.ended].map((l) => l.id);
    const cancelled = a.cancel.map((d) => d.id);
    if (a.how) o.onAnswered?.({ session: sid, how: a.how, by, at, cancelled, ladders: ladderIds });
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
    try {
      const result = await within(probe(), PRESENCE_BUDGET_MS, { state: 'unknown' as const });
      return ['active', 'idle'].includes(result?.state) ? result.state : 'unknown';
    } catch {
      return 'unknown';
    }
  }

  private flushBurst(burst: Burst): void {
    const { deliveries, held } = flushBurst(burst, this.o.notify(), this.o.now());
    if (burst.items.length > 1) this.counts.coalesced += burst.items.length;
    if (held) this.counts.held++;
    const records = adds(deliveries);
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
    if (!enrich || !wantsEnrichment(event, notify)) return {};
    const failed = (error: unknown) => {
      this.o.logger.warn(
        { event: event.name, eventId: event.id, error: (error as Error).message },
        'enrichment failed; sending without it',
      );
      return {};
    };
    try {
      const budget = this.o.enrichBudgetMs ?? ENRICH_DEFAULTS.budgetMs + 250;
      return await within(enrich(event).catch(failed), budget, {});
    } catch (error) {
      return failed(error);
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
    observeEvent(noise, event, at);
    const moved = observeSession(this.sessions, event, at);
    if (moved) o.onSession?.(moved, event);
    // Delay-then-cancel, ladders, shown notifications: the user answered, so what waits for it goes.
    const records = sid ? this.applyAnswer(event, sid, at, before?.phase === 'waiting') : [];
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
    const input: DecideInput = {
      event,
      enrichment,
      results: handoff.results,
      notify,
      noise,
      session: sid ? this.sessions.get(sid) : undefined,
      before,
      messageChannels: o.sessionMessageChannels?.(),
      notices: handoff.notices,
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
    counts.suppressed += decision.suppressed;
    // Suppressed notifications (dedupe, cooldown, a duplicate permission ask, a held Stop) are logged too.
    if (evaluation.fired.length > 0 || decision.suppressed > 0 || log.isLevelEnabled('debug')) {
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
    const inBurst = this.applyEffects(decision, event, at, records);
    if (decision.presenceNotes.length > 0)
      log.info(
        { event: event.name, eventId: event.id, sessionId: sid, presence, applied: decision.presenceNotes },
        'presence applied',
      );
    if (inBurst > 0) this.outstanding.set(event.id, inBurst);
    else records.push({ t: 'done', id: event.id });
    counts.processed++;
    return records;
  }

  /**
   * Applies the effects of one event's decision: the noise memory, the sessions' message channels,
   * ladders, held and sent deliveries (as journal records, committed with the batch) and bursts. Returns
   * how many notifications wait in a burst.
   */
  private applyEffects(decision: Decision, event: HookEvent, at: number, records: JournalRecord[]): number {
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
            {
              ladder: l.id,
              rule: l.rule,
              sessionId: l.session,
              eventId: event.id,
              steps: describeLadder(l.steps),
            },
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
          records.push(...adds(effect.deliveries));
          o.onHeld?.(effect.until);
          break;
        case 'coalesce':
          this.coalescer.add(effect.fired);
          inBurst++;
          break;
        case 'send':
          if (effect.deferred) counts.held++;
          records.push(...adds(effect.deliveries));
          break;
        case 'message': {
          const state = this.sessions.get(effect.session);
          if (state) this.sessions.set(effect.session, { ...state, messageChannels: effect.channels });
          o.noiseChanged?.();
          break;
        }
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
    const shown = (this.o.store?.shownWaiting(session) ?? []).filter(
      (d) => !this.batchResolved.has(d.id) && answers(d),
    );
    return this.resolved(session, by, resolvedDeliveries(shown, by, this.o.now()));
  }

  private resolved(session: string, by: string, deliveries: readonly Delivery[]): JournalRecord[] {
    if (deliveries.length === 0) return [];
    const ids = deliveries.map((d) => d.notification.resolves!.deliveryId);
    for (const id of ids) this.batchResolved.add(id);
    this.o.logger.info(
      { sessionId: session, by, resolved: ids },
      'the session was answered: shown notifications marked resolved',
    );
    return adds(deliveries);
  }

  /**
   * A record read from a session's transcript that no hook reported: applies what transcriptMove()
   * decides (the session's state, held notifications cancelled, shown ones resolved, ladders stopped, its
   * message). Runs after the events already queued (Droid hands its Stop over before it writes the turn's
   * outcome).
   */
  async transcriptSignal(sessionId: string, signal: TranscriptSignal): Promise<void> {
    await this.idle();
    const before = this.sessions.get(sessionId);
    if (!before || this.stopping) return;
    const at = this.o.now();
    const m = transcriptMove({
      state: before,
      signal,
      held: this.held(sessionId),
      shown: (this.o.store?.shownWaiting(sessionId) ?? []).filter((d) => !this.batchResolved.has(d.id)),
      ladders: this.ladders(sessionId, false),
      messageChannels: this.o.sessionMessageChannels?.() ?? [],
      at,
    });
    if (!m) return;
    if (m.state) {
      this.sessions.delete(sessionId);
      this.sessions.set(sessionId, m.state);
      this.o.logger.info(
        {
          sessionId,
          transition: m.state.transition,
          phase: m.state.phase,
          detail: signal.detail.slice(0, 200),
        },
        'session state moved by its transcript',
      );
      this.o.noiseChanged?.();
    }
    const records = [
      ...this.cancel(sessionId, m.cancel, at, m.by, { transition: m.by }),
      ...this.resolved(sessionId, m.by, m.resolved),
      ...haltLadders(m.halt, 'ended', m.by, at, this.o.logger),
      ...adds(m.messages),
    ];
    if (records.length > 0) {
      await this.o.commit(records);
      this.o.wake(records.flatMap((r) => (r.t === 'add' ? [r.d.channel] : [])));
    }
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

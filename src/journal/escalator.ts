import type { Logger } from 'pino';
import type { NotifyConfig } from '../config/schemas/notify-schema.js';
import { describeLadder, firingsOf, nextDueAt } from '../notify/escalation.js';
import { ladderTick } from '../notify/escalate.js';
import { formatDuration } from '../util/text/format-duration.js';
import { quietStateAt } from '../notify/quiet-hours.js';
import type { DaemonStore, Delivery, JournalRecord, Ladder, LadderEnd } from './store.js';

/**
 * Runs the escalation ladders (docs/sessions.md#escalation-ladders): at each tick, the steps that are
 * due go to the outbox, each sending with its own delivery id (`<ladder>/esc<step>.<repeat>/<channel>`)
 * and its progress in the same journal write, so a restart resumes the ladder and sends nothing twice.
 */

/** How the session was answered, for the ones who react to it (s3: resolve what was shown). */
export interface Answered {
  session: string;
  how: Exclude<LadderEnd, 'done' | 'limit'>;
  /** The event (`<name> <id>`) or `hookd ack`. */
  by: string;
  at: number;
  /** Held deliveries cancelled, ladders stopped. */
  cancelled: string[];
  ladders: string[];
}

export interface EscalatorOptions {
  store: Pick<DaemonStore, 'ladders'>;
  notify: () => NotifyConfig;
  commit: (records: JournalRecord[]) => Promise<void>;
  wake: (channels: Iterable<string>) => void;
  now: () => number;
  logger: Logger;
  /** Ladders answered by an event whose records are not committed yet: not escalated meanwhile. */
  answering?: (id: string) => boolean;
}

/** The records that stop ladders, and their log line. */
export function haltLadders(
  ladders: readonly Ladder[],
  end: LadderEnd,
  by: string,
  at: number,
  logger: Pick<Logger, 'info'>,
): JournalRecord[] {
  if (ladders.length === 0) return [];
  for (const l of ladders)
    logger.info(
      { ladder: l.id, rule: l.rule, sessionId: l.session, end, by, progress: l.progress },
      `escalation stopped: ${end === 'answered' ? `answered (${by})` : end === 'acked' ? 'acknowledged (hookd ack)' : end === 'ended' ? `ended (${by}): the turn or the session ended` : end}`,
    );
  return [{ t: 'halt', ids: ladders.map((l) => l.id), at, end, by }];
}

export class Escalator {
  private timer: NodeJS.Timeout | undefined;
  private timerAt: number | undefined;
  private ticking: Promise<void> | undefined;
  private closed = false;
  /** Ladders whose quiet-hours hold was logged (once each). */
  private readonly quietLogged = new Set<string>();
  readonly counts = { escalated: 0 };

  constructor(private readonly o: EscalatorOptions) {}

  /** Sends what is due now; then sleeps until the next step (the daemon's housekeeping ticks too). */
  tick(): Promise<void> {
    this.ticking ??= this.run().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  /** Stops waking; resolves once a tick in flight has recorded what it sent. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.ticking;
  }

  private async run(): Promise<void> {
    const { o } = this;
    if (this.closed) return;
    const now = o.now();
    const quiet = quietStateAt(now, o.notify().quietHours);
    const records: JournalRecord[] = [];
    const channels = new Set<string>();
    const done: Ladder[] = [];
    let next: number | undefined;
    for (const l of [...o.store.ladders.values()]) {
      if (o.answering?.(l.id)) continue;
      const tick = ladderTick(l, quiet, now);
      if (tick.heldUntil !== undefined && !this.quietLogged.has(l.id)) {
        this.quietLogged.add(l.id);
        o.logger.info(
          { ladder: l.id, rule: l.rule, sessionId: l.session, until: tick.heldUntil },
          'escalation held by quiet hours',
        );
      }
      for (const { due: d, channels: to, deliveries } of tick.sent) {
        for (const delivery of deliveries) {
          records.push({ t: 'add', d: delivery });
          channels.add(delivery.channel);
        }
        records.push({ t: 'step', id: l.id, step: d.step, sent: d.sent, at: now });
        this.counts.escalated++;
        o.logger.info(
          {
            ladder: l.id,
            rule: l.rule,
            sessionId: l.session,
            step: d.step + 1,
            repeat: d.repeat,
            ...(d.skipped > 0 ? { skipped: d.skipped } : {}),
            channels: to,
          },
          `escalated: step ${d.step + 1}${d.repeat > 0 ? ` reminder ${d.repeat}` : ''} to ${to.join(', ')}`,
        );
      }
      if (tick.next === undefined) done.push(l);
      else next = Math.min(next ?? Infinity, tick.next);
    }
    records.push(...haltLadders(done, 'done', 'every step sent', now, o.logger));
    if (records.length > 0) {
      try {
        await o.commit(records);
        o.wake(channels);
      } catch (error) {
        o.logger.error({ error: (error as Error).message }, 'cannot record an escalation step; retried');
        next = now + 1000;
      }
    }
    for (const id of this.quietLogged) if (!o.store.ladders.has(id)) this.quietLogged.delete(id);
    this.schedule(next);
  }

  /** Wakes at `at`, unless a wake-up is set for sooner. */
  schedule(at: number | undefined): void {
    if (this.closed || at === undefined) return;
    if (this.timer !== undefined && this.timerAt !== undefined && this.timerAt <= at) return;
    clearTimeout(this.timer);
    const ms = Math.min(Math.max(0, at - this.o.now()), 2 ** 31 - 1);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = this.timerAt = undefined;
      void this.tick();
    }, ms);
    this.timer.unref?.();
  }
}

/** What `hookd ack` asks: one session (an id or a unique prefix), every waiting one, or the most recent. */
export interface AckRequest {
  session?: string;
  all?: boolean;
}

export interface AckedSession {
  session: string;
  /** When it started waiting (the latest of its notifications). */
  since: number;
  title?: string;
  project?: string;
  ladders: string[];
  cancelled: string[];
}

export interface AckPlan {
  records: JournalRecord[];
  acked: AckedSession[];
  /** Sessions still waiting after this ack. */
  stillWaiting: AckedSession[];
  /** Why nothing was acknowledged (no match, an ambiguous prefix). */
  problem?: string;
}

/** The sessions with something waiting: running ladders and held "waiting" notifications. */
export function waitingSessions(store: Pick<DaemonStore, 'ladders' | 'deliveries'>): AckedSession[] {
  const bySession = new Map<string, AckedSession>();
  const entry = (session: string, at: number, n: Delivery['notification']) => {
    let s = bySession.get(session);
    if (!s) bySession.set(session, (s = { session, since: at, ladders: [], cancelled: [] }));
    if (at >= s.since || s.title === undefined) {
      s.since = Math.max(s.since, at);
      s.title = n.title;
      if (n.project) s.project = n.project;
    }
    return s;
  };
  for (const l of store.ladders.values()) entry(l.session, l.startedAt, l.notification).ladders.push(l.id);
  for (const d of store.deliveries.values())
    if (d.state === 'held' && d.waiting)
      entry(d.waiting.session, d.createdAt, d.notification).cancelled.push(d.id);
  return [...bySession.values()].sort((a, b) => b.since - a.since);
}

/** What an ack does to the store: which ladders stop and which held notifications are cancelled. */
export function ackPlan(
  store: Pick<DaemonStore, 'ladders' | 'deliveries'>,
  request: AckRequest,
  now: number,
): AckPlan {
  const waiting = waitingSessions(store);
  let acked: AckedSession[];
  if (request.all) acked = waiting;
  else if (request.session) {
    const exact = waiting.filter((s) => s.session === request.session);
    acked = exact.length > 0 ? exact : waiting.filter((s) => s.session.startsWith(request.session!));
    if (acked.length > 1)
      return {
        records: [],
        acked: [],
        stillWaiting: waiting,
        problem: `"${request.session}" matches ${acked.length} waiting sessions: give more of the id`,
      };
    if (acked.length === 0)
      return {
        records: [],
        acked: [],
        stillWaiting: waiting,
        problem: `nothing waits for an answer in session ${request.session}`,
      };
  } else acked = waiting.slice(0, 1);
  const ladderIds = acked.flatMap((s) => s.ladders);
  const cancelIds = acked.flatMap((s) => s.cancelled);
  const records: JournalRecord[] = [];
  if (ladderIds.length > 0)
    records.push({ t: 'halt', ids: ladderIds, at: now, end: 'acked', by: 'hookd ack' });
  if (cancelIds.length > 0) records.push({ t: 'cancel', ids: cancelIds, at: now, by: 'hookd ack' });
  const done = new Set(acked.map((s) => s.session));
  return { records, acked, stillWaiting: waiting.filter((s) => !done.has(s.session)) };
}

/** One line per ladder for people (explain, outbox list). */
export function describeLadderState(l: Ladder, now: number): string {
  const head = `${l.rule}: ${describeLadder(l.steps)}${l.presence ? ` [${l.presence}]` : ''}`;
  if (l.end)
    return `${head} — stopped ${l.end === 'acked' ? 'by hookd ack' : `(${l.end}: ${l.endedBy ?? '-'})`}`;
  const next = nextDueAt(l.steps, l.startedAt, l.progress);
  const sent = l.progress.reduce((a, b) => a + b, 0);
  const total = l.steps.reduce((a, step) => a + firingsOf(step), 0);
  return `${head} — ${sent} of ${total} sent${next !== undefined ? `, next in ${formatDuration(Math.max(0, next - now))}` : ''}`;
}

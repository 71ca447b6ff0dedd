import type { EventHandoff } from '../events/types.js';

export type {
  DeliveryState,
  WaitingHold,
  LadderEnd,
  Ladder,
  EscalationMark,
  Delivery,
} from '../notify/records.js';
import type { Delivery, Ladder, LadderEnd } from '../notify/records.js';
import { resolvedId } from '../notify/records.js';
export { resolvedId };
import { BoundedIds } from './bounded-ids.js';

/** The journal's records. Applying one twice has the same effect as once. */
export type JournalRecord =
  | { t: 'in'; at: number; h: EventHandoff }
  | { t: 'done'; id: string }
  | { t: 'add'; d: Delivery }
  | { t: 'fail'; id: string; attempts: number; nextAt: number; error: string }
  | { t: 'ok'; id: string; at: number; ref?: string }
  | { t: 'dead'; id: string; at: number; error: string }
  | { t: 'retry'; id: string; at: number }
  | { t: 'purge'; id: string }
  | { t: 'release'; ids: string[]; at: number }
  | { t: 'unhold'; ids: string[]; at: number }
  | { t: 'cancel'; ids: string[]; at: number; by: string }
  | { t: 'ladder'; l: Ladder }
  | { t: 'step'; id: string; step: number; sent: number; at: number }
  | { t: 'halt'; ids: string[]; at: number; end: LadderEnd; by: string }
  | { t: 'thread'; k: string; ts: string }
  | { t: 'seen'; ids: string[] }
  | { t: 'delivered'; ids: string[] };

/** The last few delivered, cancelled and stopped: at most this many of each... */
export const RECENT_MAX = 200;
/** ...and at most this many characters of each list (a notification's text, fields, ids). */
export const RECENT_MAX_CHARS = 400_000;
/** A channel's reference to what it showed (a desktop id, a Slack channel and ts) is short; longer is not kept. */
export const REF_MAX = 200;

/**
 * Dead letters kept (for `hookd outbox list --state dead` and `retry`): the oldest beyond this are
 * dropped, so a channel that can never deliver (no notify-send) does not grow the daemon without bound.
 */
export const DEAD_MAX = 1000;
/** The characters of every dead letter kept, in all: past it the oldest go too. */
export const DEAD_MAX_CHARS = 2_000_000;
/** Ids of delivered, cancelled or dropped deliveries (and of stopped ladders) kept so a replay skips them. */
export const DELIVERED_IDS_MAX = 50_000;
/**
 * Every set of remembered ids holds at most this many characters per id of its count limit on average:
 * ids of the longest allowed length make it keep fewer of them, never more memory.
 */
export const ID_CHARS_AVG = 96;
/** Slack threads and session messages remembered (key: channel and session; value: the message's ts). */
export const THREADS_MAX = 5000;
/** A thread's key or reference longer than this is not kept. */
export const THREAD_KEY_MAX = 1000;
/** Ladders running at once: beyond it the oldest stops (`limit`). */
export const LADDERS_MAX = 1000;

/**
 * About how many characters a delivery holds: the text and ids that make up nearly all of its size.
 * Exact byte counts would cost a serialisation per delivery; this is what the character limits count.
 */
export function deliveryChars(d: Delivery): number {
  const n = d.notification;
  let chars = 200 + d.id.length + d.channel.length + n.title.length + n.body.length + n.rule.length;
  chars +=
    (d.lastError?.length ?? 0) + (d.ref?.length ?? 0) + (n.cwd?.length ?? 0) + (n.project?.length ?? 0);
  for (const id of n.eventIds) chars += id.length;
  for (const f of n.fields) chars += f.label.length + f.value.length;
  return chars;
}

/** Appends to a recent list, then drops its oldest past RECENT_MAX items or RECENT_MAX_CHARS. */
function keepRecent<T>(list: T[], item: T, chars: (item: T) => number): void {
  list.push(item);
  if (list.length > RECENT_MAX) list.shift();
  let total = 0;
  for (const kept of list) total += chars(kept);
  while (total > RECENT_MAX_CHARS && list.length > 1) total -= chars(list.shift()!);
}

function ladderChars(l: Ladder): number {
  return JSON.stringify(l).length;
}

/** The daemon's durable state, rebuilt from the journal at start and updated as records are appended. */
export class DaemonStore {
  /** Event ids received (idempotency keys): the last `seenMax`, at most ID_CHARS_AVG characters each. */
  readonly seen: BoundedIds;
  /** Received and not yet fully processed, in arrival order. */
  readonly pendingEvents = new Map<string, EventHandoff>();
  /** Pending, held and dead deliveries. Delivered ones leave (only their ids and the last few stay). */
  readonly deliveries = new Map<string, Delivery>();
  readonly deliveredIds = new BoundedIds(DELIVERED_IDS_MAX, DELIVERED_IDS_MAX * ID_CHARS_AVG);
  readonly recentDelivered: Delivery[] = [];
  /** The last few held "waiting" notifications cancelled because the session moved on. */
  readonly recentCancelled: Delivery[] = [];
  readonly threads = new Map<string, string>();
  /** Escalation ladders running, oldest first, and the last few stopped ones. */
  readonly ladders = new Map<string, Ladder>();
  readonly recentLadders: Ladder[] = [];
  /** Ids of every ladder ever stopped (bounded): a replayed "ladder" record does not start it again. */
  private readonly haltedLadders = new BoundedIds(DELIVERED_IDS_MAX, DELIVERED_IDS_MAX * ID_CHARS_AVG);
  /** Per channel, the ids of its pending deliveries in order. */
  private readonly queues = new Map<string, Set<string>>();
  /** Ids of dead deliveries, oldest first, with the characters each held when it died. */
  private readonly dead = new Map<string, number>();
  private deadChars = 0;

  constructor(seenMax: number) {
    this.seen = new BoundedIds(seenMax, seenMax * ID_CHARS_AVG);
  }

  private enqueue(delivery: Delivery): void {
    let queue = this.queues.get(delivery.channel);
    if (!queue) this.queues.set(delivery.channel, (queue = new Set()));
    queue.add(delivery.id);
  }

  private dequeue(delivery: Delivery): void {
    this.queues.get(delivery.channel)?.delete(delivery.id);
  }

  apply(record: JournalRecord): void {
    switch (record.t) {
      case 'in': {
        const id = record.h.event.id;
        if (this.seen.has(id)) return;
        this.seen.add(id);
        this.pendingEvents.set(id, record.h);
        return;
      }
      case 'done':
        this.pendingEvents.delete(record.id);
        return;
      case 'add': {
        const d = record.d;
        if (this.deliveries.has(d.id) || this.deliveredIds.has(d.id)) return;
        if (d.state === 'delivered') {
          this.markDelivered({ ...d });
          return;
        }
        this.deliveries.set(d.id, { ...d });
        if (d.state === 'pending') this.enqueue(d);
        if (d.state === 'dead') this.trackDead(d);
        return;
      }
      case 'fail': {
        const d = this.deliveries.get(record.id);
        if (!d) return;
        d.attempts = record.attempts;
        d.nextAt = record.nextAt;
        d.lastError = record.error;
        return;
      }
      case 'ok': {
        const d = this.deliveries.get(record.id);
        if (!d) return;
        this.deliveries.delete(d.id);
        this.dequeue(d);
        this.markDelivered({
          ...d,
          state: 'delivered',
          deliveredAt: record.at,
          ...(record.ref ? { ref: record.ref } : {}),
        });
        return;
      }
      case 'dead': {
        const d = this.deliveries.get(record.id);
        if (!d) return;
        this.dequeue(d);
        this.untrackDead(d);
        Object.assign(d, { state: 'dead', deadAt: record.at, lastError: record.error });
        this.trackDead(d);
        return;
      }
      case 'retry': {
        const d = this.deliveries.get(record.id);
        if (!d || d.state !== 'dead') return;
        this.untrackDead(d);
        Object.assign(d, { state: 'pending', attempts: 0, nextAt: record.at, createdAt: record.at });
        delete d.deadAt;
        this.enqueue(d);
        return;
      }
      case 'purge': {
        const d = this.deliveries.get(record.id);
        if (!d) return;
        this.untrackDead(d);
        this.deliveries.delete(d.id);
        this.dequeue(d);
        return;
      }
      case 'release':
        for (const id of record.ids) {
          const d = this.deliveries.get(id);
          if (!d || d.state !== 'held') continue;
          // Released into a digest: the held ones are done; the digest is its own delivery.
          this.deliveries.delete(id);
          this.deliveredIds.add(id);
        }
        return;
      case 'unhold':
        for (const id of record.ids) {
          const d = this.deliveries.get(id);
          if (!d || d.state !== 'held') continue;
          d.state = 'pending';
          d.nextAt = record.at;
          delete d.heldUntil;
          this.enqueue(d);
        }
        return;
      case 'cancel':
        for (const id of record.ids) {
          const d = this.deliveries.get(id);
          if (!d || d.state !== 'held' || !d.waiting) continue;
          // Never sent: gone from the outbox, and its id kept so a replayed "add" does not bring it back.
          this.deliveries.delete(id);
          this.deliveredIds.add(id);
          keepRecent(
            this.recentCancelled,
            { ...d, state: 'cancelled', cancelledAt: record.at, cancelledBy: record.by },
            deliveryChars,
          );
        }
        return;
      case 'ladder': {
        const l = record.l;
        if (this.ladders.has(l.id) || this.haltedLadders.has(l.id)) return;
        if (l.end) {
          this.keepHalted({ ...l });
          return;
        }
        this.ladders.set(l.id, { ...l, progress: [...l.progress] });
        while (this.ladders.size > LADDERS_MAX) {
          const oldest = this.ladders.values().next().value!;
          this.halt(oldest, {
            t: 'halt',
            ids: [oldest.id],
            at: l.startedAt,
            end: 'limit',
            by: 'too many ladders',
          });
        }
        return;
      }
      case 'step': {
        const l = this.ladders.get(record.id);
        if (!l || record.step < 0 || record.step >= l.steps.length) return;
        l.progress[record.step] = Math.max(l.progress[record.step] ?? 0, record.sent);
        return;
      }
      case 'halt':
        for (const id of record.ids) {
          const l = this.ladders.get(id);
          if (l) this.halt(l, record);
        }
        return;
      case 'thread':
        if (record.k.length > THREAD_KEY_MAX || record.ts.length > THREAD_KEY_MAX) return;
        this.threads.delete(record.k);
        this.threads.set(record.k, record.ts);
        while (this.threads.size > THREADS_MAX)
          this.threads.delete(this.threads.keys().next().value as string);
        return;
      case 'seen':
        for (const id of record.ids) this.seen.add(id);
        return;
      case 'delivered':
        for (const id of record.ids) this.deliveredIds.add(id);
        return;
    }
  }

  private halt(l: Ladder, record: Extract<JournalRecord, { t: 'halt' }>): void {
    this.ladders.delete(l.id);
    this.keepHalted({ ...l, end: record.end, endedAt: record.at, endedBy: record.by });
  }

  private keepHalted(l: Ladder): void {
    this.haltedLadders.add(l.id);
    keepRecent(this.recentLadders, l, ladderChars);
  }

  /** The running ladders of a session. */
  laddersOf(session: string): Ladder[] {
    return [...this.ladders.values()].filter((l) => l.session === session);
  }

  /**
   * Keeps at most DEAD_MAX dead letters and DEAD_MAX_CHARS of them: the oldest go (and are never added
   * again by a replayed "add"). Only dead letters go this way; pending and held deliveries never do.
   */
  private trackDead(d: Delivery): void {
    const chars = deliveryChars(d);
    this.dead.set(d.id, chars);
    this.deadChars += chars;
    while (this.dead.size > DEAD_MAX || (this.deadChars > DEAD_MAX_CHARS && this.dead.size > 1)) {
      const [oldest, oldestChars] = this.dead.entries().next().value!;
      this.dead.delete(oldest);
      this.deadChars -= oldestChars;
      this.deliveries.delete(oldest);
      this.deliveredIds.add(oldest);
    }
  }

  private untrackDead(d: Delivery): void {
    const chars = this.dead.get(d.id);
    if (chars === undefined) return;
    this.dead.delete(d.id);
    this.deadChars -= chars;
  }

  private markDelivered(d: Delivery): void {
    this.deliveredIds.add(d.id);
    keepRecent(this.recentDelivered, d, deliveryChars);
  }

  /** The oldest pending delivery of a channel: channels deliver in order. */
  head(channel: string): Delivery | undefined {
    const queue = this.queues.get(channel);
    if (!queue) return undefined;
    for (const id of queue) {
      const d = this.deliveries.get(id);
      if (d && d.state === 'pending') return d;
      queue.delete(id);
    }
    return undefined;
  }

  channelsWithWork(): string[] {
    return [...this.queues.entries()].filter(([, q]) => q.size > 0).map(([name]) => name);
  }

  /** Held "waiting" deliveries of a session (delay-then-cancel). */
  heldWaiting(session: string): Delivery[] {
    return [...this.deliveries.values()].filter((d) => d.state === 'held' && d.waiting?.session === session);
  }

  /**
   * "Waiting" notifications of a session already shown (among the last delivered) that the channel can
   * mark resolved (it gave a `ref`) and that have no `resolved` delivery yet (docs/sessions.md).
   */
  shownWaiting(session: string): Delivery[] {
    return this.recentDelivered.filter(
      (d) =>
        d.waiting?.session === session &&
        d.ref !== undefined &&
        d.notification.kind === undefined &&
        !this.deliveries.has(resolvedId(d.id)) &&
        !this.deliveredIds.has(resolvedId(d.id)),
    );
  }

  /** When the earliest held delivery is due, if any is held. */
  nextHeldAt(): number | undefined {
    let next: number | undefined;
    for (const d of this.deliveries.values())
      if (d.state === 'held' && d.heldUntil !== undefined && (next === undefined || d.heldUntil < next))
        next = d.heldUntil;
    return next;
  }

  /** Held deliveries whose quiet window has ended by `now`. */
  heldDue(now: number): Delivery[] {
    return [...this.deliveries.values()].filter((d) => d.state === 'held' && (d.heldUntil ?? 0) <= now);
  }

  pendingFor(channel: string): number {
    return this.queues.get(channel)?.size ?? 0;
  }

  counts(): { pendingEvents: number; pending: number; held: number; dead: number } {
    let pending = 0;
    let held = 0;
    let dead = 0;
    for (const d of this.deliveries.values()) {
      if (d.state === 'pending') pending++;
      else if (d.state === 'held') held++;
      else if (d.state === 'dead') dead++;
    }
    return { pendingEvents: this.pendingEvents.size, pending, held, dead };
  }

  /** The records that rebuild this state: what a compacted journal holds (order matters: "in" before "seen"). */
  snapshot(): JournalRecord[] {
    const records: JournalRecord[] = [];
    for (const h of this.pendingEvents.values()) records.push({ t: 'in', at: h.event.receivedAt, h });
    for (const d of this.recentDelivered) records.push({ t: 'add', d });
    for (const d of this.deliveries.values()) records.push({ t: 'add', d });
    const seen = [...this.seen];
    for (let i = 0; i < seen.length; i += 5000) records.push({ t: 'seen', ids: seen.slice(i, i + 5000) });
    const delivered = [...this.deliveredIds];
    for (let i = 0; i < delivered.length; i += 5000)
      records.push({ t: 'delivered', ids: delivered.slice(i, i + 5000) });
    for (const [k, ts] of this.threads) records.push({ t: 'thread', k, ts });
    for (const l of this.recentLadders) records.push({ t: 'ladder', l });
    for (const l of this.ladders.values()) records.push({ t: 'ladder', l });
    return records;
  }
}

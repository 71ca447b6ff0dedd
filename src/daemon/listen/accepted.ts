import { createHash } from 'node:crypto';
import type { EventHandoff } from '../../events/types.js';

/**
 * The same event handed over twice (docs/daemon.md, "The same event twice"). An event no command is
 * wired to (a Stop under the default config) that one hookd entry fires twice is handed to the daemon by
 * both calls, each under an id of its own: the journal, which takes each id once, would keep both, and
 * the ledger would count the event twice. The daemon keeps a book of the events it accepted lately, by
 * what they say, and takes a second hand-off of the same event as accepted without journaling it.
 *
 * A copy is a hand-off with the same agent, event name, session, directories and payload as the last
 * event the daemon accepted of that session, received by hookd (the event's own `receivedAt`, stamped
 * where it was read) less than `windowMs` apart. The agent starts the copies of one event together; the
 * same event really sent again (Droid's tool and Notification payloads carry no id) comes after the
 * agent's next step: later, and mostly after other events of the session. The key is made from the
 * hand-off itself, so an event run by the fast listener and one handed over by a hook process are kept in
 * one book, and the hook process computes nothing more for it. A hand-off that carries command outcomes
 * is always journaled (its commands really ran: the Node path's copies of an event with commands never
 * hand it over), and so is one that carries notices (they would be lost).
 */

export interface AcceptedLimits {
  /** Two calls' `receivedAt` less than this apart can be one event. */
  windowMs: number;
  /** How long after it was accepted an event's copy is still recognised (its hand-off may come late). */
  keepMs: number;
  /** Events remembered at once; past it the oldest is forgotten (its copy is then journaled). */
  maxEntries: number;
}

export const ACCEPTED_LIMITS: AcceptedLimits = { windowMs: 1000, keepMs: 30_000, maxEntries: 1024 };

/** Forgets a map's first key (its oldest, in a map kept in update order). */
export function dropOldest(map: Map<string, unknown>): void {
  const first = map.keys().next();
  if (!first.done) map.delete(first.value);
}

/**
 * Each session's last event to reach the daemon, by place: a copy comes before any other event of its
 * session. Shared by this book (hand-offs) and the book of running events (once.ts: events the fast
 * listener runs), so that either sees what reached the daemon through the other. An event is known by
 * its id: the one event seen again (its hand-off after the fast listener ran it) keeps its place.
 * Bounded: past `maxSessions` the session updated longest ago is forgotten (its copy is then not matched).
 */
export class SessionOrder {
  /** Each session's last event (its place and id), in the order they were last updated. */
  private readonly last = new Map<string, { seq: number; id: string | undefined }>();
  private seq = 0;

  constructor(private readonly maxSessions = ACCEPTED_LIMITS.maxEntries) {}

  /** An event of this session reached the daemon: now its last one. Returns its place. */
  note(session: string, id?: string): number {
    const was = this.last.get(session);
    const seq = was && id !== undefined && was.id === id ? was.seq : ++this.seq;
    this.last.delete(session); // re-added last: the map stays in update order
    if (this.last.size >= this.maxSessions) dropOldest(this.last);
    this.last.set(session, { seq, id });
    return seq;
  }

  /** True while the event at this place is its session's last. */
  isLast(session: string, seq: number): boolean {
    return this.last.get(session)?.seq === seq;
  }
}

interface Entry {
  /** The event's `receivedAt`. */
  receivedAt: number;
  /** When the daemon took it (its clock). */
  at: number;
  /** Its place among the events accepted: a copy comes before any other event of its session. */
  seq: number;
  /** True once its journal record is durable; false when the append failed (then it is not a copy). */
  durable: Promise<boolean>;
}

/** One hand-off as the book sees it. */
export interface AcceptedCall {
  /** acceptedKey(handoff): undefined for one that is always journaled. */
  key: string | undefined;
  session: string;
  receivedAt: number;
  /** The event's id: its hand-off after the fast listener ran it is not another event. */
  id?: string;
}

/** The key of a hand-off a copy may be dropped for; undefined when it is always journaled. */
export function acceptedKey(handoff: EventHandoff): string | undefined {
  if (handoff.results.length > 0 || (handoff.notices?.length ?? 0) > 0) return undefined;
  const { agent, name, sessionId, cwd, transcriptPath, projectDir, payload } = handoff.event;
  const hash = createHash('sha256');
  const parts = [agent, name, sessionId, cwd, transcriptPath, projectDir, JSON.stringify(payload)];
  for (const part of parts) hash.update(part === undefined ? '-\n' : `${part.length}:${part}\n`);
  return hash.digest('hex');
}

/** How much of a session id the book keeps (two long ids that share it only lose a copy its match). */
const SESSION_CHARS = 256;

/** A session as the books keep it (SessionOrder). */
export function sessionOf(sessionId = ''): string {
  return `${sessionId.length}:${sessionId.slice(0, SESSION_CHARS)}`;
}

/** What the book needs of a hand-off. */
export function acceptedCall(handoff: EventHandoff): AcceptedCall {
  const { sessionId, receivedAt, id } = handoff.event;
  return { key: acceptedKey(handoff), session: sessionOf(sessionId), receivedAt, id };
}

/** The events accepted lately, by key, and the last one of each session; bounded in count and in time. */
export class AcceptedBook {
  private readonly entries = new Map<string, Entry>();
  private readonly limits: AcceptedLimits;
  /** Each session's last event (shared with the book of running events). */
  private readonly order: SessionOrder;

  constructor(
    private readonly now: () => number,
    limits: Partial<AcceptedLimits> = {},
    order?: SessionOrder,
  ) {
    this.limits = { ...ACCEPTED_LIMITS, ...limits };
    this.order = order ?? new SessionOrder(this.limits.maxEntries);
  }

  get size(): number {
    return this.entries.size;
  }

  /** True when two calls received at these times can be one event. */
  sameTime(a: number, b: number): boolean {
    return Math.abs(a - b) < this.limits.windowMs;
  }

  /**
   * Appends an event unless it is a copy of one accepted just before it: then undefined (the caller
   * answers it as accepted). A copy waits for its first one's append still in flight; when that fails,
   * the copy is appended (one of several copies waiting, the others then wait for it). Checked and
   * started in one turn: two copies never both append.
   */
  async admit<T>(call: AcceptedCall, append: () => Promise<T>): Promise<T | undefined> {
    for (;;) {
      const first = this.match(call);
      if (!first) {
        const appended = append();
        this.record(call, appended);
        return appended;
      }
      if (await first) return undefined;
    }
  }

  /**
   * The first event of this call, accepted last of its session and less than the window apart: true once
   * durable, false when its append failed; undefined when there is none.
   */
  match(call: AcceptedCall): Promise<boolean> | undefined {
    if (call.key === undefined) return undefined;
    this.prune();
    const entry = this.entries.get(call.key);
    if (!entry || !this.order.isLast(call.session, entry.seq)) return undefined;
    return this.sameTime(entry.receivedAt, call.receivedAt) ? entry.durable : undefined;
  }

  /** An event on its way into the journal (any event: it ends the chance of a copy of the one before). */
  record(call: AcceptedCall, durable: Promise<unknown>): void {
    this.prune();
    const seq = this.order.note(call.session, call.id);
    const { key } = call;
    if (key === undefined) return;
    this.entries.delete(key);
    if (this.entries.size >= this.limits.maxEntries) dropOldest(this.entries);
    const entry: Entry = {
      receivedAt: call.receivedAt,
      at: this.now(),
      seq,
      durable: durable.then(
        () => true,
        () => {
          if (this.entries.get(key) === entry) this.entries.delete(key);
          return false;
        },
      ),
    };
    this.entries.set(key, entry);
  }

  /** Forgets events accepted more than `keepMs` ago (the oldest come first). */
  private prune(): void {
    const oldest = this.now() - this.limits.keepMs;
    for (const [key, entry] of this.entries) {
      if (entry.at >= oldest) return;
      this.entries.delete(key);
    }
  }
}

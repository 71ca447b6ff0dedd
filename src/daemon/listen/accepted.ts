import { createHash } from 'node:crypto';
import type { EventHandoff } from '../../events/types.js';

/**
 * The same event handed over twice (docs/daemon.md, "The same event twice"). An event no command is
 * wired to (a Stop under the default config) that one hookd entry fires twice is handed to the daemon by
 * both calls, each under an id of its own: the journal, which takes each id once, would keep both, and
 * the ledger would count the event twice. The daemon keeps a book of the events it accepted lately, by
 * what they say, and takes a second hand-off of the same event as accepted without journaling it.
 *
 * "The same event" here is the same agent, event name, session, directories and payload, received by
 * hookd (the event's own `receivedAt`, stamped where it was read) less than `windowMs` apart: the agent
 * starts the copies of one event together, while the same event really sent again comes after the
 * agent's next step (seconds). Identical events really sent within the window are taken as one. The key is made from the hand-off itself, so an event
 * run by the fast listener and one handed over by a hook process are kept in one book, and the hook
 * process computes nothing more for it. A hand-off that carries command outcomes is always journaled
 * (its commands really ran: the Node path's copies of an event with commands never hand it over), and so
 * is one that carries notices (they would be lost).
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

interface Entry {
  /** The event's `receivedAt`. */
  receivedAt: number;
  /** When the daemon took it (its clock). */
  at: number;
  /** True once its journal record is durable; false when the append failed (then it is not a copy). */
  durable: Promise<boolean>;
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

/** The events accepted lately, by key; bounded in count and in time. */
export class AcceptedBook {
  private readonly entries = new Map<string, Entry>();
  private readonly limits: AcceptedLimits;

  constructor(
    private readonly now: () => number,
    limits: Partial<AcceptedLimits> = {},
  ) {
    this.limits = { ...ACCEPTED_LIMITS, ...limits };
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Appends an event unless it is a copy of one accepted lately: then undefined (the caller answers it
   * as accepted). A copy waits for its first one's append still in flight; when that fails, the copy is
   * appended (one of several copies waiting, the others then wait for it). Checked and started in one
   * turn: two copies never both append.
   */
  async admit<T>(key: string, receivedAt: number, append: () => Promise<T>): Promise<T | undefined> {
    for (;;) {
      const first = this.match(key, receivedAt);
      if (!first) {
        const appended = append();
        this.record(key, receivedAt, appended);
        return appended;
      }
      if (await first) return undefined;
    }
  }

  /** True when two calls received at these times can be one event. */
  sameTime(a: number, b: number): boolean {
    return Math.abs(a - b) < this.limits.windowMs;
  }

  /** The first event of this key and time: true once durable, false when its append failed; else undefined. */
  match(key: string, receivedAt: number): Promise<boolean> | undefined {
    this.prune();
    const entry = this.entries.get(key);
    if (!entry || !this.sameTime(entry.receivedAt, receivedAt)) return undefined;
    return entry.durable;
  }

  /** An event on its way into the journal: `durable` settles when its append did or failed. */
  record(key: string, receivedAt: number, durable: Promise<unknown>): void {
    this.prune();
    this.entries.delete(key); // re-added last: the map stays in acceptance order
    if (this.entries.size >= this.limits.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    const entry: Entry = {
      receivedAt,
      at: this.now(),
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

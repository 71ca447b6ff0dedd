import type { IngestCounts } from '../../journal/stats.js';
import type { Logger } from 'pino';
import type { EventHandoff } from '../../events/types.js';
import { eventRequestSchema } from '../../link/protocol.js';
import { listSpool, quarantineSpoolFile, readSpoolFile, removeSpoolFile } from '../../link/spool.js';
import type { DaemonStore, JournalRecord } from '../../journal/store.js';
import {
  AcceptedBook,
  acceptedCall,
  type AcceptedCall,
  type AcceptedLimits,
  type SessionOrder,
} from './accepted.js';

/** What ingest counts, for `hookd status`. */
export interface IngestOptions {
  /** Which event ids were already received (the journal's memory), and which are still pending. */
  store: Pick<DaemonStore, 'seen' | 'pendingEvents'>;
  /** Applies records and makes them durable (the journal); throws when the disk refuses. */
  commit: (records: JournalRecord[]) => Promise<void>;
  /** True while the journal cannot be written: the spool is left alone meanwhile. */
  paused: () => boolean;
  /** Where hooks spool events when the daemon is down. */
  spoolDir: string;
  /** Hands a durable event on to processing (the pipeline). */
  enqueue: (handoff: EventHandoff) => void;
  now: () => number;
  logger: Logger;
  /** How the same event handed over twice is told apart (accepted.ts); defaults otherwise. */
  accepted?: Partial<AcceptedLimits>;
  /** Each session's last event, shared with the book of running events (once.ts); default its own. */
  order?: SessionOrder;
}

/**
 * Ingest: events from the socket and from the spool into the journal, each once (by event id, and an
 * event without command outcomes handed over twice under two ids once: accepted.ts), durable before the
 * acknowledgement (socket) or before the spool file is removed; then on to processing.
 */
export class Ingest {
  readonly counts: IngestCounts = { received: 0, duplicates: 0, fromSpool: 0, rejected: 0 };
  private readonly inflight = new Map<string, Promise<void>>();
  private draining: Promise<void> | undefined;
  /** Drains started so far; and whether another was asked for while one ran. */
  private runs = 0;
  private again = false;
  private stopping = false;
  private readonly accepted: AcceptedBook;

  constructor(private readonly o: IngestOptions) {
    this.accepted = new AcceptedBook(o.now, o.accepted, o.order);
  }

  /** One event from the socket: durable when this resolves; a duplicate waits for its first copy. */
  async receive(handoff: EventHandoff): Promise<{ duplicate: boolean }> {
    const appended = await this.accepted.admit(acceptedCall(handoff), () => this.append(handoff));
    if (appended) return appended;
    this.counts.duplicates++;
    this.o.logger.info(
      { kind: 'once', event: handoff.event.name, eventId: handoff.event.id },
      'the same event was handed over twice (one hookd entry in two settings files); journaled once',
    );
    return { duplicate: true };
  }

  /** Into the journal unless its id is there already; durable when this resolves. */
  private async append(handoff: EventHandoff): Promise<{ duplicate: boolean }> {
    const { store } = this.o;
    const id = handoff.event.id;
    if (store.seen.has(id)) {
      await this.inflight.get(id);
      this.counts.duplicates++;
      return { duplicate: true };
    }
    const durable = this.o.commit([{ t: 'in', at: this.o.now(), h: handoff }]);
    this.inflight.set(id, durable);
    try {
      await durable;
    } catch (error) {
      store.seen.delete(id);
      store.pendingEvents.delete(id);
      throw error;
    } finally {
      this.inflight.delete(id);
    }
    this.counts.received++;
    this.o.enqueue(handoff);
    return { duplicate: false };
  }

  /** Reads the spool in chunks of 256: valid events into the journal, then removed; others quarantined. */
  async drainSpool(): Promise<void> {
    const { o, counts } = this;
    if (o.paused()) return;
    const spool = o.spoolDir;
    const names = listSpool(spool);
    for (let i = 0; i < names.length; i += 256) {
      const chunk = names.slice(i, i + 256);
      const fresh: EventHandoff[] = [];
      const records: JournalRecord[] = [];
      const ids = new Set<string>();
      // Each session's last event in this chunk: a spooled copy comes right after its first one.
      const lastOf = new Map<string, AcceptedCall>();
      const calls: AcceptedCall[] = [];
      const read: string[] = [];
      for (const name of chunk) {
        const text = readSpoolFile(spool, name);
        if (text === undefined) continue;
        let parsed;
        try {
          parsed = eventRequestSchema.safeParse(JSON.parse(text));
        } catch {
          parsed = undefined;
        }
        if (!parsed?.success) {
          counts.rejected++;
          quarantineSpoolFile(spool, name);
          o.logger.error({ file: name }, 'spooled file is not a valid event; moved to spool/rejected');
          continue;
        }
        read.push(name);
        const handoff: EventHandoff = parsed.data;
        if (o.store.seen.has(handoff.event.id) || ids.has(handoff.event.id)) {
          counts.duplicates++;
          continue;
        }
        // Both calls of an event spooled while the daemon was down: the second is the first's copy.
        const call = acceptedCall(handoff);
        if (await this.isCopy(call, lastOf.get(call.session))) {
          counts.duplicates++;
          continue;
        }
        lastOf.set(call.session, call);
        calls.push(call);
        ids.add(handoff.event.id);
        fresh.push(handoff);
        records.push({ t: 'in', at: o.now(), h: handoff });
      }
      const durable = o.commit(records);
      for (const call of calls) this.accepted.record(call, durable);
      await durable;
      for (const name of read) removeSpoolFile(spool, name);
      counts.fromSpool += fresh.length;
      counts.received += fresh.length;
      for (const handoff of fresh) o.enqueue(handoff);
      if (fresh.length > 0) o.logger.info({ events: fresh.length }, 'drained spooled events');
    }
  }

  /**
   * A spooled event that is a copy: of the one before it of its session in this chunk, or, when the chunk
   * has none, of the last one accepted (durable; one whose append failed is not).
   */
  private async isCopy(call: AcceptedCall, before: AcceptedCall | undefined): Promise<boolean> {
    if (before)
      return (
        call.key !== undefined &&
        before.key === call.key &&
        this.accepted.sameTime(before.receivedAt, call.receivedAt)
      );
    const first = this.accepted.match(call);
    return first !== undefined && (await first);
  }

  /**
   * A drain in the background (the spool watch, the periodic scan, the journal recovering); while one
   * runs, one more after it, which sees what came meanwhile.
   */
  scheduleDrain(): void {
    if (this.stopping) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.runs++;
    this.draining = this.drainSpool()
      .catch((error: Error) => this.o.logger.error({ error: error.message }, 'spool drain failed'))
      .finally(() => {
        this.draining = undefined;
        if (this.again) {
          this.again = false;
          this.scheduleDrain();
        }
      });
  }

  /**
   * Called before anything that reached a socket is handled: the events already in the spool (hooks leave
   * them there while the daemon watches it) are taken first, so that a session's events keep their order
   * and a request sees every event spooled before it. At once when the spool is empty and nothing drains;
   * else it waits for a drain that started after this call (at most two: the one running, then one more).
   */
  async catchUp(): Promise<void> {
    if (this.stopping || this.o.paused()) return;
    if (!this.draining && listSpool(this.o.spoolDir).length === 0) return;
    const before = this.runs;
    while (!this.stopping) {
      if (!this.draining) this.scheduleDrain();
      const run = this.runs;
      await this.draining;
      if (run > before) return;
    }
  }

  /** No new drain from now on; resolves when the one in flight is done. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.draining;
  }
}

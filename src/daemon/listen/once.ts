import { ONCE_ANSWER_MAX_CHARS } from '../../link/client.js';
import { ACCEPTED_LIMITS, SessionOrder } from './accepted.js';

// The key is the hook's too: the Node path asks the daemon with it (src/hook-path/once-key.ts).
export { onceKey } from '../../hook-path/once-key.js';

/**
 * One event that reaches the daemon twice runs once (docs/daemon.md, "The same event twice"). One hookd
 * entry can fire twice for one tool call: Droid 0.225.2 runs an identical command of its user and
 * project `.factory` folders twice, and an agent may read the same entry from two settings files. The second
 * call waits for the first one's answer and gives the agent the same exit code, stdout and stderr; its
 * guard does not run again and the event is handed on (journal, ledger, notifications) once.
 *
 * "The same event" is the same agent, event, stdin bytes, working directory, environment and planned
 * commands: what makes the guard's run the same. The stdin of an agent's event carries its session id,
 * so two sessions never share a key. A call counts as the same while the first one runs, and for
 * `windowMs` (1 s) after it answered as long as nothing else of its session reached the daemon in
 * between (SessionOrder, accepted.ts): the agent starts the copies of one event together, yet a copy's
 * process may reach the daemon only after a fast guard answered; identical events do come one after the
 * other (Droid's tool and Notification payloads carry no id: two permission prompts in a row send the
 * same bytes), and those come after the agent's next step, which reaches the daemon first. The answer of
 * a first call whose session the daemon was not told (an event without a session id, an older hook that
 * asks with the key alone) is not kept once given.
 * Only the user's own clients reach the socket this serves (docs/protocol.md), so no one else can
 * place an answer here.
 */

/** What the agent is answered. */
export interface OnceReply {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** The first call of an event: runs it, then says how it went (undefined: not run, or cut short). */
export interface Lead {
  lead: true;
  settle(reply: OnceReply | undefined): void;
  /** What its copies wait for. */
  result: Promise<OnceReply | undefined>;
}

/** A later call of the same event: the first call's answer, or undefined when it must run itself. */
export interface Follow {
  lead: false;
  result: Promise<OnceReply | undefined>;
  /** The first call had answered already: its answer is given at once. */
  answered?: true;
}

interface Entry {
  result: Promise<OnceReply | undefined>;
  /** When the first call answered; undefined while it runs. */
  doneAt?: number;
  /** The first call's session and its place in it (SessionOrder), when the daemon knows them. */
  from?: { session: string; seq: number };
}

/** Which session a call belongs to (accepted.ts `sessionOf`) and its event's id. */
export interface CallOf {
  session: string;
  id: string;
}

export interface OnceLimits {
  /** How long after the first call answered a copy still gets its answer (0: only while it runs). */
  windowMs: number;
  /** Events remembered at once (running and answered); past it a new event is not remembered. */
  maxEntries: number;
  /** The largest answer (stdout and stderr, in characters) kept for copies that come after it. */
  maxReplyChars: number;
}

export const ONCE_LIMITS: OnceLimits = {
  windowMs: ACCEPTED_LIMITS.windowMs,
  maxEntries: 256,
  maxReplyChars: 64 * 1024,
};

/** The events running or just answered, by key; bounded in count and in the answers it keeps. */
export class OnceBook {
  private readonly entries = new Map<string, Entry>();
  private readonly limits: OnceLimits;
  /** Each session's last event; the daemon shares it with the book of hand-offs (accepted.ts). */
  readonly order: SessionOrder;

  constructor(
    private readonly now: () => number,
    limits: Partial<OnceLimits> = {},
    order?: SessionOrder,
  ) {
    this.limits = { ...ONCE_LIMITS, ...limits };
    this.order = order ?? new SessionOrder();
  }

  /** How many events are remembered now. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The first call of the key leads; a later one follows it while it runs, or after it answered (within
   * the window, nothing else of its session in between). `call` says which session the call belongs to,
   * when known: it then counts as its session's last event. When the book is full of running events, a
   * new key leads unremembered: its copies then run too (a guard twice, never a guard skipped).
   */
  claim(key: string, call?: CallOf): Lead | Follow {
    this.prune();
    const known = this.entries.get(key);
    if (known && known.doneAt === undefined) return { lead: false, result: known.result };
    if (known && this.stillLast(known)) return { lead: false, result: known.result, answered: true };
    if (known) this.entries.delete(key); // answered, and its session went on: a new event
    const seq = call ? this.order.note(call.session, call.id) : undefined;
    let settle: (reply: OnceReply | undefined) => void = () => {};
    const entry: Entry = {
      result: new Promise((resolve) => (settle = resolve)),
      ...(call && seq !== undefined ? { from: { session: call.session, seq } } : {}),
    };
    if (this.entries.size >= this.limits.maxEntries) this.dropAnswered();
    if (this.entries.size >= this.limits.maxEntries) return { lead: true, settle, result: entry.result };
    this.entries.set(key, entry);
    return {
      lead: true,
      result: entry.result,
      settle: (reply) => {
        settle(reply);
        const kept =
          reply && entry.from && reply.stdout.length + reply.stderr.length <= this.limits.maxReplyChars;
        if (kept) entry.doneAt = this.now();
        else if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    };
  }

  /** An answered event whose session has had no other event since. */
  private stillLast(entry: Entry): boolean {
    return entry.from !== undefined && this.order.isLast(entry.from.session, entry.from.seq);
  }

  /** Forgets answers older than the window (the map is in claim order, so the oldest come first). */
  private prune(): void {
    const oldest = this.now() - this.limits.windowMs;
    for (const [key, entry] of this.entries) {
      if (entry.doneAt !== undefined && entry.doneAt < oldest) this.entries.delete(key);
    }
  }

  /** Makes room: forgets the answered event claimed longest ago (a running one is never forgotten). */
  private dropAnswered(): void {
    for (const [key, entry] of this.entries) {
      if (entry.doneAt === undefined) continue;
      this.entries.delete(key);
      return;
    }
  }
}

/** A hook process's connection to the daemon's socket: `closed` aborts when it goes away. */
export interface OnceConnection {
  closed: AbortSignal;
}

/** How many events one connection may hold at once (a hook process holds one). */
const EVENTS_PER_CONNECTION = 4;

/**
 * How long a first call on the socket may run its event: the budget it declared (its event budget, and
 * a permission prompt's remote-answer wait), at most an hour (the largest event budget), and a second for
 * its answer to arrive. One that declared none (an older hook) gets the most. Past it, its copies are told
 * to run the event themselves: a first call that holds its connection open without answering (stopped,
 * hung) holds them no longer.
 */
export const LEAD_LIMITS = { maxMs: 3_600_000, graceMs: 1000 };

/** Runs `fn` after `ms`; returns what cancels it (injected in tests). */
export type Schedule = (ms: number, fn: () => void) => () => void;

const realSchedule: Schedule = (ms, fn) => {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

interface Calls {
  leads: Map<string, { lead: Lead; cancel: () => void }>;
  copies: Map<string, Promise<OnceReply | undefined>>;
}

/**
 * The book on the daemon's socket, for events the hook process runs itself (the Node path: no native
 * client, a command marked "local", the fast listener off). The daemon gives it the fast listener's
 * book: a copy on one transport waits for a first call on the other. The first call of a key leads and keeps its
 * connection open while it runs; its answer, given on that connection, goes to the copies; its
 * connection closing first (the process died, was killed) tells them to run the event themselves.
 * Only the connection that leads a key can answer it.
 */
export class OnceDesk {
  private readonly calls = new WeakMap<OnceConnection, Calls>();
  /** The answers of first calls that ran past their deadline: their copies are told why. */
  private readonly overdue = new WeakSet<Promise<OnceReply | undefined>>();

  constructor(
    private readonly book: OnceBook,
    private readonly schedule: Schedule = realSchedule,
  ) {}

  /**
   * Whose turn it is: `lead` (run it, then `done`, within `budgetMs`), `copy` (then `wait`), or `alone`
   * (run it).
   */
  claim(key: string, connection: OnceConnection, budgetMs?: number, call?: CallOf): Record<string, unknown> {
    const calls = this.callsOf(connection);
    if (calls.leads.has(key) || calls.copies.has(key))
      return { ok: false, code: 'claimed', error: 'this connection has claimed this event already' };
    if (connection.closed.aborted) return { ok: true, role: 'alone', reason: 'the connection closed' };
    if (calls.leads.size + calls.copies.size >= EVENTS_PER_CONNECTION)
      return { ok: true, role: 'alone', reason: 'too many events on one connection' };
    const turn = this.book.claim(key, call);
    if (turn.lead) {
      const deadline = Math.min(budgetMs ?? LEAD_LIMITS.maxMs, LEAD_LIMITS.maxMs) + LEAD_LIMITS.graceMs;
      const cancel = this.schedule(deadline, () => {
        if (calls.leads.get(key)?.lead !== turn) return;
        calls.leads.delete(key);
        this.overdue.add(turn.result);
        turn.settle(undefined);
      });
      calls.leads.set(key, { lead: turn, cancel });
      return { ok: true, role: 'lead' };
    }
    calls.copies.set(key, turn.result);
    return { ok: true, role: 'copy', ...(turn.answered ? { firstAnswered: true } : {}) };
  }

  /** A copy's wait: the first call's answer, or `answered: false` (run it yourself). */
  async wait(key: string, connection: OnceConnection): Promise<Record<string, unknown>> {
    const calls = this.callsOf(connection);
    const result = calls.copies.get(key);
    if (!result)
      return { ok: false, code: 'not_claimed', error: 'this connection is not a copy of this event' };
    const answer = await result;
    calls.copies.delete(key);
    if (!answer) {
      const reason = this.overdue.has(result)
        ? 'the first call gave no answer within its budget'
        : 'the first call did not run to its end';
      return { ok: true, answered: false, reason };
    }
    // A first call on the fast path may have answered more than a hook process takes on this socket.
    if (answer.stdout.length + answer.stderr.length > ONCE_ANSWER_MAX_CHARS)
      return { ok: true, answered: false, reason: "the first call's answer is too large to pass on" };
    return { ok: true, answered: true, ...answer };
  }

  /** The first call's answer (undefined: it did not run the event; its copies run it themselves). */
  done(key: string, connection: OnceConnection, answer: OnceReply | undefined): Record<string, unknown> {
    const calls = this.callsOf(connection);
    const held = calls.leads.get(key);
    if (!held) return { ok: false, code: 'not_claimed', error: 'this connection does not lead this event' };
    calls.leads.delete(key);
    held.cancel();
    held.lead.settle(answer);
    return { ok: true };
  }

  private callsOf(connection: OnceConnection): Calls {
    let calls = this.calls.get(connection);
    if (calls) return calls;
    const mine: Calls = { leads: new Map(), copies: new Map() };
    this.calls.set(connection, mine);
    connection.closed.addEventListener(
      'abort',
      () => {
        for (const held of mine.leads.values()) {
          held.cancel();
          held.lead.settle(undefined);
        }
        mine.leads.clear();
      },
      { once: true },
    );
    calls = mine;
    return calls;
  }
}

import { describe, expect, it } from 'vitest';
import { LEAD_LIMITS, OnceBook, OnceDesk, onceKey, type Schedule } from '../../../src/daemon/listen/once.js';
import { SessionOrder, sessionOf } from '../../../src/daemon/listen/accepted.js';
import type { HookEvent } from '../../../src/events/types.js';

// The daemon's memory of events running or just answered (src/daemon/listen/once.ts): which call runs
// an event, what its copies get, and what it keeps, on an injected clock.

const reply = { exitCode: 2, stdout: '{"decision":"block"}', stderr: 'no' };

/** A call of session s1 with this event id. */
const S1 = (id: string) => ({ session: sessionOf('s1'), id });

function clock(start = 1_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const event = (over: Partial<HookEvent> = {}): HookEvent => ({
  id: 'e1',
  receivedAt: 0,
  agent: 'droid',
  name: 'PreToolUse',
  cwd: '/p',
  payload: {},
  ...over,
});

describe('OnceBook', () => {
  it('the first call leads; a copy while it runs and within the window gets its answer', async () => {
    const c = clock();
    const book = new OnceBook(c.now, { windowMs: 100 });
    const first = book.claim('k', S1('e1'));
    const copy = book.claim('k', S1('e2'));
    expect(first.lead).toBe(true);
    expect(copy.lead).toBe(false);
    if (!first.lead || copy.lead) throw new Error('roles');
    first.settle(reply);
    await expect(copy.result).resolves.toEqual(reply);
    c.advance(100);
    const late = book.claim('k', S1('e3'));
    expect(late.lead).toBe(false);
    c.advance(1);
    expect(book.claim('k', S1('e4')).lead).toBe(true); // past the window: a new event (a repeated tool call)
  });

  it('a copy that comes just after the first call answered gets its answer (within 1 s)', async () => {
    const c = clock();
    const book = new OnceBook(c.now);
    const first = book.claim('k', S1('e1'));
    if (!first.lead) throw new Error('roles');
    first.settle(reply);
    c.advance(15); // a fast guard answered before the copy's process reached the daemon
    const copy = book.claim('k', S1('e2'));
    expect(copy.lead).toBe(false);
    await expect(copy.result).resolves.toEqual(reply);
    c.advance(984);
    expect(book.claim('k', S1('e3')).lead).toBe(false);
    c.advance(2);
    expect(book.claim('k', S1('e4')).lead).toBe(true); // over 1 s after the answer: runs
  });

  it('after the answer, another event of the session in between makes the same bytes a new event', () => {
    const c = clock();
    const shared = new SessionOrder();
    const book = new OnceBook(c.now, {}, shared);
    const settleFirst = (key: string, id: string) => {
      const t = book.claim(key, S1(id));
      if (!t.lead) throw new Error('roles');
      t.settle(reply);
    };
    settleFirst('k', 'e1');
    // Its own hand-off (the same event id) and another session's event do not count.
    shared.note(sessionOf('s1'), 'e1');
    book.claim('other', { session: sessionOf('s2'), id: 'x1' });
    expect(book.claim('k', S1('e2')).lead).toBe(false);
    // The agent's next step (another event of the session, here its hand-off) comes first: runs again.
    shared.note(sessionOf('s1'), 'e5');
    expect(book.claim('k', S1('e6')).lead).toBe(true);
    // ... and so does one that the fast listener ran.
    settleFirst('j', 'e7');
    book.claim('m', S1('e8'));
    expect(book.claim('j', S1('e9')).lead).toBe(true);
  });

  it('an answer whose session the daemon was not told, or one over the kept size, is not reused', () => {
    const c = clock();
    const book = new OnceBook(c.now, { maxReplyChars: 10 });
    const bare = book.claim('k'); // a hook process on the Node path asks with the key alone
    if (!bare.lead) throw new Error('roles');
    bare.settle(reply);
    expect(book.claim('k').lead).toBe(true);
    const big = book.claim('b', S1('e1'));
    if (!big.lead) throw new Error('roles');
    big.settle({ exitCode: 2, stdout: 'x'.repeat(11), stderr: '' });
    expect(book.claim('b', S1('e2')).lead).toBe(true);
  });

  it('a full book makes room by forgetting answered events, never running ones', () => {
    const c = clock();
    const book = new OnceBook(c.now, { maxEntries: 2 });
    const done = book.claim('a', S1('e1'));
    if (!done.lead) throw new Error('roles');
    done.settle(reply);
    book.claim('b', S1('e2')); // runs
    expect(book.claim('c', S1('e3')).lead).toBe(true); // takes the answered one's place
    expect(book.claim('c', S1('e4')).lead).toBe(false);
    expect(book.claim('d', S1('e5')).lead).toBe(true); // both running: not remembered
    expect(book.size).toBe(2);
  });

  it('a first call that did not run leaves its copies to run themselves, and is forgotten', async () => {
    const book = new OnceBook(clock().now);
    const first = book.claim('k');
    const copy = book.claim('k');
    if (!first.lead || copy.lead) throw new Error('roles');
    first.settle(undefined);
    await expect(copy.result).resolves.toBeUndefined();
    expect(book.claim('k').lead).toBe(true);
  });

  it('is bounded: a full book remembers no new event (its copies run), and a large answer is not kept', async () => {
    const book = new OnceBook(clock().now, { maxEntries: 2, maxReplyChars: 10 });
    book.claim('a');
    book.claim('b');
    const third = book.claim('c');
    expect(third.lead).toBe(true);
    expect(book.claim('c').lead).toBe(true);
    expect(book.size).toBe(2);

    const small = new OnceBook(clock().now, { maxReplyChars: 10 });
    const big = small.claim('k');
    const waiting = small.claim('k');
    if (!big.lead || waiting.lead) throw new Error('roles');
    big.settle({ exitCode: 0, stdout: 'x'.repeat(11), stderr: '' });
    await expect(waiting.result).resolves.toMatchObject({ exitCode: 0 }); // waiting copies still get it
    expect(small.claim('k').lead).toBe(true);
  });

  it('keys differ by agent, event, cwd, bytes, environment and planned commands', () => {
    const call = { bytes: Buffer.from('{"a":1}'), cwd: '/p', env: { A: '1', B: '2' } };
    const g = [['user', 'g', 'guard']];
    const base = onceKey(event(), call, g);
    expect(onceKey(event(), { ...call, bytes: Buffer.from('{"a":1}'), env: { B: '2', A: '1' } }, g)).toBe(
      base,
    );
    const others = [
      onceKey(event({ agent: 'claude' }), call, g),
      onceKey(event({ name: 'PostToolUse' }), call, g),
      onceKey(event({ cwd: '/q' }), call, g),
      onceKey(event(), { ...call, cwd: '/q' }, g),
      onceKey(event(), { ...call, bytes: Buffer.from('{"a":2}') }, g),
      onceKey(event(), { ...call, env: { A: '1', B: '3' } }, g),
      onceKey(event(), call, [['project', 'g', 'guard']]),
    ];
    expect(new Set([base, ...others]).size).toBe(8);
  });

  it("a key leaves out what the transport sets (the fast command's HOOKD_NODE, HOOKD_CJS, the shell's _)", () => {
    const call = { bytes: Buffer.from('{"a":1}'), cwd: '/p', env: { A: '1' } };
    const fast = { ...call, env: { A: '1', HOOKD_NODE: '/n/node', HOOKD_CJS: '/h/hookd.cjs', _: '/c' } };
    expect(onceKey(event(), fast, [])).toBe(onceKey(event(), call, []));
    expect(onceKey(event(), { ...call, env: { A: '1', HOOKD_DEPTH: '1' } }, [])).not.toBe(
      onceKey(event(), call, []),
    );
  });
});

describe('OnceDesk (the book on the daemon socket, for hook processes)', () => {
  const KEY = 'a'.repeat(64);
  const connection = () => {
    const c = new AbortController();
    return { closed: c.signal, close: () => c.abort() };
  };

  /** A desk where one connection leads KEY and another waits as its copy. */
  const leadAndCopy = () => {
    const desk = new OnceDesk(new OnceBook(clock().now));
    const lead = connection();
    const copy = connection();
    expect(desk.claim(KEY, lead)).toEqual({ ok: true, role: 'lead' });
    expect(desk.claim(KEY, copy)).toEqual({ ok: true, role: 'copy' });
    return { desk, lead, waited: desk.wait(KEY, copy) };
  };

  it("the first connection leads; a copy waits and gets the lead's answer", async () => {
    const { desk, lead, waited } = leadAndCopy();
    expect(desk.done(KEY, lead, reply)).toEqual({ ok: true });
    expect(await waited).toEqual({ ok: true, answered: true, ...reply });
  });

  it('a lead that says its session: a copy on a new connection just after its answer gets it at once', async () => {
    const desk = new OnceDesk(new OnceBook(clock().now));
    const lead = connection();
    expect(desk.claim(KEY, lead, 1000, S1('e1'))).toEqual({ ok: true, role: 'lead' });
    desk.done(KEY, lead, reply);
    const copy = connection();
    expect(desk.claim(KEY, copy, 1000, S1('e2'))).toEqual({ ok: true, role: 'copy', firstAnswered: true });
    expect(await desk.wait(KEY, copy)).toEqual({ ok: true, answered: true, ...reply });
  });

  it('a lead whose connection closes before its answer sends its copies to run the event themselves', async () => {
    const { desk, lead, waited } = leadAndCopy();
    lead.close();
    expect(await waited).toMatchObject({ ok: true, answered: false });
    // and the key is free again: the next call leads
    expect(desk.claim(KEY, connection())).toEqual({ ok: true, role: 'lead' });
  });

  it('a lead that did not run the event (no answer) sends its copies to run it', async () => {
    const { desk, lead, waited } = leadAndCopy();
    desk.done(KEY, lead, undefined);
    expect(await waited).toMatchObject({ ok: true, answered: false });
  });

  it('only the connection that leads a key answers it; a wait needs a copy', async () => {
    const desk = new OnceDesk(new OnceBook(clock().now));
    const lead = connection();
    const other = connection();
    desk.claim(KEY, lead);
    expect(desk.done(KEY, other, reply)).toMatchObject({ ok: false, code: 'not_claimed' });
    expect(await desk.wait(KEY, other)).toMatchObject({ ok: false, code: 'not_claimed' });
    expect(desk.claim(KEY, lead)).toMatchObject({ ok: false, code: 'claimed' });
  });

  it("one book for both transports: a hook process's copy gets the fast listener's answer, unless too large", async () => {
    const c = clock();
    const book = new OnceBook(c.now);
    const desk = new OnceDesk(book);
    for (const [answer, expected] of [
      [reply, { ok: true, answered: true, ...reply }],
      [
        { ...reply, stdout: 'x'.repeat(1024 * 1024) },
        { ok: true, answered: false },
      ],
    ] as const) {
      const fast = book.claim(KEY);
      const copy = connection();
      expect(desk.claim(KEY, copy)).toEqual({ ok: true, role: 'copy' });
      const waited = desk.wait(KEY, copy);
      if (!fast.lead) throw new Error('the fast call leads');
      fast.settle(answer);
      expect(await waited).toMatchObject(expected);
      c.advance(1); // the next one is a new event
    }
  });

  /** A schedule the test runs by hand: what is due, and when. */
  function manualSchedule() {
    const due: { ms: number; fn: () => void; cancelled: boolean }[] = [];
    const schedule: Schedule = (ms, fn) => {
      const item = { ms, fn, cancelled: false };
      due.push(item);
      return () => (item.cancelled = true);
    };
    return { schedule, due };
  }

  it('a first call that does not answer within the budget it declared: its copies are told to run', async () => {
    const { schedule, due } = manualSchedule();
    const desk = new OnceDesk(new OnceBook(clock().now), schedule);
    const lead = connection();
    const copy = connection();
    expect(desk.claim(KEY, lead, 1500)).toEqual({ ok: true, role: 'lead' });
    expect(desk.claim(KEY, copy)).toEqual({ ok: true, role: 'copy' });
    const waited = desk.wait(KEY, copy);
    expect(due.map((d) => d.ms)).toEqual([1500 + LEAD_LIMITS.graceMs]);
    due[0]!.fn();
    expect(await waited).toEqual({
      ok: true,
      answered: false,
      reason: 'the first call gave no answer within its budget',
    });
    // its late answer is not taken; the next call of the key leads
    expect(desk.done(KEY, lead, reply)).toMatchObject({ ok: false, code: 'not_claimed' });
    expect(desk.claim(KEY, connection())).toEqual({ ok: true, role: 'lead' });
  });

  it("a lead's deadline is capped, the most without a declared budget, and ends with its answer or its connection", () => {
    const { schedule, due } = manualSchedule();
    const desk = new OnceDesk(new OnceBook(clock().now), schedule);
    const a = connection();
    const b = connection();
    desk.claim('a'.repeat(64), a, 100 * LEAD_LIMITS.maxMs);
    desk.claim('b'.repeat(64), b);
    const most = LEAD_LIMITS.maxMs + LEAD_LIMITS.graceMs;
    expect(due.map((d) => d.ms)).toEqual([most, most]);
    desk.done('a'.repeat(64), a, reply);
    b.close();
    expect(due.map((d) => d.cancelled)).toEqual([true, true]);
  });

  it('one connection holds a few events at most: past them it is told to run alone', () => {
    const desk = new OnceDesk(new OnceBook(clock().now));
    const one = connection();
    const roles = ['1', '2', '3', '4', '5'].map((d) => desk.claim(d.repeat(64), one).role);
    expect(roles).toEqual(['lead', 'lead', 'lead', 'lead', 'alone']);
  });
});

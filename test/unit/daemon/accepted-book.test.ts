import { describe, expect, it } from 'vitest';
import {
  AcceptedBook,
  acceptedCall,
  acceptedKey,
  type AcceptedCall,
} from '../../../src/daemon/listen/accepted.js';
import type { EventHandoff } from '../../../src/events/types.js';

// The daemon's book of events it accepted lately (src/daemon/listen/accepted.ts): the second hand-off of
// one event is answered as accepted without a second journal record, never before the first is durable,
// and journaled when the first append failed. On an injected clock.

function clock(start = 1_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const handoff = (
  over: Partial<EventHandoff['event']> = {},
  more: Partial<EventHandoff> = {},
): EventHandoff => ({
  v: 1,
  type: 'event',
  event: {
    id: `e${Math.random()}`,
    receivedAt: 5_000,
    agent: 'claude',
    name: 'Stop',
    sessionId: 's1',
    cwd: '/p',
    payload: { session_id: 's1', hook_event_name: 'Stop' },
    ...over,
  },
  results: [],
  ...more,
});

/** A hand-off as the book sees it (`key` undefined: one with command outcomes). */
const call = (key: string | undefined, receivedAt: number, session = 's'): AcceptedCall => ({
  key,
  session,
  receivedAt,
});

/** An append the test settles. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<string>((ok, fail) => {
    resolve = () => ok('appended');
    reject = fail;
  });
  return { promise, resolve, reject };
}

describe('acceptedKey', () => {
  it('is the same for two calls of one event (ids and receipt times differ), and differs by what the event says', () => {
    const a = acceptedKey(handoff({ id: 'a', receivedAt: 1 }));
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(acceptedKey(handoff({ id: 'b', receivedAt: 2 }))).toBe(a);
    for (const other of [
      handoff({ agent: 'droid' }),
      handoff({ name: 'SubagentStop' }),
      handoff({ sessionId: 's2' }),
      handoff({ sessionId: undefined }),
      handoff({ cwd: '/q' }),
      handoff({ projectDir: '/p' }),
      handoff({ transcriptPath: '/t' }),
      handoff({ payload: { session_id: 's1', hook_event_name: 'Stop', n: 1 } }),
    ])
      expect(acceptedKey(other)).not.toBe(a);
  });

  it('keeps a bounded part of a session id', () => {
    const long = 'x'.repeat(1_000_000);
    const call = acceptedCall(handoff({ sessionId: long }));
    expect(call.session.length).toBeLessThan(300);
    const of = (sessionId: string) => acceptedCall(handoff({ sessionId })).session;
    expect(of('a')).not.toBe(of('b'));
  });

  it('is none for a hand-off with command outcomes or notices: those are always journaled', () => {
    const outcome = {
      name: 'g',
      command: 'x',
      exitCode: 0,
      signal: null,
      timedOut: false,
      durationMs: 1,
      blocking: true,
    };
    expect(acceptedKey(handoff({}, { results: [outcome] }))).toBeUndefined();
    expect(acceptedKey(handoff({}, { notices: [{ key: 'k', title: 't', body: 'b' }] }))).toBeUndefined();
  });
});

describe('AcceptedBook', () => {
  it('a copy of an accepted event is not appended; it waits until the first append is durable', async () => {
    const book = new AcceptedBook(clock().now);
    const first = deferred();
    const appended: string[] = [];
    const a = book.admit(call('k', 5_000), () => (appended.push('a'), first.promise));
    let copyDone = false;
    const b = book
      .admit(call('k', 5_100), () => (appended.push('b'), first.promise))
      .then((r) => {
        copyDone = true;
        return r;
      });
    await Promise.resolve();
    await Promise.resolve();
    expect(copyDone).toBe(false); // not answered before the first is durable
    first.resolve();
    await expect(a).resolves.toBe('appended');
    await expect(b).resolves.toBeUndefined();
    expect(appended).toEqual(['a']);
  });

  it('when the first append fails, one of its waiting copies is appended and the others are its copies', async () => {
    const book = new AcceptedBook(clock().now);
    const first = deferred();
    const second = deferred();
    const appended: string[] = [];
    const a = book.admit(call('k', 5_000), () => (appended.push('a'), first.promise));
    const b = book.admit(call('k', 5_000), () => (appended.push('b'), second.promise));
    const c = book.admit(call('k', 5_000), () => (appended.push('c'), Promise.resolve('c')));
    first.reject(new Error('disk full'));
    await expect(a).rejects.toThrow('disk full');
    await Promise.resolve();
    second.resolve();
    await expect(b).resolves.toBe('appended');
    await expect(c).resolves.toBeUndefined();
    expect(appended).toEqual(['a', 'b']);
  });

  it('the same event received the window apart or more is a new event', async () => {
    const book = new AcceptedBook(clock().now, { windowMs: 1_000 });
    await book.admit(call('k', 5_000), () => Promise.resolve('a'));
    await expect(book.admit(call('k', 5_999), () => Promise.resolve('b'))).resolves.toBeUndefined();
    await expect(book.admit(call('k', 4_001), () => Promise.resolve('b'))).resolves.toBeUndefined();
    await expect(book.admit(call('k', 6_000), () => Promise.resolve('c'))).resolves.toBe('c');
    // the newest one is remembered now
    await expect(book.admit(call('k', 6_500), () => Promise.resolve('d'))).resolves.toBeUndefined();
  });

  it('another event of the session in between makes it a new event (the same prompt again after a tool ran)', async () => {
    const book = new AcceptedBook(clock().now);
    await book.admit(call('ask', 5_000), () => Promise.resolve('ask'));
    await book.admit(call(undefined, 5_010), () => Promise.resolve('guarded tool call'));
    await expect(book.admit(call('ask', 5_020), () => Promise.resolve('ask again'))).resolves.toBe(
      'ask again',
    );
    await book.admit(call('tool', 5_030), () => Promise.resolve('tool'));
    await expect(book.admit(call('ask', 5_040), () => Promise.resolve('ask 3'))).resolves.toBe('ask 3');
    // another session's events do not count
    await book.admit(call('other', 5_050, 'other session'), () => Promise.resolve('other'));
    await expect(book.admit(call('ask', 5_060), () => Promise.resolve('copy'))).resolves.toBeUndefined();
  });

  it('is bounded in count and in time: a forgotten event’s copy is journaled (twice, never lost)', async () => {
    const c = clock();
    const book = new AcceptedBook(c.now, { maxEntries: 3, keepMs: 1_000 });
    for (const k of ['a', 'b', 'c', 'd']) await book.admit(call(k, 5_000, k), () => Promise.resolve(k));
    expect(book.size).toBe(3);
    await expect(book.admit(call('a', 5_000, 'a'), () => Promise.resolve('a again'))).resolves.toBe(
      'a again',
    );
    await expect(
      book.admit(call('d', 5_000, 'd'), () => Promise.resolve('d again')),
    ).resolves.toBeUndefined();
    c.advance(1_001);
    await expect(book.admit(call('d', 5_000, 'd'), () => Promise.resolve('d late'))).resolves.toBe('d late');
    expect(book.size).toBe(1);
  });
});

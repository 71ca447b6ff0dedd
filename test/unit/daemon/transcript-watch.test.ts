import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { TranscriptWatch, type TranscriptWatchOptions } from '../../../src/daemon/listen/transcript-watch.js';
import type { SessionState } from '../../../src/notify/session-state.js';
import type { TranscriptSignal } from '../../../src/notify/transcript-signals.js';
import { waitFor } from '../../integration/daemon/helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const OUTCOME = (reason: string) =>
  `${JSON.stringify({ type: 'agent_turn_outcome', turnId: 't1', reason, resultKind: 'text' })}\n`;

function state(id: string, over: Partial<SessionState> = {}): SessionState {
  return {
    id,
    agent: 'droid',
    phase: 'working',
    transition: 'tool',
    lastEvent: 'PreToolUse',
    since: 1000,
    lastEventAt: 1000,
    startedAt: 1000,
    inTurn: true,
    ...over,
  };
}

/** A watcher over real files in a temp dir, its log records and the signals it reported. */
function setup(options: Partial<TranscriptWatchOptions> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'hkd-tw-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const records: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        records.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const states = new Map<string, SessionState>();
  const signals: [string, TranscriptSignal][] = [];
  const watch = new TranscriptWatch({
    logger: pino({ level: 'debug' }, sink),
    now: () => 1000,
    session: (id) => states.get(id),
    onSignal: (id, signal) => signals.push([id, signal]),
    pollMs: 20,
    ...options,
  });
  cleanups.push(() => watch.close());
  const track = (id: string, file: string, over: Partial<SessionState> = {}) => {
    const s = state(id, over);
    states.set(id, s);
    watch.track(s, file);
  };
  const watched = (id: string) =>
    waitFor(() => records.some((r) => r.msg === 'watching the transcript' && r.sessionId === id), 10_000);
  return { dir, records, states, signals, watch, track, watched };
}

describe('TranscriptWatch: new bytes only, bounded, never fatal', () => {
  it('reads only what is appended after the watch starts, a record split over reads included', async () => {
    // Reads of 16 bytes: every record arrives in pieces.
    const t = setup({ maxReadBytes: 16 });
    const file = join(t.dir, 's.jsonl');
    writeFileSync(file, OUTCOME('cancelled')); // before the watch: old news
    t.track('s', file);
    await t.watched('s');
    appendFileSync(file, '{"type":"message"}\n');
    appendFileSync(file, OUTCOME('completed').slice(0, 30));
    appendFileSync(file, OUTCOME('completed').slice(30));
    await waitFor(() => t.signals.length > 0, 10_000);
    expect(t.signals).toEqual([['s', { kind: 'turn-end', detail: 'completed' }]]);
  });

  it('a line longer than maxLineBytes is skipped to its end; the next one is read', async () => {
    const t = setup({ maxReadBytes: 1024, maxLineBytes: 4096 });
    const file = join(t.dir, 's.jsonl');
    writeFileSync(file, '');
    t.track('s', file);
    await t.watched('s');
    // An interrupt record inside a line too long to hold: not a record, and never held whole.
    const long = { type: 'agent_turn_outcome', turnId: 'x'.repeat(10_000), reason: 'cancelled' };
    appendFileSync(file, `${JSON.stringify(long)}\n`);
    appendFileSync(file, OUTCOME('error'));
    await waitFor(() => t.signals.length > 0, 10_000);
    expect(t.signals).toEqual([['s', { kind: 'turn-failed', detail: 'error' }]]);
  });

  it('watches regular files of this user only: no symlink, no relative path, no other suffix', async () => {
    const t = setup();
    const real = join(t.dir, 'real.jsonl');
    writeFileSync(real, '');
    const link = join(t.dir, 'link.jsonl');
    symlinkSync(real, link);
    mkdirSync(join(t.dir, 'dir.jsonl'));
    t.track('link', link);
    t.track('relative', 'real.jsonl');
    t.track('text', join(t.dir, 'notes.txt'));
    t.track('dir', join(t.dir, 'dir.jsonl'));
    const refusals = () => t.records.filter((r) => r.msg === 'transcript not watched');
    await waitFor(() => refusals().length === 4, 10_000);
    expect(Object.fromEntries(refusals().map((r) => [r.sessionId, r.reason]))).toEqual({
      link: 'not a regular file',
      relative: 'not an absolute .jsonl path',
      text: 'not an absolute .jsonl path',
      dir: 'not a regular file',
    });
    expect(t.watch.size).toBe(0);
    t.track('link', link); // again, at its next event: said once (checked below, after more file work)
    // Not written yet (Claude Code writes it after SessionStart): watched from the next event once it is.
    const later = join(t.dir, 'later.jsonl');
    t.track('later', later);
    await waitFor(() => t.records.some((r) => r.msg === 'transcript not there yet'), 10_000);
    writeFileSync(later, '');
    t.track('later', later);
    await t.watched('later');
    expect(refusals()).toHaveLength(4);
  });

  it('at most maxFiles files: the session silent longest goes; an ended session is no longer watched', async () => {
    const t = setup({ maxFiles: 2 });
    for (const [id, at] of [
      ['a', 1000],
      ['b', 3000],
      ['c', 2000],
    ] as const) {
      const file = join(t.dir, `${id}.jsonl`);
      writeFileSync(file, '');
      t.track(id, file, { lastEventAt: at });
      await t.watched(id);
    }
    expect(t.watch.size).toBe(2);
    appendFileSync(join(t.dir, 'a.jsonl'), OUTCOME('cancelled'));
    appendFileSync(join(t.dir, 'b.jsonl'), OUTCOME('cancelled'));
    await waitFor(() => t.signals.length > 0, 10_000);
    expect(t.signals).toEqual([['b', { kind: 'interrupt', detail: 'cancelled' }]]);
    t.watch.track(state('b', { phase: 'ended', transition: 'session-end' }), join(t.dir, 'b.jsonl'));
    expect(t.watch.size).toBe(1);
  });

  it('stops watching a session done for longer than graceMs, and one the table dropped', async () => {
    let now = 10_000;
    const t = setup({ now: () => now, graceMs: 5000 });
    for (const id of ['done', 'gone', 'working']) {
      const file = join(t.dir, `${id}.jsonl`);
      writeFileSync(file, '');
      t.track(id, file, id === 'done' ? { phase: 'done', inTurn: false, lastEventAt: now } : {});
      await t.watched(id);
    }
    t.states.delete('gone');
    await waitFor(() => t.watch.size === 2, 10_000);
    now += 6000;
    await waitFor(() => t.watch.size === 1, 10_000);
    // A working session is watched however long it has been silent (a long tool run).
    appendFileSync(join(t.dir, 'working.jsonl'), OUTCOME('cancelled'));
    await waitFor(() => t.signals.length > 0, 10_000);
    expect(t.signals.map(([id]) => id)).toEqual(['working']);
  });
});

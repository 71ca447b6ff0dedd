import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openNoiseStore } from '../../../src/journal/noise-store.js';
import { recordSent } from '../../../src/notify/noise.js';
import { observeSession, SESSION_ENDED_TTL_MS } from '../../../src/notify/session-state.js';
import { recordedClaudeEvents } from '../../helpers/claude-recorded.js';
import { makeTempDir } from '../../helpers/temp.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function harness(file?: string) {
  const temp = makeTempDir();
  cleanups.push(temp.cleanup);
  const logs: { level: string; obj: Record<string, unknown>; msg: string }[] = [];
  const logger = {
    warn: (obj: object, msg: string) =>
      logs.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
    error: (obj: object, msg: string) =>
      logs.push({ level: 'error', obj: obj as Record<string, unknown>, msg }),
  };
  let clock = 1_000_000;
  const timers: (() => void)[] = [];
  const open = () =>
    openNoiseStore({
      file: file ?? join(temp.dir, 'daemon', 'noise.json'),
      logger,
      now: () => clock,
      maxAgeMs: () => 60_000,
      setTimer: (fn) => {
        timers.push(fn);
        return {};
      },
      clearTimer: () => timers.splice(0),
    });
  return {
    dir: temp.dir,
    file: file ?? join(temp.dir, 'daemon', 'noise.json'),
    logs,
    open,
    timers,
    advance: (ms: number) => (clock += ms),
    now: () => clock,
  };
}

describe('openNoiseStore', () => {
  it('writes once per debounce, privately, and a new store reads it back', () => {
    const h = harness();
    const store = h.open();
    recordSent(
      store.state,
      [{ dedupeKey: 'k1', cooldownKey: 'r\u0000s', idle: true, sessionId: 's' }],
      h.now(),
    );
    store.changed();
    store.changed();
    expect(h.timers).toHaveLength(1);
    expect(existsSync(h.file)).toBe(false);
    h.timers.shift()!();
    expect(statSync(h.file).mode & 0o777).toBe(0o600);
    const again = h.open();
    expect(again.state.sent.get('k1')).toBe(h.now());
    expect(again.state.cooldowns.has('r\u0000s')).toBe(true);
    expect(again.state.idleNotified.has('s')).toBe(true);
  });

  it('flush writes at once; entries older than the max age are dropped on load', () => {
    const h = harness();
    const store = h.open();
    recordSent(store.state, [{ dedupeKey: 'old', idle: false }], h.now());
    h.advance(50_000);
    recordSent(store.state, [{ dedupeKey: 'new', idle: false }], h.now());
    store.changed();
    store.flush();
    expect(h.timers).toHaveLength(0);
    h.advance(20_000);
    expect([...h.open().state.sent.keys()]).toEqual(['new']);
  });

  it('a damaged file is moved aside with a log line and the store starts empty', () => {
    const h = harness();
    mkdirSync(join(h.dir, 'daemon'));
    writeFileSync(h.file, '{"v":1,"noise":');
    const store = h.open();
    expect(store.state.sent.size).toBe(0);
    expect(existsSync(h.file)).toBe(false);
    expect(readdirSync(join(h.dir, 'daemon')).some((f) => f.startsWith('noise.json.bad-'))).toBe(true);
    expect(h.logs).toMatchObject([{ level: 'error', msg: expect.stringContaining('damaged') }]);
    writeFileSync(h.file, JSON.stringify({ v: 9, noise: {} }));
    h.open();
    expect(h.logs[1]!.obj.problem).toBe('unknown version 9');
  });

  it('a write that fails is logged, never thrown', () => {
    const h = harness();
    writeFileSync(join(h.dir, 'blocker'), 'a file where the folder should be');
    const store = openNoiseStore({
      file: join(h.dir, 'blocker', 'noise.json'),
      logger: { warn: (o, m) => h.logs.push({ level: 'warn', obj: o as never, msg: m }), error: () => {} },
      now: h.now,
      maxAgeMs: () => 60_000,
    });
    store.changed();
    expect(() => store.flush()).not.toThrow();
    expect(h.logs).toMatchObject([{ level: 'warn', msg: expect.stringContaining('cannot save') }]);
    expect(readFileSync(join(h.dir, 'blocker'), 'utf8')).toContain('a file');
  });

  it('session states are saved beside the noise state; a bad entry is left out, ended ones pruned', () => {
    const h = harness();
    const store = h.open();
    const events = recordedClaudeEvents('print');
    for (const r of events.slice(0, 3)) observeSession(store.sessions, r.event, h.now());
    const done = recordedClaudeEvents('auto');
    for (const r of done) observeSession(store.sessions, r.event, h.now());
    store.changed();
    store.flush();
    const saved = JSON.parse(readFileSync(h.file, 'utf8')) as { sessionStates: unknown[] };
    expect(saved.sessionStates).toHaveLength(2);
    saved.sessionStates.push({ id: 'x', phase: 'dancing' }, 'not a state');
    writeFileSync(h.file, JSON.stringify(saved));
    const again = h.open();
    expect([...again.sessions.values()].map((s) => [s.phase, s.transition])).toEqual([
      ['working', 'tool'],
      ['ended', 'session-end'],
    ]);
    expect(h.logs).toEqual([]);
    // Ten minutes and a bit later the ended session is gone, the working one stays (a day at most).
    h.advance(SESSION_ENDED_TTL_MS + 1);
    expect([...h.open().sessions.values()].map((s) => s.phase)).toEqual(['working']);
  });
});

import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { killHard } from '../../helpers/procs.js';
import { makeTempDir } from '../../helpers/temp.js';
import { waitFor } from './helpers.js';
import { stopDaemon, useProcessCleanup } from './process-helpers.js';
import {
  DAEMON_PID_SH,
  handOffEnv,
  hookLogRecords,
  journaledTags,
  lineCounts,
  onToolEvents,
  signalQuietly,
  startFastDaemon,
  startHook,
  toolEvent,
  useClient,
  writeFastConfig,
  CLIENT_KINDS,
  type ClientKind,
} from './fast-client-helpers.js';

// The fast path under load, black-box: many real fast clients at once against one real daemon,
// and the daemon SIGKILLed in the middle of a burst. Effects only: the lines the commands appended, the
// daemon's journal, hookd.log.

useProcessCleanup();
const clients: ChildProcess[] = [];
let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
const daemons: ChildProcess[] = [];

/** Tags that do not appear exactly once in a count map (missing: 0). */
function notOnce(tags: string[], counts: Map<string, number>): Record<string, number> {
  return Object.fromEntries(tags.filter((t) => counts.get(t) !== 1).map((t) => [t, counts.get(t) ?? 0]));
}

/** One fast client per tag, all at once (a generous wait for the ACK: the machine is busy with them). */
function burst(tags: string[], runs: string) {
  const hooks = tags.map((tag) =>
    startHook('fast', {
      env: { ...env, RUNS: runs, TAG: tag, HOOKD_CLIENT_WAIT_S: '30' },
      cwd: tmp.dir,
      stdin: toolEvent(tag),
    }),
  );
  clients.push(...hooks.map((h) => h.child));
  return hooks;
}

const countOf = (list: string[]) => {
  const m = new Map<string, number>();
  for (const x of list) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
};

describe.each(CLIENT_KINDS)('the %s fast client', (kind: ClientKind) => {
  beforeAll(() => useClient(kind));

  describe('the fast path under load', () => {
    beforeEach(() => {
      tmp = makeTempDir('hkst-');
      env = handOffEnv(tmp.dir);
    });
    afterEach(async () => {
      for (const c of clients.splice(0)) if (c.exitCode === null && c.signalCode === null) killHard(c.pid);
      for (const d of daemons.splice(0)) await stopDaemon(d);
      tmp.cleanup();
    });

    it('500 concurrent clients against one daemon: each command runs once, each event is journaled once', async () => {
      const runs = join(tmp.dir, 'runs');
      // One line per run: the event's tag and the command's parent (the daemon, or a fallback's Node hook).
      writeFastConfig(env, onToolEvents(`printf "%s %s\\n" "$TAG" "${DAEMON_PID_SH}" >> "$RUNS"`));
      const daemon = await startFastDaemon(env);
      daemons.push(daemon);
      const tags = Array.from({ length: 500 }, (_, i) => `s${i % 25}-c${i}`);
      const t0 = performance.now();
      const hooks = burst(tags, runs);
      const results = await Promise.all(hooks.map((h) => h.done));
      const ms = performance.now() - t0;
      expect(results.filter((r) => r.code !== 0).map((r) => r.stderr.toString())).toEqual([]);

      const ran = countOf(
        [...lineCounts(runs).entries()].flatMap(([line, n]) => Array(n).fill(line.split(' ')[0]) as string[]),
      );
      expect(notOnce(tags, ran)).toEqual({});
      expect(ran.size).toBe(tags.length);
      const byDaemon = [...lineCounts(runs).keys()].filter((l) => l.endsWith(` ${daemon.pid}`)).length;
      expect(byDaemon).toBeGreaterThan(0); // the fast path was under test, not only its fallback

      // Every event reached the daemon's journal exactly once, and hookd.log has one event record each.
      await waitFor(() => journaledTags(env).length >= tags.length, 30_000, 'all events journaled');
      expect(notOnce(tags, countOf(journaledTags(env)))).toEqual({});
      // The daemon logs an event once it has answered it: wait for the records, then count them.
      const events = () => hookLogRecords(env).filter((r) => r.kind === 'event');
      await waitFor(() => events().length >= tags.length, 30_000, 'all event records').catch(() => {});
      expect(events()).toHaveLength(tags.length);
      expect(new Set(events().map((r) => r.eventId)).size).toBe(tags.length);
      console.log(
        `fast-path-stress: 500 concurrent clients done in ${ms.toFixed(0)} ms; ${byDaemon} ran in the daemon, ${500 - byDaemon} through the fallback`,
      );
      // 500 processes on 2 cores: the time they take is the machine's load (70 to 125 s seen at load
      // 100 to 300), not the property tested; the project's 60 s default would make it a timing test.
    }, 600_000);
  });

  describe('the daemon SIGKILLed in the middle of a burst of 200 events', () => {
    const tags = Array.from({ length: 200 }, (_, i) => `s${i % 10}-k${i}`);
    let runs: string;
    let wentAway: Set<string>;
    let answered: string[];
    let journaled: Map<string, number>;

    beforeAll(async () => {
      tmp = makeTempDir('hkst-');
      env = handOffEnv(tmp.dir);
      runs = join(tmp.dir, 'runs');
      // The sleep keeps events in flight in the daemon when it is killed.
      writeFastConfig(env, onToolEvents('printf "%s\\n" "$TAG" >> "$RUNS"; sleep 0.3'));
      const first = await startFastDaemon(env);
      daemons.push(first);
      const hooks = burst(tags, runs);
      // Some commands have run, most events are still on their way: now.
      await waitFor(() => lineCounts(runs).size >= 20, 60_000, 'the first 20 commands');
      signalQuietly(first.pid, 'SIGKILL');
      const results = await Promise.all(hooks.map((h) => h.done));
      // Every client ended: 0 (answered, or through the fallback) or 1 (the daemon died after its ACK).
      expect(results.filter((r) => r.code !== 0 && r.code !== 1)).toEqual([]);
      wentAway = new Set(tags.filter((_, i) => results[i]!.code === 1));
      answered = tags.filter((t) => !wentAway.has(t));
      // A new daemon takes the events the fallback spooled (it found no daemon) before it listens.
      daemons.push(await startFastDaemon(env));
      journaled = countOf(journaledTags(env));
      const ran = lineCounts(runs);
      const lost = tags.filter((t) => !journaled.has(t));
      console.log(
        `fast-path-stress: daemon killed mid-burst: ${answered.length} of 200 clients answered or fell back, ` +
          `${wentAway.size} saw the daemon go away after its ACK (${[...wentAway].filter((t) => ran.has(t)).length} ` +
          `of their commands had started); ${lost.length} events not journaled (${lost.filter((t) => wentAway.has(t)).length} of them went away)`,
      );
    });
    afterAll(async () => {
      for (const c of clients.splice(0)) if (c.exitCode === null && c.signalCode === null) killHard(c.pid);
      for (const d of daemons.splice(0)) await stopDaemon(d);
      tmp.cleanup();
    });

    it('no command ran twice; every event answered or fallen back ran once and is journaled once', () => {
      const ran = lineCounts(runs);
      expect([...ran.entries()].filter(([, n]) => n > 1)).toEqual([]);
      expect(notOnce(answered, ran)).toEqual({});
      expect(notOnce(answered, journaled)).toEqual({});
    });

    // Every event delivered once, through the fallback or the journal: a client that saw the
    // daemon die after its ACK never falls back, so the daemon records each event in flight before its ACK
    // and the next daemon journals what the dead one left (src/journal/inflight.ts).
    it('every event the dead daemon had acknowledged is journaled once after the restart', () => {
      expect(wentAway.size).toBeGreaterThan(0);
      expect(notOnce([...wentAway], journaled)).toEqual({});
    });
  });
});

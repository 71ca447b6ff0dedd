import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DROID_EVENTS } from '../../src/events/names.js';
import { describeWithAgent } from '../harness/availability.js';
import { agentHookRuns, runRealDroid, type DroidRun } from '../helpers/droid.js';
import { makeTempDir } from '../helpers/temp.js';
import { buildNativeClientCommand } from '../../src/install/hookd-command.js';
import {
  CLIENT_KINDS,
  DAEMON_PID_SH,
  handOffEnv,
  hookLogRecords,
  NATIVE_CLIENT,
  startFastDaemon,
  TRANSPORTS,
  useClient,
  writeFastConfig,
} from '../integration/daemon/fast-client-helpers.js';
import { ensureBuilt, stopDaemon } from '../integration/daemon/process-helpers.js';

// The real Droid CLI 0.225.2 with the fast client as its hook command on all nine events, against a real
// daemon with its listener on: the native client as `hookd install` wires it
// (`HOOKD_NODE=<node> <repo>/dist/hookd-client --agent droid`). The same session is then played with
// the Node path (`node dist/hookd.cjs hook`) as the hook command, and the hook time per event Droid
// recorded in its own transcripts is printed for both (not asserted: figures for the docs). Droid runs
// in network and PID namespaces of its own, as every e2e run here: the client reaches the daemon through
// the unix socket in the shared runtime dir, which needs no network.

const HANG_TIMEOUT_SEC = 1;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0
    ? NaN
    : s.length % 2
      ? s[(s.length - 1) / 2]!
      : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const SCRIPT = [
  { tool: 'shell', input: { command: 'echo hi' } },
  { tool: 'shell', input: { command: 'echo forbidden-marker > leaked.txt' } },
  { tool: 'write', input: { path: 'hook-demo.txt', content: 'hello\n' } },
  { tool: 'subagent', input: { description: 'Tiny sub task', reply: 'subagent finished' } },
  { text: 'All done.' },
];

describeWithAgent('droid', 'the fast client under the real Droid CLI 0.225.2', () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let env: Record<string, string>;
  let daemon: ChildProcess | undefined;
  const fastRuns: Partial<Record<(typeof CLIENT_KINDS)[number], DroidRun>> = {};
  let node: DroidRun;
  const capture = () => join(tmp.dir, 'capture.txt');
  /** `<event> <parent pid> <event id> <cwd>` per recorder run. */
  const captured = () =>
    existsSync(capture())
      ? readFileSync(capture(), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => {
            const [ev, ppid, id, ...cwd] = l.split(' ');
            return { ev: ev!, ppid: Number(ppid), id: id!, cwd: cwd.join(' ') };
          })
      : [];

  beforeAll(async () => {
    ensureBuilt();
    tmp = makeTempDir('hkd-fastc-');
    env = handOffEnv(tmp.dir);
    const record = {
      type: 'command',
      name: 'recorder',
      // The process that started it: the daemon (through its spawner), or the hook process.
      command: `printf "%s %s %s %s\\n" "$HOOKD_EVENT" "${DAEMON_PID_SH}" "$HOOKD_EVENT_ID" "$PWD" >> "$CAP"`,
      env: { CAP: capture() },
    };
    // A guard in sh: the event's stdin names the command Droid is about to run.
    const guard = {
      type: 'command',
      name: 'guard',
      command:
        'if grep -q forbidden-marker; then echo "Blocked by hookd guard: forbidden-marker" >&2; exit 2; fi',
      timeout: 10,
    };
    writeFastConfig(env, {
      ...Object.fromEntries(DROID_EVENTS.map((e) => [e, [{ hooks: [record] }]])),
      PreToolUse: [{ hooks: [record] }, { matcher: 'Execute', hooks: [guard] }],
      Stop: [
        { hooks: [record] },
        { hooks: [{ type: 'command', command: 'sleep 30', name: 'hang', timeout: HANG_TIMEOUT_SEC }] },
      ],
    });
    daemon = await startFastDaemon(env);
    const common = { env, mode: 'jsonrpc' as const, script: SCRIPT };
    for (const kind of CLIENT_KINDS) {
      useClient(kind);
      fastRuns[kind] = await runRealDroid({
        ...common,
        outDir: join(tmp.dir, `fast-${kind}`),
        hookCmd: buildNativeClientCommand(NATIVE_CLIENT, 'droid'),
      });
    }
    node = await runRealDroid({
      ...common,
      outDir: join(tmp.dir, 'node'),
      hookCmd: TRANSPORTS.node('droid'),
    });

    // The figures: Droid's own hook time per event, both transports, the same session and commands.
    const lines: string[] = [];
    const byEvent = (run: DroidRun) => {
      const m = new Map<string, number[]>();
      for (const r of agentHookRuns(run))
        m.set(r.hookEventName, [...(m.get(r.hookEventName) ?? []), r.hookEndTime - r.hookStartTime]);
      return m;
    };
    const columns = [
      ...Object.entries(fastRuns).map(([kind, run]) => [kind, byEvent(run)] as const),
      ['node', byEvent(node)] as const,
    ];
    const cell = (name: string, xs: number[]) =>
      `${name} ${median(xs).toFixed(0).padStart(5)} ms (n=${xs.length})`.padEnd(26);
    for (const ev of DROID_EVENTS) {
      if (!columns.some(([, m]) => m.has(ev))) continue;
      lines.push(`  ${ev.padEnd(17)} ${columns.map(([name, m]) => cell(name, m.get(ev) ?? [])).join(' ')}`);
    }
    const all = (m: Map<string, number[]>) =>
      [...m.entries()].filter(([e]) => e !== 'Stop').flatMap(([, v]) => v);
    lines.push(
      `  all but Stop      ${columns.map(([name, m]) => cell(name, all(m))).join(' ')} (Stop waits for its 1 s hang)`,
    );
    console.log(
      `droid-fast-client: Droid's hook time per event (median, from its transcripts)\n${lines.join('\n')}`,
    );
  });

  afterAll(async () => {
    await stopDaemon(daemon);
    tmp?.cleanup();
  });

  describe.each(CLIENT_KINDS)('Droid with the %s fast client as its hook command', (kind) => {
    let fast: DroidRun;
    beforeAll(() => {
      fast = fastRuns[kind]!;
    });

    it('ran the session with the hooks as written', () => {
      expect(fast.rc, fast.stderr).toBe(0);
      expect(node.rc, node.stderr).toBe(0);
      expect(fast.droidLogs).not.toContain('Invalid hooks');
    });

    it('every one of the nine events reached hookd and ran in the daemon, each once', () => {
      const seen = captured().filter((c) => c.cwd === fast.work);
      expect(new Set(seen.map((c) => c.ev))).toEqual(new Set(DROID_EVENTS));
      for (const c of seen) expect(c.ppid, `${c.ev} ran in the daemon, not a fallback`).toBe(daemon!.pid);
      expect(new Set(seen.map((c) => c.id)).size).toBe(seen.length);
      // One hook run of Droid per event hookd ran, and each answered at once and cleanly but the guard's.
      const runs = agentHookRuns(fast);
      expect(runs.map((r) => r.hookEventName).sort()).toEqual(seen.map((c) => c.ev).sort());
      const events = hookLogRecords(env).filter((r) => r.kind === 'event' && r.cwd === fast.work);
      expect(events.map((r) => r.eventId).sort()).toEqual(seen.map((c) => c.id).sort());
      for (const r of events) expect(r, String(r.event)).toMatchObject({ handoff: 'acked' });
    });

    it('the blocking guard stopped the Execute call, and the model saw its reason', () => {
      expect(existsSync(join(fast.work, 'leaked.txt'))).toBe(false);
      expect(fast.fakeModelLog).toContain('Blocked by hookd guard: forbidden-marker');
      expect(existsSync(join(fast.work, 'hook-demo.txt'))).toBe(true);
      const blocked = agentHookRuns(fast).filter((r) => r.hookResults.some((h) => h.exitCode === 2));
      expect(blocked.map((r) => r.hookEventName)).toEqual(['PreToolUse']);
      expect(blocked[0]!.hookResults[0]!.stderr).toContain('Blocked by hookd guard');
    });

    it('the hanging Stop command was killed at its timeout; the agent was not held for its 30 s', () => {
      const stops = captured().filter((c) => c.cwd === fast.work && c.ev === 'Stop');
      const hung = hookLogRecords(env).filter(
        (r) => r.kind === 'command' && r.name === 'hang' && stops.some((s) => s.id === r.eventId),
      );
      expect(hung).toHaveLength(stops.length);
      for (const r of hung)
        expect(r).toMatchObject({ timedOut: true, killedBy: 'timeout', timeoutMs: HANG_TIMEOUT_SEC * 1000 });
      for (const r of agentHookRuns(fast).filter((h) => h.hookEventName === 'Stop')) {
        expect(r.hookEndTime - r.hookStartTime).toBeLessThan(30_000);
        expect(r.hookResults).toEqual([{ exitCode: 0, stdout: '', stderr: '' }]);
      }
    });
  });
});

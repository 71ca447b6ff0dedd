import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResult } from '../../src/doctor/types.js';
import { DROID_EVENTS } from '../../src/events/names.js';
import type { SessionRecord } from '../../src/ledger/types.js';
import { describeWithAgent } from '../harness/availability.js';
import { agentHookRuns, runRealDroid, type DroidRun } from '../helpers/droid.js';
import { ensureBuilt, spawnDaemon, stopDaemon } from '../integration/daemon/process-helpers.js';
import { loopbackServer } from '../integration/daemon/helpers.js';
import { waitFor } from '../helpers/procs.js';
import { jsonLines } from '../helpers/json-lines.js';
import { runHookd } from '../helpers/run-hookd.js';
import { isolatedEnv, makeTempDir } from '../helpers/temp.js';

// The whole product through the REAL Droid CLI 0.225.2: `hookd install` into a throwaway HOME writes
// the hooks the agent then runs with; a real hookd daemon (started here, outside the harness's network
// and PID namespace, reached through its unix socket) turns the events into webhook notifications to a
// loopback receiver and keeps the session ledger; `hookd doctor` inspects the agent's real settings and
// logs. A second run with one broken settings entry shows Droid dropping every hook, and doctor saying so.

const HANG_WANTS_SEC = 30;
const HANG_TIMEOUT_SEC = 1;

interface Captured {
  stdin: string;
  ev: string;
  sid: string;
  eventId: string;
  pwd: string;
}

interface Delivered {
  channel: string;
  notification: {
    title: string;
    body: string;
    event: string;
    rule: string;
    sessionId?: string;
    eventIds: string[];
  };
}

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let receiver: Awaited<ReturnType<typeof loopbackServer>>;
let daemon: ChildProcess | undefined;
let installedHooks: Record<string, unknown>;
let installedCommand: string;
let exec: DroidRun;
let rpc: DroidRun;
let broken: DroidRun;
// A prompt of its own: in exec mode Droid titles the session with the prompt.
const prompt = `Tidy the parser notes, run ${Date.now().toString(36)}`;

const capture = () => join(tmp.dir, 'capture.jsonl');
const captured = () => jsonLines<Captured>(capture());
const payloadOf = (c: Captured) => JSON.parse(c.stdin) as Record<string, unknown>;
const hookLog = () => jsonLines<Record<string, unknown>>(join(env.HOOKD_STATE_DIR!, 'logs', 'hookd.log'));
const ledgerFile = () => join(env.HOOKD_DATA_DIR!, 'ledger', 'sessions.jsonl');
// Notifications only: a shown "waiting" one answered later also gets a `resolved` event (docs/sessions.md).
const delivered = () =>
  receiver.received
    .filter((r) => r.method === 'POST' && (r.json as { type?: string }).type !== 'resolved')
    .map((r) => r.json as Delivered);

function hookdConfig(webhookUrl: string): unknown {
  // One JSON line per command run: the raw stdin, the event as hookd named it, and hookd's event id.
  const recorder = `node -e 'const fs=require("fs");const e=process.env;fs.appendFileSync(e.CAP,JSON.stringify({stdin:fs.readFileSync(0,"utf8"),ev:e.HOOKD_EVENT,sid:e.HOOKD_SESSION_ID,eventId:e.HOOKD_EVENT_ID,pwd:process.cwd()})+"\\n")'`;
  const record = {
    hooks: [{ type: 'command', command: recorder, name: 'recorder', env: { CAP: capture() } }],
  };
  const hang = `sleep ${HANG_WANTS_SEC}`;
  return {
    hooks: {
      ...Object.fromEntries(DROID_EVENTS.map((e) => [e, [record]])),
      Stop: [
        record,
        { hooks: [{ type: 'command', command: hang, name: 'hang', timeout: HANG_TIMEOUT_SEC }] },
      ],
    },
    notify: {
      // The harness answers permission prompts at once, which the default waiting delay would (rightly)
      // cancel; this file tests that the rules fire, test/integration/daemon/waiting-delay.test.ts the delay.
      waitingDelayMs: 0,
      channels: { ops: { type: 'webhook', url: `${webhookUrl}/hookd` } },
      rules: [
        { name: 'finished', on: 'Stop', session: 'main', channels: ['ops'] },
        // The two runs' sub-agents end alike ("Worker: Tiny sub task", same counts): no dedupe here.
        { name: 'ended', on: 'SessionEnd', channels: ['ops'], dedupeWindowMs: 0 },
        { name: 'attention', on: 'Notification', channels: ['ops'] },
      ],
    },
    // The harness runs Droid (and so every hook) in a PID namespace of its own, where a daemon a hook
    // started would die with the run: the test starts the daemon, and the hand-off gets time enough
    // that a busy machine never makes a hook spool (the test asserts every event was acknowledged).
    daemon: { handoffTimeoutMs: 5000 },
  };
}

/** The sessions of one run, from what the recorder saw: the main one has no calling session. */
function sessionsOf(run: DroidRun): { main: string; all: string[] } {
  const starts = captured().filter((c) => c.pwd === run.work && c.ev === 'SessionStart');
  const main = starts.find((c) => payloadOf(c).calling_session_id === undefined);
  if (!main) throw new Error(`no main SessionStart recorded for ${run.work}`);
  return { main: main.sid, all: [...new Set(starts.map((c) => c.sid))] };
}

function sessionEndOf(sessionId: string): Record<string, unknown> {
  const end = captured().find((c) => c.sid === sessionId && c.ev === 'SessionEnd');
  if (!end) throw new Error(`no SessionEnd recorded for ${sessionId}`);
  return payloadOf(end);
}

/** The first line of Droid's own transcript of a session: `{"type":"session_start","title":...}`. */
function transcriptStart(run: DroidRun, sessionId: string): Record<string, unknown> {
  const file = run.transcripts().find((f) => f.endsWith(`/${sessionId}.jsonl`));
  if (!file) throw new Error(`no transcript for ${sessionId} in ${run.home}`);
  return JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!) as Record<string, unknown>;
}

async function doctor(home: string): Promise<{ code: number | null; checks: Map<string, CheckResult> }> {
  const ran = await runHookd(['doctor', '--json'], { env: { ...env, HOME: home }, cwd: tmp.dir });
  const checks = JSON.parse(ran.stdout) as CheckResult[];
  return { code: ran.code, checks: new Map(checks.map((c) => [c.id, c])) };
}

describeWithAgent('droid', 'the whole product under the real Droid CLI 0.225.2', () => {
  beforeAll(async () => {
    ensureBuilt();
    tmp = makeTempDir('hkd-full-');
    receiver = await loopbackServer();
    env = isolatedEnv(tmp.dir, {
      HOOKD_RUNTIME_DIR: join(tmp.dir, 'run'),
      HOOKD_STATE_DIR: join(tmp.dir, 'state'),
      HOOKD_DATA_DIR: join(tmp.dir, 'data'),
    });
    // The hand-off to the daemon is the point here; and no platform key from the host may leak in.
    delete env.HOOKD_DAEMON;
    delete env.FACTORY_API_KEY;
    writeFileSync(env.HOOKD_CONFIG!, JSON.stringify(hookdConfig(receiver.url)));
    daemon = await spawnDaemon(env);

    // `hookd install` into a throwaway HOME; the agent then runs with exactly the hooks it wrote.
    const installHome = join(tmp.dir, 'install-home');
    const install = await runHookd(['install', '--transport', 'node', '--all-events', '--json'], {
      env: { ...env, HOME: installHome },
      cwd: tmp.dir,
    });
    expect(install.code, install.stderr).toBe(0);
    installedCommand = (JSON.parse(install.stdout) as { command: string }).command;
    const written = JSON.parse(readFileSync(join(installHome, '.factory', 'settings.json'), 'utf8')) as {
      hooks: Record<string, unknown>;
    };
    installedHooks = written.hooks;

    exec = await runRealDroid({ outDir: join(tmp.dir, 'exec'), env, hooksJson: installedHooks, prompt });
    rpc = await runRealDroid({
      outDir: join(tmp.dir, 'rpc'),
      env,
      hooksJson: installedHooks,
      mode: 'jsonrpc',
    });

    // Deliveries and ledger records are asynchronous; wait (bounded) until every session of both runs
    // has its SessionEnd notification and its ledger record, each main session its Stop notification,
    // and each permission prompt its notification.
    const mains = [sessionsOf(exec).main, sessionsOf(rpc).main];
    const sessions = [...sessionsOf(exec).all, ...sessionsOf(rpc).all];
    const sent = (event: string, sessionId: string) =>
      delivered().some((d) => d.notification.event === event && d.notification.sessionId === sessionId);
    const settled = await waitFor(
      () =>
        mains.every((m) => sent('Stop', m)) &&
        sessions.every((sid) => sent('SessionEnd', sid)) &&
        delivered().filter((d) => d.notification.event === 'Notification').length ===
          captured().filter((c) => c.ev === 'Notification').length &&
        sessions.every((sid) => jsonLines<SessionRecord>(ledgerFile()).some((r) => r.sessionId === sid)),
      300,
      100,
    );
    expect(settled, 'every notification and ledger record arrived').toBe(true);
  });

  afterAll(async () => {
    await stopDaemon(daemon);
    await receiver?.close();
    tmp?.cleanup();
  });

  describe('hookd install + daemon + doctor under the real Droid CLI 0.225.2', () => {
    it('ran the agent with the hooks `hookd install` wrote, and the agent kept them as written', () => {
      expect(exec.rc, exec.stderr).toBe(0);
      expect(rpc.rc, rpc.stderr).toBe(0);
      for (const run of [exec, rpc]) {
        expect(run.droidLogs).not.toContain('Invalid hooks');
        const settings = JSON.parse(readFileSync(join(run.home, '.factory', 'settings.json'), 'utf8')) as {
          hooks: Record<string, { matcher: string; hooks: { command: string; timeout: number }[] }[]>;
        };
        expect(settings.hooks).toEqual(installedHooks);
        expect(Object.keys(settings.hooks).sort()).toEqual([...DROID_EVENTS].sort());
        for (const e of DROID_EVENTS)
          expect(settings.hooks[e]).toEqual([
            {
              matcher: '',
              hooks: [{ type: 'command', command: `${installedCommand} --event ${e}`, timeout: 60 }],
            },
          ]);
      }
    });

    it('the agent ran hookd for each event it fired, and hookd answered each time at once and silently', () => {
      for (const run of [exec, rpc]) {
        const runs = agentHookRuns(run);
        expect(runs.length).toBeGreaterThan(0);
        for (const r of runs) {
          expect(r.hookCommands).toEqual([
            { type: 'command', command: `${installedCommand} --event ${r.hookEventName}`, timeout: 60 },
          ]);
          expect(r.hookResults, r.hookEventName).toEqual([{ exitCode: 0, stdout: '', stderr: '' }]);
          expect(r.hookStatus).toBe('completed');
        }
        const logged = hookLog().filter((r) => r.kind === 'event' && r.cwd === run.work);
        expect(runs.map((r) => r.hookEventName).sort()).toEqual(logged.map((r) => r.event).sort());
      }
    });

    it('`hookd install` run again on the agent’s real settings file finds nothing to change', async () => {
      const again = await runHookd(['install', '--transport', 'node', '--all-events', '--json'], {
        env: { ...env, HOME: exec.home },
        cwd: tmp.dir,
      });
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ changed: false });
    });

    it('every one of the nine events reached hookd, and every one was handed to the daemon', () => {
      const seen = captured();
      expect(new Set(seen.map((c) => c.ev))).toEqual(new Set(DROID_EVENTS));
      for (const c of seen) expect(payloadOf(c).hook_event_name).toBe(c.ev);
      // Each event hookd logged ran the recorder once and was left in the spool the running daemon
      // watches (durable there; the next test shows the daemon took every one).
      const events = hookLog().filter((r) => r.kind === 'event');
      expect(events.map((r) => r.eventId).sort()).toEqual(seen.map((c) => c.eventId).sort());
      for (const r of events)
        expect(r, `${String(r.event)} ${String(r.eventId)}`).toMatchObject({ handoff: 'queued' });
    });

    it('the daemon saw every event of every session: the ledger counts them', async () => {
      const ran = await runHookd(['sessions', '--json', '--limit', '0'], { env, cwd: tmp.dir });
      expect(ran.code, ran.stderr).toBe(0);
      const records = JSON.parse(ran.stdout) as SessionRecord[];
      for (const run of [exec, rpc]) {
        for (const sid of sessionsOf(run).all) {
          const record = records.find((r) => r.sessionId === sid);
          expect(record, `ledger record of ${sid}`).toBeDefined();
          expect(record!.eventCount).toBe(captured().filter((c) => c.sid === sid).length);
        }
      }
    });

    it('the notification rules fired as configured, and only they', () => {
      const all = delivered();
      expect(new Set(all.map((d) => d.notification.event))).toEqual(
        new Set(['Stop', 'SessionEnd', 'Notification']),
      );
      for (const d of all) expect(d.channel).toBe('ops');
      const mains = [exec, rpc].map((r) => sessionsOf(r).main);
      // Stop: main sessions only (each run's sub-agent session also had a Stop).
      const stops = all.filter((d) => d.notification.event === 'Stop');
      for (const d of stops) expect(mains).toContain(d.notification.sessionId);
      const subagentStops = captured().filter((c) => c.ev === 'Stop' && !mains.includes(c.sid));
      expect(subagentStops.length).toBeGreaterThan(0);
      // SessionEnd: every session, sub-agents too.
      for (const run of [exec, rpc])
        for (const sid of sessionsOf(run).all)
          expect(
            all.some((d) => d.notification.event === 'SessionEnd' && d.notification.sessionId === sid),
          ).toBe(true);
      // Notification: the jsonrpc run's permission prompts, named by the tool.
      const prompts = all.filter((d) => d.notification.event === 'Notification');
      expect(prompts.length).toBeGreaterThan(0);
      for (const d of prompts)
        expect(d.notification.title).toMatch(/^Needs your permission: (Execute|Create)/);
      // Each delivery carries the ids of the events hookd handed over.
      const ids = new Set(captured().map((c) => c.eventId));
      for (const d of all) for (const id of d.notification.eventIds) expect(ids).toContain(id);
    });

    it('the Stop notification carries the final message and the session title', () => {
      const main = sessionsOf(exec).main;
      const title = transcriptStart(exec, main).title as string;
      expect(title).toBe(prompt);
      const agentOutput = readFileSync(join(exec.outDir, 'agent.stdout'), 'utf8');
      const finalMessage = (JSON.parse(agentOutput) as { result: string }).result;
      expect(finalMessage).toBe('All done: ran `echo hi`, created hook-demo.txt and ran a sub-agent.');
      const stop = delivered().find(
        (d) => d.notification.event === 'Stop' && d.notification.sessionId === main,
      );
      expect(stop).toBeDefined();
      // Default texts: "Finished: <title> in <project>" (no git branch in the work dir), and the body
      // opens with the final message.
      expect(stop!.notification.title).toBe(`Finished: ${title} in work`);
      expect(stop!.notification.body.split('\n')[0]).toBe(finalMessage);
      const stopEvent = captured().find((c) => c.sid === main && c.ev === 'Stop')!;
      expect(stop!.notification.eventIds).toEqual([stopEvent.eventId]);
    });

    it('the ledger has each main session with its duration, message count and title', async () => {
      for (const run of [exec, rpc]) {
        const main = sessionsOf(run).main;
        const ran = await runHookd(['sessions', 'show', main, '--json'], { env, cwd: tmp.dir });
        expect(ran.code, ran.stderr).toBe(0);
        const record = JSON.parse(ran.stdout) as SessionRecord;
        const end = sessionEndOf(main);
        expect(record).toMatchObject({
          sessionId: main,
          isSubagent: false,
          agent: 'droid',
          cwd: run.work,
          messageCount: end.message_count,
          title: transcriptStart(run, main).title,
          hookTimeouts: 1,
        });
        expect(record.durationMs).toBeGreaterThan(0);
        expect(record.durationMs).toBe(end.session_duration_ms);
        // The SessionEnd notification says the same: the title, and the message count.
        const ended = delivered().find(
          (d) => d.notification.event === 'SessionEnd' && d.notification.sessionId === main,
        );
        expect(ended!.notification.body).toContain(`${String(record.title)} in work`);
        expect(ended!.notification.body).toContain(`${String(end.message_count)} messages`);
      }
    });

    it('the hanging Stop command was killed at its timeout and never held the agent', () => {
      const log = hookLog();
      const hung = log.filter((r) => r.kind === 'command' && r.name === 'hang');
      // One per Stop: two runs, each with a main and a sub-agent session.
      expect(hung).toHaveLength(captured().filter((c) => c.ev === 'Stop').length);
      for (const r of hung)
        expect(r).toMatchObject({ timedOut: true, killedBy: 'timeout', timeoutMs: HANG_TIMEOUT_SEC * 1000 });
      // A logic bound: the hook answered long before the command's own 30 s, and every event's hook
      // answered within the agent-side timeout `hookd install` wrote.
      const agentTimeoutMs = 60 * 1000;
      for (const r of log.filter((l) => l.kind === 'event')) {
        expect(r.durationMs as number).toBeLessThan(agentTimeoutMs);
        if (r.event === 'Stop') expect(r.durationMs as number).toBeLessThan(HANG_WANTS_SEC * 1000);
        expect(r.exitCode).toBe(0);
      }
      // The same bound as the agent measured it, from its own transcript.
      for (const r of [...agentHookRuns(exec), ...agentHookRuns(rpc)]) {
        expect(r.hookEndTime - r.hookStartTime).toBeLessThan(agentTimeoutMs);
        if (r.hookEventName === 'Stop')
          expect(r.hookEndTime - r.hookStartTime).toBeLessThan(HANG_WANTS_SEC * 1000);
      }
    });

    it('`hookd doctor` on the agent’s real HOME is green, daemon included', async () => {
      const { code, checks } = await doctor(exec.home);
      const bad = [...checks.values()].filter((c) => c.status === 'fail' || c.status === 'warn');
      expect(bad, JSON.stringify(bad, null, 2)).toEqual([]);
      expect(code).toBe(0);
      for (const id of ['config', 'droid-settings-user', 'droid-hooks', 'droid-log', 'daemon', 'channel:ops'])
        expect(checks.get(id)?.status, id).toBe('ok');
      expect(checks.get('droid-hooks')!.detail).toContain('9 events wired');
      expect(checks.get('daemon')!.detail).toContain(`pid ${daemon!.pid}`);
    });
  });

  describe('a settings file with one entry Droid rejects', () => {
    const bad = { matcher: '', hooks: [{ type: 'command', command: 'true', timeout: '30' }] };
    let before: number;

    beforeAll(async () => {
      before = captured().length;
      const hooks = { ...installedHooks, Stop: [...(installedHooks.Stop as unknown[]), bad] };
      broken = await runRealDroid({
        outDir: join(tmp.dir, 'broken'),
        env,
        hooksJson: hooks,
        script: [{ tool: 'shell', input: { command: 'echo hi' } }, { text: 'done' }],
        agentTimeoutSec: 60,
      });
    });

    it('makes Droid drop every hook: nothing reached hookd', () => {
      expect(broken.rc, broken.stderr).toBe(0);
      expect(broken.droidLogs).toContain('Invalid hooks in settings.json');
      expect(captured()).toHaveLength(before);
      expect(hookLog().filter((r) => r.cwd === broken.work)).toEqual([]);
      expect(agentHookRuns(broken)).toEqual([]);
      expect(broken.transcripts().length).toBeGreaterThan(0);
    });

    it('and `hookd doctor` reports the entry and the rejection in Droid’s log', async () => {
      const settingsFile = join(broken.home, '.factory', 'settings.json');
      const { code, checks } = await doctor(broken.home);
      expect(code).toBe(1);
      const settings = checks.get('droid-settings-user')!;
      expect(settings.status).toBe('fail');
      expect(settings.detail).toContain(settingsFile);
      expect(settings.detail).toContain('hooks.Stop[1].hooks[0].timeout');
      const log = checks.get('droid-log')!;
      expect(log.status).toBe('fail');
      expect(log.detail).toContain(settingsFile);
      expect(log.detail).toContain('Droid ran none of its hooks');
      expect(checks.get('droid-hooks')!.status).toBe('warn');
    });
  });
});

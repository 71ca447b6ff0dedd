import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DROID_EVENTS } from '../../src/events/names.js';
import { describeWithAgent } from '../harness/availability.js';
import { readmeGuardHook, runRealDroid, type DroidRun } from '../helpers/droid.js';
import { HOOKD_BIN } from '../helpers/fixtures.js';
import { jsonLines } from '../helpers/json-lines.js';
import { isolatedEnv, makeTempDir } from '../helpers/temp.js';

// hookd wired as THE hook command of the real Droid CLI for every event, with commands configured in
// hookd: a recorder on every event, a blocking guard on Execute, and a Stop command that hangs.

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
const capture = () => join(tmp.dir, 'capture.jsonl');

function hookdConfig(): unknown {
  const recorder = `node -e 'const fs=require("fs");const stdin=fs.readFileSync(0,"utf8");const e=process.env;fs.appendFileSync(e.CAP, JSON.stringify({stdin, pwd: process.cwd(), ev: e.hook_event_name, sid: e.session_id, tool: e.tool_name||null, hookdEvent: e.HOOKD_EVENT, factoryDir: e.FACTORY_PROJECT_DIR||null})+"\\n")'`;
  return {
    hooks: {
      ...Object.fromEntries(
        DROID_EVENTS.map((e) => [
          e,
          [{ hooks: [{ type: 'command', command: recorder, name: 'recorder', env: { CAP: capture() } }] }],
        ]),
      ),
      PreToolUse: [
        { hooks: [{ type: 'command', command: recorder, name: 'recorder', env: { CAP: capture() } }] },
        {
          matcher: 'Execute',
          hooks: [readmeGuardHook()],
        },
      ],
      Stop: [
        { hooks: [{ type: 'command', command: recorder, name: 'recorder', env: { CAP: capture() } }] },
        { hooks: [{ type: 'command', command: 'sleep 30', name: 'hang', timeout: 1 }] },
      ],
    },
  };
}

describeWithAgent('droid', 'hookd under the real Droid CLI 0.225.2', () => {
  describe('hookd under the real Droid CLI 0.225.2', () => {
    let exec: DroidRun;
    let rpc: DroidRun;

    beforeAll(async () => {
      tmp = makeTempDir('hkd-e2e-');
      env = isolatedEnv(tmp.dir, { HOOKD_DAEMON: '0' });
      writeFileSync(env.HOOKD_CONFIG!, JSON.stringify(hookdConfig()));
      exec = await runRealDroid({
        outDir: join(tmp.dir, 'exec'),
        env,
        hookCmd: `node ${HOOKD_BIN} hook`,
        script: [
          { tool: 'shell', input: { command: 'echo hi' } },
          { tool: 'shell', input: { command: 'echo forbidden-marker > leaked.txt' } },
          { tool: 'write', input: { path: 'hook-demo.txt', content: 'hello\n' } },
          { tool: 'subagent', input: { description: 'Tiny sub task', reply: 'subagent finished' } },
          { text: 'All done.' },
        ],
      });
      const execCaptures = jsonLines(capture()).length;
      rpc = await runRealDroid({
        outDir: join(tmp.dir, 'rpc'),
        env,
        hookCmd: `node ${HOOKD_BIN} hook`,
        mode: 'jsonrpc',
      });
      expect(jsonLines(capture()).length).toBeGreaterThan(execCaptures);
    });
    afterAll(() => tmp?.cleanup());

    it('the agent accepted the hooks and finished', () => {
      expect(exec.rc, exec.stderr).toBe(0);
      expect(rpc.rc, rpc.stderr).toBe(0);
      expect(exec.droidLogs).not.toContain('Invalid hooks');
    });

    it('every one of the nine events reached the configured commands with the right stdin, env and cwd', () => {
      const seen = jsonLines(capture());
      const events = new Set(seen.map((r) => r.ev));
      for (const name of DROID_EVENTS) expect(events, `missing ${name}`).toContain(name);
      for (const r of seen) {
        const payload = JSON.parse(r.stdin as string) as Record<string, unknown>;
        expect(payload.hook_event_name).toBe(r.ev);
        expect(r.hookdEvent).toBe(r.ev);
        expect(payload.session_id).toBe(r.sid);
        expect(r.tool).toBe((payload.tool_name as string | undefined) ?? null);
        expect(r.pwd).toBe(payload.cwd);
        expect([exec.work, rpc.work]).toContain(r.pwd);
        expect(r.factoryDir).toBe(payload.cwd);
      }
    });

    it('a blocking guard stopped the Execute call and the model saw its reason', () => {
      expect(existsSync(join(exec.work, 'leaked.txt'))).toBe(false);
      expect(exec.fakeModelLog).toContain('Blocked by hookd guard');
      expect(existsSync(join(exec.work, 'hook-demo.txt'))).toBe(true);
    });

    it('a hanging Stop command was killed at its 1 s timeout and did not hold the agent for its 30 s', () => {
      const log = jsonLines(join(env.XDG_STATE_HOME!, 'hookd', 'logs', 'hookd.log'));
      const hung = log.filter((r) => r.kind === 'command' && r.name === 'hang');
      expect(hung.length).toBeGreaterThan(0);
      for (const r of hung) expect(r).toMatchObject({ timedOut: true, killedBy: 'timeout', timeoutMs: 1000 });
      const stops = log.filter((r) => r.kind === 'event' && r.event === 'Stop');
      for (const r of stops) expect(r.durationMs as number).toBeLessThan(30_000);
      // The agent recorded hookd's own answer for Stop as a clean exit (hookResults in its transcript).
      const transcript = exec
        .transcripts()
        .map((f) => readFileSync(f, 'utf8'))
        .join('\n');
      expect(transcript).toContain('"hookEventName":"Stop"');
    });
  });
});

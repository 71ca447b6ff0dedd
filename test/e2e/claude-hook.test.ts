import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import { CLAUDE_EVENTS } from '../../src/events/names.js';
import { toolResults } from '../harness/claude/fake-model.js';
import { runClaude, type ClaudeRun } from '../harness/claude/run-claude.js';
import { claudeTestbed, type Captured, type ClaudeTestbed } from '../harness/claude/testbed.js';
import { jsonLines } from '../helpers/json-lines.js';
import { isAlive, waitFor } from '../helpers/procs.js';

// hookd under the REAL Claude Code 2.1.330 in print mode (`claude -p`), offline against the scripted
// fake model: `hookd install --agent claude` into a throwaway HOME writes the hooks Claude then runs.
// Run 1 is started from a Droid session (Droid's variables in its environment) and covers every event
// print mode fires, with stdin, env and cwd (which follows `cd`); run 2 covers the guards: exit 2, a
// JSON deny, and a hanging command killed at its timeout while the agent goes on.

let bed: ClaudeTestbed;
let env: Record<string, string>;
let work: string;
let installed: { command: string; hooks: Record<string, unknown> };
let session: ClaudeRun;
let guards: ClaudeRun;

const captured = () => bed.captured();
const payloadOf = (c: Captured) => bed.payloadOf(c);
const hookdLog = () =>
  jsonLines<Record<string, unknown>>(join(env.XDG_STATE_HOME!, 'hookd', 'logs', 'hookd.log'));

function writeConfig(file: string, hooks: Record<string, unknown>): void {
  writeFileSync(file, JSON.stringify({ hooks }));
}

describeWithAgent('claude', 'hookd under the real Claude Code 2.1.330 (print mode)', (bin) => {
  beforeAll(async () => {
    bed = claudeTestbed('hkc-');
    ({ env, work } = bed);
    const tmp = bed.tmp;
    writeFileSync(join(work, 'keep.txt'), 'must survive\n');
    installed = await bed.install();
    const recorder = bed.recorder;

    const everyEvent = join(tmp.dir, 'every-event.json');
    const hooks: Record<string, unknown> = Object.fromEntries(
      CLAUDE_EVENTS.map((e) => [e, [{ hooks: [recorder()] }]]),
    );
    // Longer than the 1.5 s Claude Code gives SessionEnd hooks of entries without a timeout
    const slowEnd = `sleep 2; echo ended > ${join(tmp.dir, 'session-end.txt')}`;
    hooks.SessionEnd = [{ hooks: [recorder(), { type: 'command', command: slowEnd, name: 'slow-end' }] }];
    writeConfig(everyEvent, hooks);
    const droidProject = join(tmp.dir, 'droid-project');
    mkdirSync(droidProject);
    session = await runClaude({
      bin: bin,
      home: bed.home,
      work,
      outDir: join(tmp.dir, 'session'),
      mode: 'print',
      env: { ...env, HOOKD_CONFIG: everyEvent },
      // Claude Code started from a Droid session: Droid's variables pass through to Claude's hooks.
      extraEnv: { FACTORY_PROJECT_DIR: droidProject, DROID_PROJECT_DIR: droidProject },
      prompt: 'Run echo hi, write hook-demo.txt, ask a sub-agent, then look around in sub/.',
      script: [
        { bash: 'echo hi' },
        { write: { path: 'hook-demo.txt', content: 'hello from the fake model\n' } },
        { agent: { description: 'Tiny sub task', reply: 'sub-agent report: all fine' } },
        { bash: 'mkdir -p sub && cd sub' },
        { bash: 'pwd' },
        { text: 'All done: ran echo hi, wrote hook-demo.txt, asked a sub-agent.' },
      ],
    });

    const guardsConfig = join(tmp.dir, 'guards.json');
    const deny = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'hookd guard: no network from this repo',
      },
    });
    writeConfig(guardsConfig, {
      PreToolUse: [
        {
          matcher: 'Bash',
          commandRegex: '^rm ',
          hooks: [
            {
              type: 'command',
              command: `echo "hookd guard: no rm here" >&2; exit 2`,
              name: 'no-rm',
              blocking: true,
            },
          ],
        },
        {
          matcher: 'Bash',
          commandRegex: '^curl ',
          hooks: [{ type: 'command', command: `printf '%s' '${deny}'`, name: 'no-net', blocking: true }],
        },
      ],
      PostToolUse: [
        {
          matcher: 'Bash',
          commandRegex: '^echo after',
          hooks: [
            {
              type: 'command',
              command: `echo $$ > ${join(tmp.dir, 'hang.pid')}; exec sleep 120`,
              name: 'hang',
              timeout: 1,
            },
          ],
        },
      ],
      Stop: [{ hooks: [recorder()] }],
    });
    guards = await runClaude({
      bin: bin,
      home: bed.home,
      work,
      outDir: join(tmp.dir, 'guards'),
      mode: 'print',
      env: { ...env, HOOKD_CONFIG: guardsConfig },
      prompt: 'Clean up, fetch the page, then say after.',
      script: [
        { bash: 'rm -f keep.txt' },
        { bash: 'curl -s http://127.0.0.1:9/page' },
        { bash: 'echo after' },
        { text: 'Guards seen.' },
      ],
    });
  });

  afterAll(() => bed?.tmp.cleanup());

  describe('hookd under the real Claude Code 2.1.330, print mode', () => {
    it('install wrote one hookd entry per event, naming the agent, with a timeout hookd fits in', () => {
      expect(installed.command).toMatch(/ hook --agent claude$/);
      expect(Object.keys(installed.hooks).sort()).toEqual([...CLAUDE_EVENTS].sort());
      for (const [event, entries] of Object.entries(installed.hooks))
        expect(entries).toEqual([
          {
            matcher: '',
            hooks: [{ type: 'command', command: `${installed.command} --event ${event}`, timeout: 60 }],
          },
        ]);
      // Claude Code accepted the file: nothing skipped
      expect(session.debugLog).not.toContain('Invalid setting skipped');
    });

    it('every event print mode fires reached hookd and its command, with the raw stdin', () => {
      expect(session.result, session.stderr).toMatchObject({ code: 0, timedOut: false });
      const seen = new Set(
        captured()
          .filter((c) => c.ev !== 'Stop' || c.pwd !== undefined)
          .map((c) => c.ev),
      );
      for (const e of [
        'SessionStart',
        'UserPromptSubmit',
        'PreToolUse',
        'PostToolUse',
        'PostToolBatch',
        'SubagentStart',
        'SubagentStop',
        'MessageDisplay',
        'CwdChanged',
        'Stop',
        'SessionEnd',
      ])
        expect(seen, e).toContain(e);
      for (const c of captured()) {
        const payload = payloadOf(c);
        expect(payload.hook_event_name).toBe(c.ev);
        // Claude sends one JSON line with a trailing newline; the command gets it byte for byte
        expect(c.stdin.endsWith('}\n') || c.stdin.endsWith('}')).toBe(true);
        expect(c.sid).toBe(payload.session_id);
      }
    });

    it('a Claude Code started from a Droid session is Claude to hookd: agent, project and session', () => {
      const sessionId = captured().find((c) => c.ev === 'SessionStart')!.sid;
      for (const c of captured().filter((x) => x.sid === sessionId)) {
        expect(c.agent, c.ev).toBe('claude');
        expect(c.claudeSession).toBe(sessionId);
        expect(c.project, c.ev).toBe(work);
      }
    });

    it("commands run in the agent's cwd, which follows cd, while CLAUDE_PROJECT_DIR stays the project", () => {
      const all = captured();
      const cd = all.find((c) => c.ev === 'CwdChanged')!;
      expect(payloadOf(cd)).toMatchObject({ old_cwd: work, new_cwd: join(work, 'sub') });
      const afterCd = all.slice(all.indexOf(cd) + 1);
      const pre = afterCd.find((c) => c.ev === 'PreToolUse')!;
      expect(payloadOf(pre).cwd).toBe(join(work, 'sub'));
      expect(pre.pwd).toBe(join(work, 'sub'));
      expect(pre.claudeProject).toBe(work);
      expect(pre.project).toBe(work);
      const before = all.find((c) => c.ev === 'PreToolUse')!;
      expect(before.pwd).toBe(work);
    });

    it("SessionEnd: install's timeout gives hookd more than Claude's 1.5 s default, so a 2 s command finishes", () => {
      expect(readFileSync(join(bed.tmp.dir, 'session-end.txt'), 'utf8')).toBe('ended\n');
      expect(session.debugLog).toMatch(
        /SessionEnd:other \[.* hook --agent claude --event SessionEnd\] completed with status 0/,
      );
      expect(session.stderr).not.toContain('Hook cancelled');
    });

    it('payload fields reach commands as variables through hookd (Claude itself exports none)', () => {
      for (const c of captured()) expect(c.exported).toBe(c.ev);
    });
  });

  describe('guards under the real Claude Code 2.1.330', () => {
    it('a blocking guard stops a Bash call by exit 2, and the model sees its stderr', () => {
      expect(guards.result, guards.stderr).toMatchObject({ code: 0, timedOut: false });
      expect(readFileSync(join(work, 'keep.txt'), 'utf8')).toBe('must survive\n');
      const blocked = toolResults(guards.requests).find((r) => r.text.includes('hookd guard: no rm here'));
      expect(blocked).toMatchObject({ isError: true });
      expect(blocked!.text).toContain('PreToolUse:Bash hook error');
    });

    it('a blocking guard stops a Bash call by a JSON deny, and the model sees the reason', () => {
      const denied = toolResults(guards.requests).find((r) =>
        r.text.includes('hookd guard: no network from this repo'),
      );
      expect(denied).toMatchObject({ isError: true });
    });

    it('a hanging command is killed at its timeout and the agent is not held', async () => {
      const record = hookdLog().find((r) => r.kind === 'command' && r.name === 'hang');
      expect(record).toMatchObject({ timedOut: true, killedBy: 'timeout', timeoutMs: 1000 });
      const pid = Number(readFileSync(join(bed.tmp.dir, 'hang.pid'), 'utf8'));
      expect(await waitFor(() => !isAlive(pid))).toBe(true);
      // Claude Code saw hookd finish (exit 0), not time out, and the session went on to its answer
      expect(guards.debugLog).toMatch(
        /PostToolUse:Bash.*hook --agent claude --event PostToolUse\] finished with status 0/,
      );
      expect(guards.debugLog).not.toMatch(/timed out after/);
      expect(JSON.parse(guards.stdout)).toMatchObject({ result: 'Guards seen.' });
      expect(toolResults(guards.requests).some((r) => r.text.includes('after') && !r.isError)).toBe(true);
    });
  });
});

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import { toolResults, type ModelStep } from '../harness/claude/fake-model.js';
import {
  commandOf,
  probeRecords,
  promptsOf,
  writeClaudeSettings,
  writeProbeHook,
  type ProbeRecord,
} from '../harness/claude/permission-probe.js';
import { prepareClaudeHome, runClaude, type ClaudeRun } from '../harness/claude/run-claude.js';
import { isolatedEnv, makeTempDir } from '../helpers/temp.js';

// What the REAL Claude Code 2.1.330 lets a hook decide about a permission, the facts remote answers to
// permission prompts rely on. Plain hook programs (no hookd) answer PermissionRequest and PreToolUse by
// marker words in the Bash command (test/harness/claude/permission-probe.ts). `touch <file>` needs a
// permission in mode "default"; whether the file exists afterwards says whether the command ran.

const DUMP = process.env.PROBE_DUMP === '1';

interface Probe {
  bin: string;
  mode: 'print' | 'stream';
  permissionMode: 'default' | 'bypassPermissions';
  script: ModelStep[];
  timeout: number;
  permissions?: Record<string, string[]>;
  /** Stream mode: the prompt is answered "deny" once the capture file contains this. */
  answerWhen?: string;
}

interface Probed {
  run: ClaudeRun;
  records: ProbeRecord[];
  work: string;
  outDir: string;
  cleanup(): void;
}

async function probe(p: Probe): Promise<Probed> {
  const tmp = makeTempDir('hkp-');
  const env = isolatedEnv(tmp.dir);
  const home = env.HOME!;
  const work = join(tmp.dir, 'work');
  prepareClaudeHome(home, work);
  const capture = join(tmp.dir, 'capture.jsonl');
  const outDir = join(tmp.dir, 'run');
  const hook = writeProbeHook(tmp.dir, { capture, streamLog: join(outDir, 'stream.jsonl'), holdMs: 3000 });
  const entry = [{ matcher: '', hooks: [{ type: 'command', command: hook, timeout: p.timeout }] }];
  writeClaudeSettings(home, {
    ...(p.permissions ? { permissions: p.permissions } : {}),
    hooks: { PermissionRequest: entry, PreToolUse: entry, PostToolUse: entry, PermissionDenied: entry },
  });
  const run = await runClaude({
    bin: p.bin,
    home,
    work,
    outDir,
    mode: p.mode,
    permissionMode: p.permissionMode,
    env,
    ...(p.answerWhen
      ? { permission: { behavior: 'deny', when: { file: capture, contains: p.answerWhen } } }
      : {}),
    prompt: 'Run the commands.',
    script: p.script,
    deadlineSec: 90,
  });
  const records = probeRecords(capture);
  if (DUMP) {
    console.log(JSON.stringify(run.result), tmp.dir);
    for (const r of records)
      console.log(r.at, r.event, commandOf(r), JSON.stringify(r.payload).slice(0, 900));
    for (const q of promptsOf(outDir)) console.log('PROMPT', JSON.stringify(q));
    for (const t of toolResults(run.requests)) console.log('RESULT', JSON.stringify(t));
  }
  return { run, records, work, outDir, cleanup: () => (DUMP ? undefined : tmp.cleanup()) };
}

const touch = (file: string): ModelStep => ({ bash: `touch ${file}` });
const ran = (p: Probed, file: string) => existsSync(join(p.work, file));
const recordsOf = (p: Probed, file: string) => p.records.filter((r) => commandOf(r).includes(file));
const NEEDS_APPROVAL = /needs approval/;
const NOT_GRANTED = "Claude requested permissions to use Bash, but you haven't granted it yet.";
const RULE_DENIED = (command: string) => `Permission to use Bash with command ${command} has been denied.`;
const events = (p: Probed, file: string) => recordsOf(p, file).map((r) => r.event);
/** The tool results the model got, one per call, in order (the last request holds them all). */
const resultsOf = (run: ClaudeRun) => toolResults(run.requests.slice(-1));

describeWithAgent('claude', 'what Claude Code 2.1.330 lets a hook decide on a permission', (bin) => {
  describe('PermissionRequest with nobody to ask (claude -p, mode default)', () => {
    let p: Probed;
    beforeAll(async () => {
      p = await probe({
        bin,
        mode: 'print',
        permissionMode: 'default',
        timeout: 3,
        script: [
          touch('pr-allow.out'),
          touch('pr-deny.out'),
          touch('pr-none.out'),
          touch('pr-exit2.out'),
          touch('pr-slow.out'),
          { text: 'Tried them all.' },
        ],
      });
    });
    afterAll(() => p?.cleanup());

    it('fires after PreToolUse, with the tool call but without its tool_use_id', () => {
      expect(p.run.result.timedOut).toBe(false);
      expect(events(p, 'pr-allow.out')).toEqual(['PreToolUse', 'PermissionRequest', 'PostToolUse']);
      const [pre, request] = recordsOf(p, 'pr-allow.out');
      expect(Object.keys(request!.payload).sort()).toEqual(
        [
          'cwd',
          'effort',
          'hook_event_name',
          'permission_mode',
          'permission_suggestions',
          'prompt_id',
          'session_id',
          'tool_input',
          'tool_name',
          'transcript_path',
        ].sort(),
      );
      expect(request!.payload).toMatchObject({
        permission_mode: 'default',
        tool_name: 'Bash',
        tool_input: { command: 'touch pr-allow.out', description: 'scripted command' },
      });
      expect(request!.payload.permission_suggestions).toContainEqual({
        type: 'setMode',
        mode: 'acceptEdits',
        destination: 'session',
      });
      // only PreToolUse (and PostToolUse) name the call; the permission request does not
      expect(pre!.payload.tool_use_id).toMatch(/^toolu_/);
      expect(request!.payload).not.toHaveProperty('tool_use_id');
    });

    it('decision allow runs the tool; deny blocks it and the model gets the message', () => {
      expect(ran(p, 'pr-allow.out')).toBe(true);
      expect(ran(p, 'pr-deny.out')).toBe(false);
      const results = resultsOf(p.run);
      expect(results[0]).toEqual({ text: '(Bash completed with no output)', isError: false });
      expect(results[1]).toEqual({ text: 'remote says no', isError: true });
    });

    it('no decision, exit 2 and a timed-out hook all leave the permission unanswered', () => {
      for (const file of ['pr-none.out', 'pr-exit2.out', 'pr-slow.out']) expect(ran(p, file)).toBe(false);
      const results = resultsOf(p.run);
      expect(results.slice(2).map((r) => r.isError)).toEqual([true, true, true]);
      for (const r of results.slice(2)) expect(r.text).toMatch(NEEDS_APPROVAL);
      // exit 2 is not a deny: its stderr never reaches the model
      expect(JSON.stringify(p.run.requests)).not.toContain('exit two says no');
      // the slow hook was stopped at its timeout and the request then went unanswered
      expect(events(p, 'pr-slow.out')).toContain('sigterm');
      expect(p.run.debugLog).toMatch(/PermissionRequest:Bash .*timed out|timed out.*PermissionRequest/);
    });
  });

  describe('PermissionRequest beside the prompt (stream-json, prompts answered over stdio)', () => {
    const TIMEOUT = 30;
    let p: Probed;
    beforeAll(async () => {
      p = await probe({
        bin,
        mode: 'stream',
        permissionMode: 'default',
        timeout: TIMEOUT,
        // the driver answers "deny" at the prompt only once the pr-slow hook waits
        answerWhen: 'pr-slow-waiting',
        script: [
          touch('pr-allow.out'),
          touch('pr-deny.out'),
          touch('pr-slow.out'),
          { bash: 'echo after-slow' },
          { text: 'Done.' },
        ],
      });
    });
    afterAll(() => p?.cleanup());

    it('the prompt goes out while the hook runs, and a hook decision withdraws it', () => {
      expect(p.run.result.timedOut).toBe(false);
      const prompts = promptsOf(p.outDir);
      expect(prompts.map((q) => q.input.command)).toEqual([
        'touch pr-allow.out',
        'touch pr-deny.out',
        'touch pr-slow.out',
      ]);
      expect(prompts.map((q) => q.cancelled)).toEqual([true, true, false]);
      expect(ran(p, 'pr-allow.out')).toBe(true);
      expect(ran(p, 'pr-deny.out')).toBe(false);
      const results = resultsOf(p.run);
      expect(results.slice(0, 2)).toEqual([
        { text: '(Bash completed with no output)', isError: false },
        { text: 'remote says no', isError: true },
      ]);
      // the prompt (not the hook event) carries the tool_use_id and the path it is about
      expect(prompts[0]!.tool_use_id).toMatch(/^toolu_/);
      expect(prompts[0]).toHaveProperty('blocked_path');
    });

    it('an answer at the prompt wins, but the hook goes on running: the session ending stops it', () => {
      expect(ran(p, 'pr-slow.out')).toBe(false);
      expect(resultsOf(p.run)[2]).toEqual({ text: 'denied by the test driver', isError: true });
      const waiting = recordsOf(p, 'pr-slow.out').find((r) => r.event === 'pr-slow-waiting');
      const stopped = recordsOf(p, 'pr-slow.out').find((r) => r.event === 'sigterm');
      const next = recordsOf(p, 'echo after-slow').find((r) => r.event === 'PreToolUse');
      expect(waiting).toBeDefined();
      expect(next).toBeDefined();
      expect(stopped).toBeDefined();
      // the next tool call began while the hook of the answered prompt was still waiting
      expect(next!.at).toBeGreaterThan(waiting!.at);
      expect(stopped!.at).toBeGreaterThan(next!.at);
      // and it was not its timeout that stopped it
      expect(stopped!.at - waiting!.at).toBeLessThan(TIMEOUT * 1000);
    });
  });

  describe('rules the user set: permissions.deny and permissions.ask (claude -p)', () => {
    const permissions = { deny: ['Bash(touch rule-deny:*)'], ask: ['Bash(touch rule-ask:*)'] };
    let dflt: Probed;
    let bypass: Probed;
    beforeAll(async () => {
      dflt = await probe({
        bin,
        mode: 'print',
        permissionMode: 'default',
        timeout: 10,
        permissions,
        script: [
          touch('rule-deny c1-pr-allow.out'),
          touch('rule-ask c2-pr-allow.out'),
          touch('rule-deny c3-pre-allow.out'),
          touch('rule-ask c4-pre-allow.out'),
          touch('c5-pre-allow.out'),
          { text: 'Done.' },
        ],
      });
      bypass = await probe({
        bin,
        mode: 'print',
        permissionMode: 'bypassPermissions',
        timeout: 10,
        permissions,
        script: [
          touch('rule-ask d1.out'),
          touch('rule-ask d2-pr-allow.out'),
          touch('rule-deny d3-pr-allow.out'),
          touch('rule-deny d4-pre-allow.out'),
          touch('d5.out'),
          { text: 'Done.' },
        ],
      });
    });
    afterAll(() => {
      dflt?.cleanup();
      bypass?.cleanup();
    });

    it('a deny rule wins over every hook allow; PermissionRequest does not even fire', () => {
      expect(dflt.run.result.timedOut).toBe(false);
      expect(bypass.run.result.timedOut).toBe(false);
      for (const [p, file] of [
        [dflt, 'c1-pr-allow.out'],
        [dflt, 'c3-pre-allow.out'],
        [bypass, 'd3-pr-allow.out'],
        [bypass, 'd4-pre-allow.out'],
      ] as const) {
        expect(ran(p, file)).toBe(false);
        expect(events(p, file)).toEqual(['PreToolUse']);
      }
      expect(resultsOf(dflt.run)[0]).toEqual({
        text: RULE_DENIED('touch rule-deny c1-pr-allow.out'),
        isError: true,
      });
      expect(resultsOf(bypass.run)[3]).toEqual({
        text: RULE_DENIED('touch rule-deny d4-pre-allow.out'),
        isError: true,
      });
    });

    it('an ask rule asks even in bypassPermissions and despite a PreToolUse allow', () => {
      // PreToolUse allow without a rule: no permission request at all
      expect(ran(dflt, 'c5-pre-allow.out')).toBe(true);
      expect(events(dflt, 'c5-pre-allow.out')).toEqual(['PreToolUse', 'PostToolUse']);
      // with an ask rule the request still comes, and nobody answers it
      expect(ran(dflt, 'c4-pre-allow.out')).toBe(false);
      expect(events(dflt, 'c4-pre-allow.out')).toEqual(['PreToolUse', 'PermissionRequest']);
      expect(resultsOf(dflt.run)[3]).toEqual({ text: NOT_GRANTED, isError: true });
      expect(ran(bypass, 'd1.out')).toBe(false);
      expect(events(bypass, 'd1.out')).toEqual(['PreToolUse', 'PermissionRequest']);
      expect(ran(bypass, 'd5.out')).toBe(true);
    });

    it('but a PermissionRequest allow answers an ask rule: the agent lets it through', () => {
      expect(ran(dflt, 'c2-pr-allow.out')).toBe(true);
      expect(ran(bypass, 'd2-pr-allow.out')).toBe(true);
      // the only sign in the payload that a rule asked: no permission_suggestions
      const request = recordsOf(dflt, 'c2-pr-allow.out').find((r) => r.event === 'PermissionRequest')!;
      expect(request.payload).not.toHaveProperty('permission_suggestions');
      expect(request.payload.permission_mode).toBe('default');
      const inBypass = recordsOf(bypass, 'd2-pr-allow.out').find((r) => r.event === 'PermissionRequest')!;
      expect(inBypass.payload.permission_mode).toBe('bypassPermissions');
    });
  });
});

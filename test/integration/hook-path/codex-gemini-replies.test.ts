import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../helpers/temp.js';
import { ROOT, stopDaemon } from '../daemon/process-helpers.js';
import {
  NATIVE_CLIENT,
  handOffEnv,
  startFastDaemon,
  startHook,
  writeFastConfig,
} from '../daemon/fast-client-helpers.js';

// Codex CLI and Gemini CLI read a hook's answer their own way (docs/agents/codex.md, gemini.md): both
// block on exit 2 with the reason on stderr and neither can "ask"; Gemini shows any stdout that is not
// a JSON object to the user. Every way hookd can be wired (the native client with the daemon up and
// down, the retired bash client, the Node path) answers by those rules, from the recorded payloads of
// the real binaries.

const GEMINI = join(ROOT, 'test/fixtures/gemini-cli-0.61.0');
const CODEX = join(ROOT, 'test/fixtures/codex-0.171.0');
const payload = (dir: string, name: string) =>
  JSON.parse(readFileSync(join(dir, name), 'utf8')) as Record<string, unknown>;

const geminiBeforeTool = payload(GEMINI, '07-BeforeTool-run_shell_command.json');
const geminiStart = payload(GEMINI, '01-SessionStart.json');
const geminiAfterAgent = payload(GEMINI, '13-AfterAgent.json');
const codexPreTool = payload(CODEX, '03-PreToolUse-Bash.json');

const shq = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
const ask = JSON.stringify({
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: 'ask',
    permissionDecisionReason: 'risky',
  },
});
const deny = JSON.stringify({
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: 'deny',
    permissionDecisionReason: 'not here',
  },
});

/** The hook command per way of wiring hookd (the daemon's state is the test's). */
const WIRINGS = {
  native: (agent: string) => `${shq(NATIVE_CLIENT)} --agent ${agent}`,
  bash: (agent: string) => `${shq(resolve(ROOT, 'bin/hookd-client.bash'))} --agent ${agent}`,
  node: (agent: string) =>
    `${shq(process.execPath)} ${shq(resolve(ROOT, 'dist/hookd.cjs'))} hook --agent ${agent}`,
} as const;

let tmp: { dir: string; cleanup: () => void };
let env: Record<string, string>;
let project: string;
let daemon: ChildProcess | undefined;

/** Runs one event through a wiring, with Gemini's variables when it is Gemini's. */
async function run(wiring: keyof typeof WIRINGS, agent: 'codex' | 'gemini', event: Record<string, unknown>) {
  const hookEnv = { ...env, PATH: process.env.PATH ?? '/usr/bin:/bin', HOOKD_NODE: process.execPath };
  if (agent === 'gemini')
    Object.assign(hookEnv, {
      GEMINI_SESSION_ID: String(event.session_id),
      GEMINI_PROJECT_DIR: project,
      CLAUDE_PROJECT_DIR: project,
    });
  const ran = await startHook(WIRINGS[wiring](agent), {
    env: hookEnv,
    cwd: project,
    stdin: JSON.stringify({ ...event, cwd: project }),
  }).done;
  return { code: ran.code, stdout: ran.stdout.toString(), stderr: ran.stderr.toString() };
}

/** Gemini's rule: stdout is nothing, or one JSON object. */
function onlyJson(stdout: string): Record<string, unknown> | undefined {
  if (stdout === '') return undefined;
  const value = JSON.parse(stdout) as unknown;
  expect(typeof value === 'object' && value !== null && !Array.isArray(value)).toBe(true);
  return value as Record<string, unknown>;
}

beforeAll(async () => {
  tmp = makeTempDir('hkcg-');
  project = join(tmp.dir, 'p');
  env = handOffEnv(tmp.dir);
  const cmd = (command: string) => [{ hooks: [{ type: 'command', command, timeout: 30 }] }];
  writeFastConfig(env, {
    // Guards in hookd's names: Gemini's BeforeTool is a PreToolUse, its AfterAgent a Stop.
    PreToolUse: [
      {
        matcher: 'run_shell_command',
        hooks: [{ type: 'command', command: 'echo chatty guard; exit 0', timeout: 30 }],
      },
      {
        matcher: 'Bash',
        commandRegex: 'ask-me',
        hooks: [{ type: 'command', command: `printf '%s' ${shq(ask)}`, timeout: 30 }],
      },
      {
        commandRegex: 'deny-me',
        hooks: [{ type: 'command', command: `printf '%s' ${shq(deny)}`, timeout: 30 }],
      },
    ],
    SessionStart: cmd('echo remember the tests'),
    Stop: cmd(`printf '%s' ${shq(JSON.stringify({ decision: 'block', reason: 'one more check' }))}`),
  });
  const { mkdirSync } = await import('node:fs');
  mkdirSync(project);
});

afterAll(async () => {
  await stopDaemon(daemon);
  tmp.cleanup();
});

describe.each(['daemon down', 'daemon up'] as const)('with the %s', (state) => {
  beforeAll(async () => {
    if (state === 'daemon up') daemon = await startFastDaemon(env);
  });

  describe.each(Object.keys(WIRINGS) as (keyof typeof WIRINGS)[])('through the %s wiring', (wiring) => {
    it('Gemini: a guard that prints text on stdout leaves stdout empty', async () => {
      const ran = await run(wiring, 'gemini', geminiBeforeTool);
      expect(ran.code).toBe(0);
      expect(onlyJson(ran.stdout)).toBeUndefined();
    });

    it('Gemini: SessionStart context text goes out as JSON additionalContext', async () => {
      const ran = await run(wiring, 'gemini', geminiStart);
      expect(ran.code).toBe(0);
      expect(onlyJson(ran.stdout)).toEqual({
        hookSpecificOutput: { additionalContext: 'remember the tests' },
      });
    });

    it('Gemini: AfterAgent runs the Stop entries; their block is answered as exit 2 (go on)', async () => {
      const ran = await run(wiring, 'gemini', geminiAfterAgent);
      expect(ran).toMatchObject({ code: 2, stdout: '', stderr: 'one more check\n' });
    });

    it("Gemini: a Claude-style JSON deny becomes exit 2 with its reason (Gemini's own block)", async () => {
      const event = { ...geminiBeforeTool, tool_input: { command: 'deny-me' } };
      const ran = await run(wiring, 'gemini', event);
      expect(ran).toMatchObject({ code: 2, stdout: '', stderr: 'not here\n' });
    });

    it('Codex: "ask", which Codex hooks cannot ask, is refused with a reason that says so', async () => {
      const event = { ...codexPreTool, tool_input: { command: 'ask-me' } };
      const ran = await run(wiring, 'codex', event);
      expect(ran.code).toBe(2);
      expect(ran.stdout).toBe('');
      expect(ran.stderr).toMatch(
        /^risky \(.+ asked for your approval; Codex CLI hooks cannot ask, so hookd refuses\)\n$/,
      );
    });
  });
});

import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
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

// Copilot CLI blocks a tool call on exit 2 but tells the model only "hook exited with code 2"; a JSON
// `permissionDecision: "deny"` reaches the model with its reason (test/fixtures/copilot-1.0.102,
// blocked-*). So under Copilot every way hookd is wired answers a guard's deny as that JSON.

const FIXTURES = join(ROOT, 'test/fixtures/copilot-1.0.102');
const preTool = JSON.parse(
  readFileSync(join(FIXTURES, 'claude-dialect/03-PreToolUse-Bash.json'), 'utf8'),
) as Record<string, unknown>;
const hookEnvOfCopilot = JSON.parse(
  readFileSync(join(FIXTURES, 'claude-dialect/hook-env.json'), 'utf8'),
) as Record<string, string>;

const shq = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
const WIRINGS = {
  native: `${shq(NATIVE_CLIENT)} --agent copilot --event PreToolUse`,
  bash: `${shq(resolve(ROOT, 'bin/hookd-client.bash'))} --agent copilot --event PreToolUse`,
  node: `${shq(process.execPath)} ${shq(resolve(ROOT, 'dist/hookd.cjs'))} hook --agent copilot --event PreToolUse`,
} as const;

let tmp: { dir: string; cleanup: () => void };
let env: Record<string, string>;
let project: string;
let daemon: ChildProcess | undefined;

async function run(wiring: keyof typeof WIRINGS, command: string) {
  const hookEnv = {
    ...env,
    ...hookEnvOfCopilot,
    COPILOT_PROJECT_DIR: project,
    CLAUDE_PROJECT_DIR: project,
    HOME: env.HOME ?? tmp.dir,
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOOKD_NODE: process.execPath,
  };
  const ran = await startHook(WIRINGS[wiring], {
    env: hookEnv,
    cwd: project,
    stdin: JSON.stringify({ ...preTool, cwd: project, tool_input: { command } }),
  }).done;
  return { code: ran.code, stdout: ran.stdout.toString(), stderr: ran.stderr.toString() };
}

beforeAll(() => {
  tmp = makeTempDir('hkcp-');
  project = join(tmp.dir, 'p');
  mkdirSync(project);
  env = handOffEnv(tmp.dir);
  writeFastConfig(env, {
    PreToolUse: [
      {
        matcher: 'Bash',
        commandRegex: 'rm -rf',
        hooks: [{ type: 'command', command: "echo 'no rm -rf here' >&2; exit 2", timeout: 30 }],
      },
    ],
  });
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
    it("answers a guard's exit 2 as a JSON deny that carries its reason", async () => {
      const ran = await run(wiring, 'rm -rf build');
      expect(ran.code).toBe(0);
      expect(JSON.parse(ran.stdout)).toEqual({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: 'no rm -rf here',
        },
      });
    });

    it('lets a call no guard objects to go on, silently', async () => {
      const ran = await run(wiring, 'ls');
      expect(ran).toMatchObject({ code: 0, stdout: '' });
    });
  });
});

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
//
// A hooks file in Copilot's own dialect (`{"version": 1, "hooks": {"preToolUse": [{"bash": ...}]}}`)
// that calls hookd gets camelCase payloads that name no event, and Copilot reads only a top-level
// `permissionDecision` from it (copilot-dialect/, preToolUse-answers.json): hookd takes the payload as
// the PreToolUse it is and answers a deny, exit 2 or Claude Code's JSON, in that form.

const FIXTURES = join(ROOT, 'test/fixtures/copilot-1.0.102');
const preTool = JSON.parse(
  readFileSync(join(FIXTURES, 'claude-dialect/03-PreToolUse-Bash.json'), 'utf8'),
) as Record<string, unknown>;
const ownPreTool = JSON.parse(
  readFileSync(join(FIXTURES, 'copilot-dialect/04-preToolUse-bash.json'), 'utf8'),
) as Record<string, unknown>;
const hookEnvOfCopilot = JSON.parse(
  readFileSync(join(FIXTURES, 'claude-dialect/hook-env.json'), 'utf8'),
) as Record<string, string>;

const shq = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
const NODE = `${shq(process.execPath)} ${shq(resolve(ROOT, 'dist/hookd.cjs'))} hook`;
const WIRINGS = {
  native: `${shq(NATIVE_CLIENT)} --agent copilot --event PreToolUse`,
  bash: `${shq(resolve(ROOT, 'bin/hookd-client.bash'))} --agent copilot --event PreToolUse`,
  node: `${NODE} --agent copilot --event PreToolUse`,
  // Copilot's own dialect: as a user's own hooks file may call hookd.
  'own dialect, node': `${NODE} --agent copilot`,
  'own dialect, node, --event preToolUse': `${NODE} --agent copilot --event preToolUse`,
  'own dialect, node, no --agent': NODE,
  'own dialect, native': `${shq(NATIVE_CLIENT)} --agent copilot --event preToolUse`,
} as const;
type Wiring = keyof typeof WIRINGS;
const ownDialect = (wiring: Wiring) => wiring.startsWith('own dialect');

const curlDeny = JSON.stringify({
  hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'no curl here' },
});

const DENIES = [
  ['rm -rf build', 'no rm -rf here', 'exit 2'],
  ['curl example.com', 'no curl here', "Claude Code's JSON"],
] as const;

/** A deny as the wiring's dialect must give it (Claude Code's dialect: a guard's own JSON as it is). */
function denied(wiring: Wiring, reason: string) {
  if (ownDialect(wiring)) return { permissionDecision: 'deny', permissionDecisionReason: reason };
  return reason === 'no curl here'
    ? (JSON.parse(curlDeny) as unknown)
    : {
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: reason,
        },
      };
}

let tmp: { dir: string; cleanup: () => void };
let env: Record<string, string>;
let project: string;
let daemon: ChildProcess | undefined;

async function run(wiring: Wiring, command: string) {
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
    stdin: JSON.stringify(
      ownDialect(wiring)
        ? { ...ownPreTool, cwd: project, toolArgs: { command } }
        : { ...preTool, cwd: project, tool_input: { command } },
    ),
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
      {
        kinds: ['shell'],
        commandRegex: 'curl',
        hooks: [{ type: 'command', command: `echo ${shq(curlDeny)}`, timeout: 30 }],
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

  describe.each(Object.keys(WIRINGS) as Wiring[])('through the %s wiring', (wiring) => {
    it.each(DENIES)(
      "answers a guard's deny of %s (%s, by %s) as a JSON deny with its reason",
      async (command, reason) => {
        const ran = await run(wiring, command);
        expect(ran.code, ran.stderr).toBe(0);
        expect(JSON.parse(ran.stdout)).toEqual(denied(wiring, reason));
      },
    );

    it('lets a call no guard objects to go on, silently', async () => {
      const ran = await run(wiring, 'ls');
      expect(ran).toMatchObject({ code: 0, stdout: '' });
    });
  });
});

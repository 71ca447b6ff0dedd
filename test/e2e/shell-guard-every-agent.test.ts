import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import { toolResults } from '../harness/claude/fake-model.js';
import { prepareClaudeHome, runClaude, type ClaudeRun } from '../harness/claude/run-claude.js';
import { toolOutputs } from '../harness/codex/fake-responses.js';
import { runCodex, type CodexRun } from '../harness/codex/run-codex.js';
import { runCopilot, type CopilotRun } from '../harness/copilot/run-copilot.js';
import { functionResponses } from '../harness/gemini/fake-gemini.js';
import { runGemini, type GeminiRun } from '../harness/gemini/run-gemini.js';
import { hookdTestbed, type HookdTestbed } from '../harness/hookd-testbed.js';
import { runRealDroid, type DroidRun } from '../helpers/droid.js';
import { HOOKD_BIN } from '../helpers/fixtures.js';
import { runHookd } from '../helpers/run-hookd.js';

// ONE hookd config, ONE guard on the canonical `shell` kind (no agent's tool name in it), under the
// real Droid 0.225.2, Claude Code 2.1.330, Codex CLI 0.171.0, Gemini CLI 0.61.0 and Copilot CLI 1.0.102,
// offline: each agent's model asks to run the forbidden command, then a harmless one. One hookd daemon
// runs here; each agent runs in a HOME of its own, where `hookd install --agent <agent>` wired it (Droid:
// the harness wires `hookd hook --agent droid` itself). Copilot shows the model no stderr of an exit 2:
// hookd answers its block as a JSON deny, whose reason the model reads.

const REASON = 'no files named forbidden here';
const BLOCKED = 'touch forbidden.txt';
const ALLOWED = 'echo ok > ok.txt';
const FINAL = 'Done.';

let bed: HookdTestbed;

/** A HOME of the agent's own under the testbed, with hookd installed there for it. */
async function installIn(agent: string, dir: string): Promise<Record<string, string>> {
  const env = { ...bed.env, HOME: join(dir, 'home') };
  mkdirSync(env.HOME, { recursive: true });
  const ran = await runHookd(['install', '--agent', agent], { env, cwd: dir });
  if (ran.code !== 0) throw new Error(`hookd install --agent ${agent} failed: ${ran.stderr}`);
  return env;
}

/** What each agent's run left: whether the commands ran, and what its model read back. */
function expectBlockedThenRan(work: string, modelSaw: string[], exact: string): void {
  expect(existsSync(join(work, 'forbidden.txt'))).toBe(false);
  expect(readFileSync(join(work, 'ok.txt'), 'utf8')).toBe('ok\n');
  expect(modelSaw).toContainEqual(expect.stringContaining(exact));
}

beforeAll(async () => {
  bed = await hookdTestbed('hksg-', 'codex', () => ({
    PreToolUse: [
      {
        kinds: ['shell'],
        commandRegex: 'forbidden',
        hooks: [{ type: 'command', command: `echo "${REASON}" >&2; exit 2`, name: 'no-forbidden' }],
      },
    ],
  }));
  expect(bed.installed.code, bed.installed.stderr).toBe(0);
});

afterAll(async () => {
  await bed?.close();
});

describeWithAgent('droid', 'one shell guard under the real Droid', () => {
  let run: DroidRun;
  beforeAll(async () => {
    run = await runRealDroid({
      outDir: join(bed.dir, 'droid'),
      env: bed.env,
      hookCmd: `node ${HOOKD_BIN} hook --agent droid`,
      script: [
        { tool: 'shell', input: { command: BLOCKED } },
        { tool: 'shell', input: { command: ALLOWED } },
        { text: FINAL },
      ],
    });
  });

  it('blocks the Execute call and the model reads why', () => {
    expect(run.rc, run.stderr).toBe(0);
    expectBlockedThenRan(run.work, run.fakeModelLog.split('\n'), REASON);
  });
});

describeWithAgent('claude', 'one shell guard under the real Claude Code', (bin) => {
  let run: ClaudeRun;
  let work: string;
  beforeAll(async () => {
    const dir = join(bed.dir, 'claude');
    const env = await installIn('claude', dir);
    work = join(dir, 'work');
    prepareClaudeHome(env.HOME!, work);
    run = await runClaude({
      bin,
      home: env.HOME!,
      work,
      outDir: join(dir, 'out'),
      mode: 'print',
      env,
      prompt: 'Make the files.',
      script: [{ bash: BLOCKED }, { bash: ALLOWED }, { text: FINAL }],
    });
  });

  it('blocks the Bash call and the model reads why', () => {
    expect(run.result, run.stderr).toMatchObject({ code: 0, timedOut: false });
    const seen = toolResults(run.requests);
    expectBlockedThenRan(
      work,
      seen.map((r) => r.text),
      REASON,
    );
    expect(seen.find((r) => r.text.includes(REASON))?.isError).toBe(true);
  });
});

describeWithAgent('codex', 'one shell guard under the real Codex CLI', (bin) => {
  let run: CodexRun;
  beforeAll(async () => {
    run = await runCodex({
      bin,
      dir: bed.dir,
      script: [{ shell: BLOCKED }, { shell: ALLOWED }, { text: FINAL }],
      prompt: 'Make the files.',
      trust: 'persisted',
      env: bed.env,
      deadlineSec: 120,
    });
  });

  it('blocks the Bash call and the model reads why', () => {
    expect(run.result).toMatchObject({ code: 0, timedOut: false });
    const seen = run.requests.flatMap((r) => toolOutputs(r.body));
    expectBlockedThenRan(
      run.work,
      seen,
      `Command blocked by PreToolUse hook: ${REASON}. Command: ${BLOCKED}`,
    );
  });
});

describeWithAgent('gemini', 'one shell guard under the real Gemini CLI', (entry) => {
  let run: GeminiRun;
  beforeAll(async () => {
    const dir = join(bed.dir, 'gemini');
    const env = await installIn('gemini', dir);
    run = await runGemini({
      entry,
      dir,
      script: [{ shell: BLOCKED }, { shell: ALLOWED }, { text: FINAL }],
      prompt: 'Make the files.',
      env,
      deadlineSec: 120,
    });
  });

  it('blocks the run_shell_command call and the model reads why', () => {
    expect(run.result).toMatchObject({ code: 0, timedOut: false });
    const seen = run.requests.flatMap((r) => functionResponses(r.body)).map((r) => JSON.stringify(r));
    expectBlockedThenRan(run.work, seen, JSON.stringify({ error: `Tool execution blocked: ${REASON}` }));
  });
});

describeWithAgent('copilot', 'one shell guard under the real Copilot CLI', (bin) => {
  let run: CopilotRun;
  beforeAll(async () => {
    const dir = join(bed.dir, 'copilot');
    const env = await installIn('copilot', dir);
    run = await runCopilot({
      bin,
      dir,
      script: [{ shell: BLOCKED }, { shell: ALLOWED }, { text: FINAL }],
      prompt: 'Make the files.',
      env,
      deadlineSec: 120,
    });
  });

  it('blocks the Bash call and the model reads why', () => {
    expect(run.result, run.stderr).toMatchObject({ code: 0, timedOut: false });
    const seen = run.requests.flatMap((r) => toolOutputs(r.body));
    expectBlockedThenRan(run.work, seen, `Denied by preToolUse hook: ${REASON}`);
  });
});

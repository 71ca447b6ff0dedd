import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentPayload, runAsAgent, useHookSandbox } from '../../helpers/agent-spawn.js';
import { hookdLogRecords } from '../../helpers/agent-hook.js';
import { runCli } from '../../helpers/cli-run.js';

// A command in hookd's `hooks` decides as it would under the agent, by each agent's
// rules; hookd's own failures never block unless the command says "onError": "block"; a guard that
// could not run is its own outcome. Driven through the installed command, as the agent spawns it.

const box = useHookSandbox();

const cmd = (command: string, more: Record<string, unknown> = {}) => ({ type: 'command', command, ...more });
const preToolUse = (agent: 'droid' | 'claude' = 'droid') =>
  agentPayload(agent, 'PreToolUse', { cwd: box.project });
const NO_SHELL = { matcher: 'Execute|Bash', hooks: [cmd("echo 'no shell today' >&2; exit 2")] };
const json = (value: unknown) => `echo '${JSON.stringify(value)}'`;
const allow = {
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: 'allow',
    updatedInput: { command: 'rm -rf /' },
  },
};
const deny = {
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: 'deny',
    permissionDecisionReason: 'no',
  },
};

describe('a hook moved into hookd verbatim behaves as it did in the agent', () => {
  it.each(['droid', 'claude'] as const)(
    '%s: its exit 2 blocks the tool call, with its stderr',
    async (agent) => {
      box.writeConfig({ hooks: { PreToolUse: [NO_SHELL] } });
      const ran = await runAsAgent(preToolUse(agent), { env: box.env, cwd: box.project, agent });
      expect(ran).toMatchObject({ code: 2, stdout: '', stderr: 'no shell today\n' });
    },
  );

  it('after `hookd import` from the Droid settings, the same entry still blocks', async () => {
    const settings = join(box.env.HOME!, '.factory', 'settings.json');
    mkdirSync(join(box.env.HOME!, '.factory'), { recursive: true });
    writeFileSync(
      settings,
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Execute', hooks: NO_SHELL.hooks }] } }),
    );
    const imported = await runCli(['import', '--agent', 'droid'], {
      env: box.env,
      cwd: box.project,
    });
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(readFileSync(box.env.HOOKD_CONFIG!, 'utf8'))).toMatchObject({
      hooks: { PreToolUse: [{ matcher: 'Execute', hooks: NO_SHELL.hooks }] },
    });
    const ran = await runAsAgent(preToolUse(), { env: box.env, cwd: box.project });
    expect(ran).toMatchObject({ code: 2, stderr: 'no shell today\n' });
  });

  it('an entry imported from Claude Code runs for Claude Code events only, not for Droid sessions', async () => {
    const settings = join(box.env.HOME!, '.claude', 'settings.json');
    mkdirSync(join(box.env.HOME!, '.claude'), { recursive: true });
    writeFileSync(
      settings,
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: NO_SHELL.hooks }] } }),
    );
    const imported = await runCli(['import', '--agent', 'claude'], { env: box.env, cwd: box.project });
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(readFileSync(box.env.HOOKD_CONFIG!, 'utf8'))).toMatchObject({
      hooks: { PreToolUse: [{ matcher: 'Bash', agent: 'claude', hooks: NO_SHELL.hooks }] },
    });
    const claude = await runAsAgent(preToolUse('claude'), {
      env: box.env,
      cwd: box.project,
      agent: 'claude',
    });
    expect(claude).toMatchObject({ code: 2, stderr: 'no shell today\n' });
    // The same config from a Droid session: the entry is not Droid's (even with a matcher that matches).
    const droid = JSON.stringify({ ...JSON.parse(preToolUse('droid')), tool_name: 'Bash' });
    const ran = await runAsAgent(droid, { env: box.env, cwd: box.project, agent: 'droid' });
    expect(ran).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('"blocking": false makes a command observe-only', async () => {
    box.writeConfig({
      hooks: { PreToolUse: [{ hooks: [cmd("echo 'x' >&2; exit 2", { blocking: false })] }] },
    });
    const ran = await runAsAgent(preToolUse(), { env: box.env, cwd: box.project });
    expect(ran).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it.each(['droid', 'claude'] as const)(
    '%s: plain stdout of UserPromptSubmit is context by default, not with "context": false',
    async (agent) => {
      const payload = agentPayload(agent, 'UserPromptSubmit', { cwd: box.project });
      box.writeConfig({
        hooks: {
          UserPromptSubmit: [{ hooks: [cmd('echo "branch: main"'), cmd('echo hidden', { context: false })] }],
        },
      });
      const ran = await runAsAgent(payload, { env: box.env, cwd: box.project, agent });
      expect(ran).toMatchObject({ code: 0, stdout: 'branch: main\n' });
    },
  );
});

describe('decision rules per agent', () => {
  it('Droid: the first decision in config order wins; Claude Code: a deny beats an allow', async () => {
    box.writeConfig({
      hooks: {
        PreToolUse: [
          { hooks: [cmd(json(allow), { name: 'allow' })] },
          { hooks: [cmd('echo stop >&2; exit 2')] },
        ],
      },
    });
    const droid = await runAsAgent(preToolUse('droid'), { env: box.env, cwd: box.project, agent: 'droid' });
    expect(droid.code).toBe(0);
    expect(JSON.parse(droid.stdout)).toEqual(allow);
    const claude = await runAsAgent(preToolUse('claude'), {
      env: box.env,
      cwd: box.project,
      agent: 'claude',
    });
    expect(claude).toMatchObject({ code: 2, stdout: '', stderr: 'stop\n' });
  });

  it('Claude Code: a JSON deny later in config order beats an earlier allow', async () => {
    box.writeConfig({ hooks: { PreToolUse: [{ hooks: [cmd(json(allow))] }, { hooks: [cmd(json(deny))] }] } });
    const claude = await runAsAgent(preToolUse('claude'), {
      env: box.env,
      cwd: box.project,
      agent: 'claude',
    });
    expect(claude.code).toBe(0);
    expect(JSON.parse(claude.stdout)).toEqual(deny);
  });

  it('JSON only when stdout starts with "{" (Claude Code) or trimmed stdout does (Droid)', async () => {
    box.writeConfig({ hooks: { PreToolUse: [{ hooks: [cmd(`echo; ${json(deny)}`)] }] } });
    const droid = await runAsAgent(preToolUse('droid'), { env: box.env, cwd: box.project, agent: 'droid' });
    expect(JSON.parse(droid.stdout)).toEqual(deny);
    const claude = await runAsAgent(preToolUse('claude'), {
      env: box.env,
      cwd: box.project,
      agent: 'claude',
    });
    expect(claude).toMatchObject({ code: 0, stdout: '' });
  });

  it('exit 1: its stderr reaches Droid (prepended to the tool result), never Claude Code', async () => {
    box.writeConfig({ hooks: { PreToolUse: [{ hooks: [cmd('echo careful >&2; exit 1')] }] } });
    const droid = await runAsAgent(preToolUse('droid'), { env: box.env, cwd: box.project, agent: 'droid' });
    expect(droid).toMatchObject({ code: 1, stdout: '', stderr: 'careful\n' });
    const claude = await runAsAgent(preToolUse('claude'), {
      env: box.env,
      cwd: box.project,
      agent: 'claude',
    });
    expect(claude).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it.each(['droid', 'claude'] as const)(
    "%s: a project command's allow with updatedInput never overrides the user's guard",
    async (agent) => {
      box.writeConfig({
        hooks: { PreToolUse: [{ hooks: [cmd(`sleep 0.2; ${json(deny)}`, { name: 'user-guard' })] }] },
      });
      mkdirSync(join(box.project, '.hookd'));
      writeFileSync(
        join(box.project, '.hookd', 'config.json'),
        JSON.stringify({ hooks: { PreToolUse: [{ hooks: [cmd(json(allow), { name: 'repo' })] }] } }),
      );
      const trusted = await runCli(['trust', box.project], { env: box.env, cwd: box.project });
      expect(trusted.code, trusted.stderr).toBe(0);
      const ran = await runAsAgent(preToolUse(agent), { env: box.env, cwd: box.project, agent });
      expect(ran.code).toBe(0);
      expect(JSON.parse(ran.stdout)).toEqual(deny);
      const records = hookdLogRecords(box.env);
      expect(records.find((r) => r.kind === 'command' && r.name === 'repo')).toMatchObject({
        origin: 'project',
      });
      expect(records.find((r) => r.kind === 'event')).toMatchObject({ decidedBy: 'user-guard' });
    },
  );
});

describe("hookd's own failures", () => {
  it('a guard that timed out is logged as "guard not run" and counted; the agent goes on', async () => {
    box.writeConfig({
      hooks: { PreToolUse: [{ hooks: [cmd('sleep 20; exit 2', { name: 'slow', timeout: 0.3 })] }] },
    });
    const ran = await runAsAgent(preToolUse(), { env: box.env, cwd: box.project });
    expect(ran).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const records = hookdLogRecords(box.env);
    expect(records.find((r) => r.kind === 'command')).toMatchObject({
      name: 'slow',
      outcome: 'guard not run',
      level: 50,
    });
    expect(records.find((r) => r.kind === 'event')).toMatchObject({ notRun: 1 });
  });

  it('"onError": "block" fails closed: exit 2 with a reason naming the guard', async () => {
    box.writeConfig({
      hooks: {
        PreToolUse: [{ hooks: [cmd('sleep 20', { name: 'must-run', timeout: 0.3, onError: 'block' })] }],
      },
    });
    const ran = await runAsAgent(preToolUse(), { env: box.env, cwd: box.project });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/must-run could not run \(timed out after 300 ms\).*onError/);
    expect(hookdLogRecords(box.env).find((r) => r.kind === 'event')).toMatchObject({
      decidedBy: 'must-run',
      notRun: 1,
    });
  });
});

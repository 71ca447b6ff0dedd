import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHookSandbox } from '../../helpers/agent-spawn.js';
import { hookdLogRecords } from '../../helpers/agent-hook.js';
import { runHookd } from '../../helpers/run-hookd.js';
import { runCli } from '../../helpers/cli-run.js';

// `hookd doctor --drill` fires a harmless, matching PreToolUse through the command
// installed in the agent's settings and shows which guards ran and what they decided; a guard that
// could not run is its own outcome, never a silent exit 0. The built CLI, real processes and files (the
// installs that set it up run in-process, as the built hookd).

const box = useHookSandbox();

const cmd = (command: string, more: Record<string, unknown> = {}) => ({ type: 'command', command, ...more });

interface Check {
  id: string;
  status: string;
  detail: string;
  fix?: string;
}

async function drill(): Promise<{ code: number | null; checks: Map<string, Check> }> {
  const ran = await runHookd(['doctor', '--drill', '--json', '--timeout', '500'], {
    env: box.env,
    cwd: box.project,
  });
  const checks = new Map((JSON.parse(ran.stdout) as Check[]).map((c) => [c.id, c]));
  return { code: ran.code, checks };
}

describe('hookd doctor --drill', () => {
  it('runs the guards through the installed command and reports each one, counting guards not run', async () => {
    box.writeConfig({
      hooks: {
        PreToolUse: [
          { matcher: 'Execute|Bash', hooks: [cmd('cat >/dev/null; exit 0', { name: 'shell-guard' })] },
          { matcher: 'Execute', hooks: [cmd('sleep 20', { name: 'slow-guard', timeout: 0.3 })] },
          { matcher: 'Create', hooks: [cmd('exit 2', { name: 'file-guard' })] },
        ],
      },
    });
    const installed = await runCli(['install', '--agent', 'droid'], { env: box.env, cwd: box.project });
    expect(installed.code, installed.stderr).toBe(0);

    const { code, checks } = await drill();
    const result = checks.get('drill-droid')!;
    expect(result.status).toBe('fail');
    expect(result.detail).toContain('shell-guard: ran, exit 0, no decision');
    expect(result.detail).toContain('slow-guard: guard not run (timed out after 300 ms)');
    expect(result.detail).not.toContain('file-guard');
    expect(result.detail).toContain('1 guard not run');
    expect(result.fix).toContain('hookd logs');
    expect(code).toBe(1);
    expect(checks.get('drill-claude')?.status).toBe('skip');

    const records = hookdLogRecords(box.env);
    const event = records.find((r) => r.kind === 'event' && String(r.sessionId).startsWith('hookd-drill-'));
    expect(event).toMatchObject({
      event: 'PreToolUse',
      tool: 'Execute',
      commands: 2,
      notRun: 1,
      agent: 'droid',
    });
    expect(records.find((r) => r.kind === 'command' && r.name === 'slow-guard')).toMatchObject({
      outcome: 'guard not run',
    });
  });

  it("shows a guard's decision, and fails when the installed command does not start hookd", async () => {
    box.writeConfig({
      hooks: { PreToolUse: [{ hooks: [cmd('echo "no shell today" >&2; exit 2', { name: 'no-shell' })] }] },
    });
    const installed = await runCli(['install', '--agent', 'claude'], { env: box.env, cwd: box.project });
    expect(installed.code, installed.stderr).toBe(0);
    const decided = (await drill()).checks.get('drill-claude')!;
    expect(decided.status).toBe('ok');
    expect(decided.detail).toContain('no-shell: ran, exit 2, blocks: no shell today');
    expect(decided.detail).toContain('hookd answered exit 2');

    const settings = join(box.env.HOME!, '.claude', 'settings.json');
    const wired = JSON.parse(readFileSync(settings, 'utf8')) as { hooks: Record<string, unknown> };
    const gone = `${process.execPath} ${join(box.dir, 'gone', 'hookd.cjs')} hook`;
    const entry = { matcher: '', hooks: [{ type: 'command', command: gone, timeout: 60 }] };
    writeFileSync(settings, JSON.stringify({ hooks: { ...wired.hooks, PreToolUse: [entry] } }));
    const failed = (await drill()).checks.get('drill-claude')!;
    expect(failed.status).toBe('fail');
    expect(failed.detail).toContain('the installed command did not run hookd (exit 1)');
    expect(failed.fix).toContain('hookd install --agent claude');
  });

  it.each([
    ['gemini', 'BeforeTool', 'run_shell_command'],
    ['codex', 'PreToolUse', 'Bash'],
  ])("fires %s's own before-tool event (%s) for its shell tool", async (agent, event, tool) => {
    box.writeConfig({
      hooks: {
        PreToolUse: [{ kinds: ['shell'], hooks: [cmd('echo "not here" >&2; exit 2', { name: 'no-shell' })] }],
      },
    });
    const installed = await runHookd(['install', '--agent', agent], { env: box.env, cwd: box.project });
    expect(installed.code, installed.stderr).toBe(0);
    const result = (await drill()).checks.get(`drill-${agent}`)!;
    expect(result.status, result.detail).toBe('ok');
    expect(result.detail).toContain(`fired ${event} ${tool}`);
    expect(result.detail).toContain('no-shell: ran, exit 2, blocks: not here');
    const records = hookdLogRecords(box.env);
    const fired = records.find((r) => r.kind === 'event' && String(r.sessionId).startsWith('hookd-drill-'));
    expect(fired).toMatchObject({ tool, agent });
  });
});

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import {
  countingGuard,
  forbiddenGuard,
  guardRuns,
  hookdTestbed,
  type HookdTestbed,
} from '../harness/hookd-testbed.js';
import { agentHookRuns, runRealDroid, type DroidRun } from '../helpers/droid.js';
import { runHookd, type Ran } from '../helpers/run-hookd.js';

// hookd wired for Droid AND for Claude Code in one HOME (`hookd install --agent droid`, then
// `--agent claude`), and the same entries in the project's .factory folder, under the REAL Droid CLI
// 0.225.2, offline. Observed: Droid 0.225.2 does not run the hooks of ~/.claude/settings.json (its
// "import from Claude Code" covers sub-agents and skills), but it runs an identical command of two
// .factory folders twice, so each hookd entry fires twice per event. hookd runs the guard once per tool
// call, answers both calls alike (the model sees the block) and notifies once per Stop.

const BLOCKED = 'echo forbidden > leaked.txt';

describeWithAgent('droid', 'hookd in both ~/.factory and ~/.claude under the real Droid CLI 0.225.2', () => {
  let bed: HookdTestbed;
  let claude: Ran;
  let run: DroidRun;

  beforeAll(async () => {
    bed = await hookdTestbed('hkdci-', 'droid', () => ({
      PreToolUse: [countingGuard('Execute'), forbiddenGuard('Execute')],
    }));
    claude = await runHookd(['install', '--agent', 'claude'], { env: bed.env, cwd: bed.dir });
    const factory = JSON.parse(readFileSync(join(bed.dir, 'home', '.factory', 'settings.json'), 'utf8')) as {
      hooks: unknown;
    };
    // The same entries in the project's .factory folder: Droid runs an identical command of two folders
    // twice.
    mkdirSync(join(bed.dir, 'work', '.factory'), { recursive: true });
    writeFileSync(join(bed.dir, 'work', '.factory', 'settings.json'), JSON.stringify(factory, null, 2));
    run = await runRealDroid({
      outDir: bed.dir,
      env: bed.env,
      hooksJson: factory.hooks,
      mode: 'exec',
      script: [
        { tool: 'shell', input: { command: 'echo hi' } },
        { tool: 'shell', input: { command: BLOCKED } },
        { text: 'Done.' },
      ],
    });
    await bed.settled('droid');
  });

  afterAll(async () => {
    await bed?.close();
  });

  it("Droid 0.225.2 runs the entry of both .factory folders, and not Claude Code's", () => {
    expect(bed.installed.code, bed.installed.stderr).toBe(0);
    expect(claude.code, claude.stderr).toBe(0);
    expect(readFileSync(join(bed.dir, 'home', '.claude', 'settings.json'), 'utf8')).toMatch(/--agent claude/);
    const pre = agentHookRuns(run).filter((r) => r.hookEventName === 'PreToolUse');
    const commands = pre.flatMap((r) => r.hookCommands.map((c) => c.command));
    expect(
      commands.filter((c) => c.includes('--agent droid')),
      JSON.stringify(pre),
    ).toHaveLength(4);
    expect(commands.filter((c) => c.includes('--agent claude'))).toEqual([]);
    // both calls of the blocked command were answered alike: exit 2 with the guard's reason
    const blocked = pre.flatMap((r) => r.hookResults).filter((r) => r.exitCode === 2);
    expect(blocked).toHaveLength(2);
    expect(new Set(blocked.map((r) => `${r.stdout}|${r.stderr}`)).size).toBe(1);
  });

  it("the guard ran once per tool call, as Droid's", () => {
    expect(guardRuns(bed.dir)).toEqual(['droid other', 'droid forbidden']);
  });

  it('the model saw the block, and the command did not run', () => {
    expect(existsSync(join(run.work, 'leaked.txt'))).toBe(false);
    expect(run.fakeModelLog).toContain('no files named forbidden here');
  });

  it('one notification per Stop, and the ledger has the session as Droid', () => {
    const stops = bed.delivered().filter((d) => d.notification.event === 'Stop');
    expect(stops).toHaveLength(1);
    expect(bed.ledger().every((r) => r.agent === 'droid')).toBe(true);
  });
});

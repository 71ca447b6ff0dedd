import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import { functionResponses } from '../harness/gemini/fake-gemini.js';
import { runGemini, type GeminiRun } from '../harness/gemini/run-gemini.js';
import { forbiddenGuard, hookdTestbed, type HookdTestbed } from '../harness/hookd-testbed.js';

// hookd under the REAL Gemini CLI 0.61.0, offline (`gemini -p`, yolo mode): `hookd install --agent
// gemini` writes ~/.gemini/settings.json in the run's HOME (timeouts in milliseconds); one hookd config
// names the guards in hookd's words (PreToolUse, UserPromptSubmit, Stop); a real hookd daemon runs here,
// outside the run's network and PID namespace, reached through its unix socket; a webhook stand-in
// listens on loopback.

const FINAL = 'Finished: the notes are in ok.txt.';
const BLOCKED = 'touch forbidden.txt';

describeWithAgent('gemini', 'hookd under the real Gemini CLI 0.61.0', (entry) => {
  let bed: HookdTestbed;
  let run: GeminiRun;

  beforeAll(async () => {
    bed = await hookdTestbed('hkgmd-', 'gemini', (hanging) => ({
      PreToolUse: [forbiddenGuard('run_shell_command')],
      // Plain text for the model: Gemini must get it as JSON, never as text on stdout.
      SessionStart: [{ hooks: [{ type: 'command', command: 'echo remember the tests' }] }],
      UserPromptSubmit: [hanging],
    }));
    run = await runGemini({
      entry,
      dir: bed.dir,
      script: [{ shell: BLOCKED }, { shell: 'echo ok > ok.txt' }, { text: FINAL }],
      prompt: 'Write the notes.',
      env: bed.env,
      deadlineSec: 120,
    });
    await bed.settled('gemini');
  });

  afterAll(async () => {
    await bed?.close();
  });

  it("`hookd install --agent gemini` wires ~/.gemini/settings.json in Gemini's words and units", () => {
    expect(bed.installed.code, bed.installed.stderr).toBe(0);
    const settings = JSON.parse(readFileSync(join(run.home, '.gemini', 'settings.json'), 'utf8')) as {
      hooks: Record<string, { hooks: { command: string; timeout: number }[] }[]>;
    };
    expect(Object.keys(settings.hooks)).toEqual([
      'SessionStart',
      'BeforeAgent',
      'BeforeTool',
      'AfterTool',
      'AfterAgent',
      'Notification',
      'SessionEnd',
    ]);
    const beforeTool = settings.hooks.BeforeTool![0]!.hooks[0]!;
    expect(beforeTool.command).toMatch(/--agent gemini --event BeforeTool$/);
    expect(beforeTool.timeout).toBe(60_000);
  });

  it('prints nothing but JSON on stdout: the context reaches the model, no hook message is shown', () => {
    expect(run.stderr).not.toContain('Hook system message');
    expect(JSON.parse(run.stdout)).toMatchObject({ response: FINAL });
    expect(JSON.stringify(run.requests[0]?.body)).toContain('remember the tests');
  });

  it('the session runs to its end: the hanging command ran, was ended and did not hold it', async () => {
    expect(run.result).toMatchObject({ code: 0, timedOut: false });
    expect(readFileSync(join(run.work, 'ok.txt'), 'utf8')).toBe('ok\n');
    expect(await bed.hangingEnded()).toBeGreaterThan(0);
  });

  it("a guard blocks the shell command and the model sees the guard's reason", () => {
    expect(existsSync(join(run.work, 'forbidden.txt'))).toBe(false);
    const seen = run.requests.flatMap((r) => functionResponses(r.body));
    expect(seen).toContainEqual({ error: 'Tool execution blocked: no files named forbidden here' });
  });

  it('AfterAgent (Stop) sends the notification with the final message', () => {
    const stop = bed.delivered().find((d) => d.notification.event === 'Stop');
    expect(stop, JSON.stringify(bed.delivered())).toBeDefined();
    expect(`${stop!.notification.title}\n${stop!.notification.body}`).toContain(FINAL);
  });

  it('the ledger has the session, as Gemini, with its tokens', () => {
    const record = bed.ledger().find((r) => r.agent === 'gemini');
    expect(record, JSON.stringify(bed.ledger())).toMatchObject({ project: run.work });
    expect(record!.tokens?.input).toBeGreaterThan(0);
    expect(record!.tokens?.output).toBeGreaterThan(0);
  });
});

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import { toolOutputs } from '../harness/codex/fake-responses.js';
import { runCopilot, type CopilotRun } from '../harness/copilot/run-copilot.js';
import { forbiddenGuard, hookdTestbed, type HookdTestbed } from '../harness/hookd-testbed.js';

// hookd under the REAL Copilot CLI 1.0.102, offline (`copilot -p`, its bring-your-own-key mode against
// the fake Responses API): `hookd install --agent copilot` writes ~/.copilot/hooks/hookd.json in the
// run's HOME (a user-level hooks file: no folder trust needed); one hookd config names the guards in
// hookd's words; a real hookd daemon runs here, outside the run's network and PID namespace, reached
// through its unix socket; a webhook stand-in listens on loopback.

const FINAL = 'Finished: the notes are in ok.txt.';
const BLOCKED = 'touch forbidden.txt';

describeWithAgent('copilot', 'hookd under the real Copilot CLI 1.0.102', (bin) => {
  let bed: HookdTestbed;
  let run: CopilotRun;

  beforeAll(async () => {
    bed = await hookdTestbed('hkcpd-', 'copilot', (hanging) => ({
      PreToolUse: [forbiddenGuard('Bash')],
      UserPromptSubmit: [hanging],
    }));
    run = await runCopilot({
      bin,
      dir: bed.dir,
      script: [{ shell: BLOCKED }, { shell: 'echo ok > ok.txt' }, { text: FINAL }],
      prompt: 'Write the notes.',
      env: bed.env,
      deadlineSec: 120,
    });
    await bed.settled('copilot');
  });

  afterAll(async () => {
    await bed?.close();
  });

  it('`hookd install --agent copilot` wires ~/.copilot/hooks/hookd.json, every entry matching "*"', () => {
    expect(bed.installed.code, bed.installed.stderr).toBe(0);
    const file = JSON.parse(readFileSync(join(run.home, '.copilot', 'hooks', 'hookd.json'), 'utf8')) as {
      hooks: Record<string, { matcher: string; hooks: { command: string; timeout: number }[] }[]>;
    };
    expect(Object.keys(file.hooks)).toEqual(
      expect.arrayContaining(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop']),
    );
    const preTool = file.hooks.PreToolUse![0]!;
    expect(preTool.matcher).toBe('*');
    expect(preTool.hooks[0]!.command).toMatch(/--agent copilot --event PreToolUse$/);
    expect(preTool.hooks[0]!.timeout).toBe(30);
  });

  it('the session runs to its end: the hanging command ran, was ended and did not hold it', async () => {
    expect(run.result, run.stderr).toMatchObject({ code: 0, timedOut: false });
    expect(readFileSync(join(run.work, 'ok.txt'), 'utf8')).toBe('ok\n');
    expect(run.stdout).toContain(FINAL);
    expect(await bed.hangingEnded()).toBeGreaterThan(0);
  });

  it("a guard blocks the shell command and the model sees the guard's reason", () => {
    expect(existsSync(join(run.work, 'forbidden.txt'))).toBe(false);
    const seen = run.requests.flatMap((r) => toolOutputs(r.body));
    expect(seen).toContain('Denied by preToolUse hook: no files named forbidden here');
  });

  // Copilot writes its session log behind the session: when the Stop and SessionEnd hooks start, the
  // turn's final message and its last model call are often not in it yet; the daemon waits for them.
  it('Stop sends the notification with the final message', () => {
    const stop = bed.delivered().find((d) => d.notification.event === 'Stop');
    expect(stop, JSON.stringify(bed.delivered())).toBeDefined();
    expect(stop!.notification.title).toContain('Finished');
    expect(`${stop!.notification.title}\n${stop!.notification.body}`).toContain(FINAL);
  });

  it("the ledger has the session, as Copilot, with every model call's tokens", () => {
    const record = bed.ledger().find((r) => r.agent === 'copilot');
    expect(record, JSON.stringify(bed.ledger())).toMatchObject({ project: run.work });
    // The fake model answers each call with 120 input and 7 output tokens.
    const calls = run.requests.length;
    expect(calls).toBeGreaterThanOrEqual(3);
    expect(record!.tokens).toMatchObject({ input: 120 * calls, output: 7 * calls });
  });
});

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import { toolOutputs } from '../harness/codex/fake-responses.js';
import { runCodex, type CodexRun } from '../harness/codex/run-codex.js';
import { forbiddenGuard, hookdTestbed, type HookdTestbed } from '../harness/hookd-testbed.js';

// hookd under the REAL Codex CLI 0.171.0, offline: `hookd install --agent codex` writes
// $CODEX_HOME/hooks.json in the run's HOME; the hooks are trusted as a user trusts them in Codex's /hooks
// screen (config.toml `hooks.state` trusted_hash, from `codex app-server` hooks/list: never by hookd);
// Codex's own sandbox is on (workspace-write), and the hooks still reach the hookd daemon, which runs
// here, through its unix socket; a webhook stand-in listens on loopback.

const FINAL = 'Finished: the notes are in ok.txt.';
const BLOCKED = 'touch forbidden.txt';

describeWithAgent('codex', 'hookd under the real Codex CLI 0.171.0', (bin) => {
  let bed: HookdTestbed;
  let run: CodexRun;

  beforeAll(async () => {
    bed = await hookdTestbed('hkcxd-', 'codex', (hanging) => ({
      PreToolUse: [forbiddenGuard('Bash')],
      UserPromptSubmit: [hanging],
    }));
    run = await runCodex({
      bin,
      dir: bed.dir,
      script: [{ shell: BLOCKED }, { shell: 'echo ok > ok.txt' }, { text: FINAL }],
      prompt: 'Write the notes.',
      trust: 'persisted',
      sandbox: 'workspace-write',
      env: bed.env,
      deadlineSec: 120,
    });
    await bed.settled('codex');
  });

  afterAll(async () => {
    await bed?.close();
  });

  it('`hookd install --agent codex` wires $CODEX_HOME/hooks.json and says how to trust it', () => {
    expect(bed.installed.code, bed.installed.stderr).toBe(0);
    expect(bed.installed.stdout).toContain(join(bed.dir, 'home', '.codex', 'hooks.json'));
    expect(bed.installed.stdout).toMatch(/open `\/hooks`, review the hookd entries and trust them/);
    const hooks = JSON.parse(readFileSync(join(run.codexHome, 'hooks.json'), 'utf8')) as {
      hooks: Record<string, { hooks: { command: string; timeout: number }[] }[]>;
    };
    expect(hooks.hooks.PreToolUse![0]!.hooks[0]!.command).toMatch(/--agent codex --event PreToolUse$/);
    expect(hooks.hooks.SessionEnd![0]!.hooks[0]!.timeout).toBe(3);
    // Trust was the user's step: every hookd entry was listed untrusted before it
    const listed = (run.result.hooksList as { data: { hooks: { trustStatus: string }[] }[] }).data;
    expect(listed.flatMap((d) => d.hooks.map((h) => h.trustStatus))).toEqual(
      Object.keys(hooks.hooks).map(() => 'untrusted'),
    );
  });

  it('the session runs to its end: the hanging command ran, was ended and did not hold it', async () => {
    expect(run.result).toMatchObject({ code: 0, timedOut: false });
    expect(readFileSync(join(run.work, 'ok.txt'), 'utf8')).toBe('ok\n');
    expect(await bed.hangingEnded()).toBeGreaterThan(0);
  });

  it("a guard blocks the shell command and the model sees the guard's reason", () => {
    expect(existsSync(join(run.work, 'forbidden.txt'))).toBe(false);
    const seen = run.requests.flatMap((r) => toolOutputs(r.body));
    expect(seen).toContain(
      `Command blocked by PreToolUse hook: no files named forbidden here. Command: ${BLOCKED}`,
    );
  });

  it('Stop sends the notification with the final message', () => {
    const stop = bed.delivered().find((d) => d.notification.event === 'Stop');
    expect(stop, JSON.stringify(bed.delivered())).toBeDefined();
    expect(`${stop!.notification.title}\n${stop!.notification.body}`).toContain(FINAL);
  });

  it('the ledger has the session, as Codex, with its tokens', () => {
    const record = bed.ledger().find((r) => r.agent === 'codex');
    expect(record, JSON.stringify(bed.ledger())).toMatchObject({ project: run.work });
    expect(record!.tokens?.input).toBeGreaterThan(0);
    expect(record!.tokens?.output).toBeGreaterThan(0);
  });
});

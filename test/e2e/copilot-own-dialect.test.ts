import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import { toolOutputs } from '../harness/codex/fake-responses.js';
import { runCopilot, type CopilotRun } from '../harness/copilot/run-copilot.js';
import { forbiddenGuard, hookdTestbed, type HookdTestbed } from '../harness/hookd-testbed.js';
import { HOOKD_BIN } from '../helpers/fixtures.js';
import { runHookd } from '../helpers/run-hookd.js';

// hookd under the REAL Copilot CLI 1.0.102, offline, wired through hooks files in Copilot's OWN dialect
// (`{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": ...}]}}`, camelCase payloads that
// name no event): first a user's file calling `hookd hook --agent copilot` itself, then a user's guard
// moved under hookd by `hookd import --agent copilot`.

const FINAL = 'Finished: the notes are in ok.txt.';
const SCRIPT = [{ shell: 'touch forbidden.txt' }, { shell: 'echo ok > ok.txt' }, { text: FINAL }];
const OWN_EVENTS = [
  'sessionStart',
  'userPromptSubmitted',
  'preToolUse',
  'postToolUse',
  'agentStop',
  'sessionEnd',
];

const sees = (run: CopilotRun) => run.requests.flatMap((r) => toolOutputs(r.body));

describeWithAgent(
  'copilot',
  "hookd under the real Copilot CLI 1.0.102, in Copilot's own hook dialect",
  (bin) => {
    describe('a hooks file of its own dialect that calls hookd', () => {
      let bed: HookdTestbed;
      let run: CopilotRun;

      beforeAll(async () => {
        bed = await hookdTestbed('hkcpo-', 'copilot', () => ({ PreToolUse: [forbiddenGuard('Bash')] }));
        // Only the user's own file calls hookd here (not the Claude-dialect hookd.json install wrote).
        rmSync(join(bed.env.HOME!, '.copilot', 'hooks', 'hookd.json'));
        const bash = `'${process.execPath}' '${HOOKD_BIN}' hook --agent copilot`;
        const hooks = Object.fromEntries(
          OWN_EVENTS.map((e) => [e, [{ type: 'command', bash, timeoutSec: 30 }]]),
        );
        run = await runCopilot({
          bin,
          dir: bed.dir,
          script: SCRIPT,
          prompt: 'Write the notes.',
          homeFiles: { '.copilot/hooks/mine.json': { version: 1, hooks } },
          env: bed.env,
        });
        await bed.settled('copilot');
      });

      afterAll(async () => {
        await bed?.close();
      });

      it("the guard blocks the shell command and the model reads the guard's reason", () => {
        expect(run.result, run.stderr).toMatchObject({ code: 0, timedOut: false });
        expect(existsSync(join(run.work, 'forbidden.txt'))).toBe(false);
        expect(readFileSync(join(run.work, 'ok.txt'), 'utf8')).toBe('ok\n');
        expect(sees(run)).toContain('Denied by preToolUse hook: no files named forbidden here');
      });

      it('agentStop is the Stop notification, with the final message; the ledger has the tokens', () => {
        const stop = bed.delivered().find((d) => d.notification.event === 'Stop');
        expect(`${stop?.notification.title}\n${stop?.notification.body}`).toContain(FINAL);
        const record = bed.ledger().find((r) => r.agent === 'copilot');
        const calls = run.requests.length;
        expect(record?.tokens).toMatchObject({ input: 120 * calls, output: 7 * calls });
      });
    });

    describe('a guard of its own dialect, moved under hookd by `hookd import --agent copilot`', () => {
      let bed: HookdTestbed;
      let run: CopilotRun;
      let imported: Awaited<ReturnType<typeof runHookd>>;

      beforeAll(async () => {
        bed = await hookdTestbed('hkcpi-', 'copilot', () => ({}));
        const mine = join(bed.env.HOME!, '.copilot', 'hooks', 'mine.json');
        mkdirSync(join(mine, '..'), { recursive: true });
        const guard = 'grep -q forbidden && { echo "no files named forbidden here" >&2; exit 2; }; exit 0';
        writeFileSync(
          mine,
          JSON.stringify({
            version: 1,
            hooks: { preToolUse: [{ type: 'command', bash: guard, timeoutSec: 10 }] },
          }),
        );
        imported = await runHookd(['import', '--agent', 'copilot'], { env: bed.env, cwd: bed.dir });
        run = await runCopilot({
          bin,
          dir: bed.dir,
          script: SCRIPT,
          prompt: 'Write the notes.',
          env: bed.env,
        });
        await bed.settled('copilot');
      });

      afterAll(async () => {
        await bed?.close();
      });

      it("the guard left Copilot's file for hookd's config, and blocks under hookd with its reason", () => {
        expect(imported.code, imported.stderr).toBe(0);
        const mine = JSON.parse(readFileSync(join(run.home, '.copilot', 'hooks', 'mine.json'), 'utf8'));
        expect(mine).toEqual({ version: 1, hooks: {} });
        const config = JSON.parse(readFileSync(bed.env.HOOKD_CONFIG!, 'utf8'));
        expect(config.hooks.PreToolUse).toEqual([
          { hooks: [expect.objectContaining({ type: 'command', timeout: 10 })], agent: 'copilot' },
        ]);
        expect(existsSync(join(run.work, 'forbidden.txt'))).toBe(false);
        expect(sees(run)).toContain('Denied by preToolUse hook: no files named forbidden here');
      });
    });
  },
);

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateAgentHooks } from '../../src/install/agent-hooks.js';
import { describeWithAgent } from '../harness/availability.js';
import { runRealDroid, type DroidRun } from '../helpers/droid.js';
import { HOOKD_BIN } from '../helpers/fixtures.js';
import { runHookd } from '../helpers/run-hookd.js';
import { isolatedEnv, makeTempDir } from '../helpers/temp.js';

// What `hookd import` writes is accepted by the REAL Droid CLI 0.225.2, and the user's own hook commands
// then run under hookd. And the validator agrees with Droid on a shape it accepts and one it rejects.

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let settings: Record<string, unknown>;
let imported: DroidRun;
const marker = () => join(tmp.dir, 'marker');
const script = [{ tool: 'shell', input: { command: 'echo hi' } }, { text: 'done' }];

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
}

describeWithAgent('droid', 'hookd import under the real Droid CLI 0.225.2', () => {
  beforeAll(async () => {
    tmp = makeTempDir('hkd-idr-');
    env = isolatedEnv(tmp.dir, { HOOKD_DAEMON: '0' });
    const file = join(tmp.dir, 'settings.json');
    mkdirSync(tmp.dir, { recursive: true });
    writeFileSync(
      file,
      JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: 'Execute',
              hooks: [
                {
                  type: 'command',
                  command: `cat > /dev/null; echo "pre $tool_name" >> ${marker()}`,
                  timeout: 20,
                },
              ],
            },
          ],
          Stop: [{ hooks: [{ type: 'command', command: `cat > /dev/null; echo stop >> ${marker()}` }] }],
        },
      }),
    );
    const ran = await runHookd(['import', '--file', file], { env, cwd: tmp.dir });
    expect(ran.code, ran.stderr).toBe(0);
    settings = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    imported = await runRealDroid({
      outDir: join(tmp.dir, 'imported'),
      env,
      hooksJson: settings.hooks,
      script,
      agentTimeoutSec: 60,
    });
  });

  afterAll(() => tmp?.cleanup());

  describe('hookd import under the real Droid CLI 0.225.2', () => {
    it('wrote hooks Droid accepts, all of them hookd', () => {
      expect(imported.rc, imported.stderr).toBe(0);
      expect(imported.droidLogs).not.toContain('Invalid hooks');
      expect(JSON.stringify(settings.hooks)).toContain(
        `"command":"${process.execPath} ${HOOKD_BIN} hook --agent droid --event `,
      );
      expect(JSON.stringify(settings.hooks)).not.toContain('marker');
    });

    it("ran the user's moved commands through hookd, matcher included", () => {
      expect(lines(marker())).toEqual(['pre Execute', 'stop']);
    });
  });

  describe('validateAgentHooks agrees with the real Droid', () => {
    const good = { type: 'command', command: 'cat > /dev/null' };
    it.each([
      ['an unknown key on an entry', { Stop: [{ matcher: '', hookd: 1, hooks: [good] }] }, true],
      ['a timeout given as a string', { Stop: [{ matcher: '', hooks: [{ ...good, timeout: '5' }] }] }, false],
    ])('%s', async (name, hooks, accepted) => {
      expect(validateAgentHooks(hooks, 'droid').ok).toBe(accepted);
      const run = await runRealDroid({
        outDir: join(tmp.dir, name.replace(/\W+/g, '-')),
        env,
        hooksJson: hooks,
        script: [{ text: 'done' }],
        agentTimeoutSec: 60,
      });
      expect(run.rc, run.stderr).toBe(0);
      expect(run.droidLogs.includes('Invalid hooks in settings.json')).toBe(!accepted);
    });
  });
});

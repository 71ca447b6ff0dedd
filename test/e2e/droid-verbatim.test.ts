import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import { installedCommand } from '../helpers/agent-spawn.js';
import { runRealDroid, type DroidRun } from '../helpers/droid.js';
import { isolatedEnv, makeTempDir } from '../helpers/temp.js';

// Under the real Droid CLI 0.225.2: a hook entry moved verbatim from Droid's settings
// into hookd's config (no `blocking` key) still blocks the shell call, through the command
// `hookd install` writes (absolute node + hookd.cjs, item 6).

let tmp: ReturnType<typeof makeTempDir>;
let run: DroidRun;

describeWithAgent('droid', 'a hook moved verbatim into hookd, under the real Droid', () => {
  beforeAll(async () => {
    tmp = makeTempDir('hkd-e2e-');
    const env = isolatedEnv(tmp.dir, { HOOKD_DAEMON: '0' });
    const verbatim = {
      matcher: 'Execute',
      hooks: [{ type: 'command', command: "echo 'no shell today' >&2; exit 2" }],
    };
    writeFileSync(env.HOOKD_CONFIG!, JSON.stringify({ hooks: { PreToolUse: [verbatim] } }));
    run = await runRealDroid({
      outDir: join(tmp.dir, 'exec'),
      env,
      hookCmd: installedCommand(),
      script: [{ tool: 'shell', input: { command: 'echo leaked > leaked.txt' } }, { text: 'All done.' }],
    });
  });
  afterAll(() => tmp?.cleanup());

  it('blocks the shell call, and the model sees its stderr', () => {
    expect(run.rc, run.stderr).toBe(0);
    expect(run.droidLogs).not.toContain('Invalid hooks');
    expect(existsSync(join(run.work, 'leaked.txt'))).toBe(false);
    expect(run.fakeModelLog).toContain('no shell today');
  });
});

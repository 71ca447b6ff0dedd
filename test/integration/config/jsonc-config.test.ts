import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runHookd } from '../../helpers/run-hookd.js';
import { runCli } from '../../helpers/cli-run.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';

// A config written as people write the agents' settings: comments and trailing commas. The hook (the
// built dist/hook.cjs, which validates a changed config with dist/validate.cjs) runs its guard.

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;

beforeEach(() => {
  tmp = makeTempDir();
  env = isolatedEnv(tmp.dir, { NO_COLOR: '1' });
});
afterEach(() => tmp.cleanup());

const CONFIG = `// my hookd config
{
  "hooks": {
    /* guards */
    "PreToolUse": [
      {
        "matcher": "Execute", // the shell tool
        "hooks": [
          { "type": "command", "command": "echo 'not here' >&2; exit 2", "name": "guard", },
        ],
      },
    ],
  },
}
`;

describe('a config with comments and trailing commas', () => {
  it('is valid, and its guard blocks on the hook path', async () => {
    writeFileSync(env.HOOKD_CONFIG!, CONFIG);
    const valid = await runCli(['validate'], { env });
    expect(valid.stderr).toBe('');
    expect(valid.code).toBe(0);
    const event = JSON.stringify({
      session_id: 's1',
      hook_event_name: 'PreToolUse',
      tool_name: 'Execute',
      tool_input: { command: 'ls' },
      cwd: tmp.dir,
    });
    const ran = await runHookd(['hook', '--agent', 'droid', '--event', 'PreToolUse'], { env, stdin: event });
    expect(ran.stderr).toBe('not here\n');
    expect(ran.code).toBe(2);
  });

  it('an unclosed comment is reported with its line and column', async () => {
    writeFileSync(env.HOOKD_CONFIG!, '{\n  "hooks": {} /* open\n}\n');
    const ran = await runCli(['validate'], { env });
    expect(ran.code).toBe(1);
    expect(ran.stdout + ran.stderr).toContain('at line 2, column 15: a /* comment is not closed');
  });
});

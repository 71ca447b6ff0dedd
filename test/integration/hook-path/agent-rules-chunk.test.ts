import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeFixture } from '../../helpers/claude-fixtures.js';
import { runHookd } from '../../helpers/run-hookd.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';

// The agents' matcher, reply and event-name rules other than Droid's are in dist/agents.cjs
// (src/agents/agent-rules.ts): an event loads it only when an entry's `matcher` must be read the way its
// agent reads it, so that an ordinary event of any agent stays on the hook bundle.

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;

beforeEach(() => {
  tmp = makeTempDir();
  env = isolatedEnv(tmp.dir, { HOOKD_DAEMON: '0' });
});
afterEach(() => tmp.cleanup());

const ran = () => join(tmp.dir, 'ran');

/** The bundle files `hookd hook --agent claude` loaded for a Claude Code PreToolUse(Bash) under this entry. */
async function chunksLoaded(entry: Record<string, unknown>): Promise<string[]> {
  writeFileSync(
    env.HOOKD_CONFIG!,
    JSON.stringify({
      hooks: { PreToolUse: [{ ...entry, hooks: [{ type: 'command', command: `touch '${ran()}'` }] }] },
    }),
  );
  const out = join(tmp.dir, 'modules.json');
  const probe = join(tmp.dir, 'probe.cjs');
  writeFileSync(
    probe,
    `process.on('exit',()=>require('fs').writeFileSync(${JSON.stringify(out)},JSON.stringify(Object.keys(require.cache))))`,
  );
  const result = await runHookd(['hook', '--agent', 'claude'], {
    env: { ...env, NODE_OPTIONS: `--require ${probe}`, HOOKD_CODE_CACHE: '0' },
    stdin: JSON.stringify({ ...claudeFixture('print/03-PreToolUse-Bash.json'), cwd: tmp.dir }),
  });
  expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' });
  return (JSON.parse(readFileSync(out, 'utf8')) as string[]).map((f) => f.slice(f.lastIndexOf('/') + 1));
}

describe("another agent's rules (dist/agents.cjs)", () => {
  it('are not loaded for an entry without a matcher', async () => {
    expect(await chunksLoaded({ tool: 'Write' })).not.toContain('agents.cjs');
    expect(existsSync(ran())).toBe(false);
  });

  it("are loaded for an entry's matcher, read Claude Code's way", async () => {
    // `Bas` is a list of one name to Claude Code, not a RegExp that finds itself in `Bash`.
    expect(await chunksLoaded({ matcher: 'Bas' })).toContain('agents.cjs');
    expect(existsSync(ran())).toBe(false);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHookSandbox } from '../../helpers/agent-spawn.js';
import { REPO_DIR } from '../../helpers/fixtures.js';
import { runHookd } from '../../helpers/run-hookd.js';

// A hookd guard blocking under Cursor, through the built `hookd hook` as Cursor runs it from Claude
// Code's settings (`--agent claude`). From Cursor's documented payloads and answer
// (test/fixtures/cursor-docs/, written from its docs, not recorded: Cursor does not run here): its
// before-* events take `{"permission": "deny", "user_message", "agent_message"}`; exit 2 blocks too.

const box = useHookSandbox();
const cursor = (name: string) =>
  JSON.parse(readFileSync(join(REPO_DIR, 'test', 'fixtures', 'cursor-docs', name), 'utf8')) as Record<
    string,
    unknown
  >;

const guard = (matcher: string) => ({
  matcher,
  hooks: [{ type: 'command', command: 'echo "no rm here" >&2; exit 2', name: 'no-rm' }],
});

async function hook(payload: Record<string, unknown>) {
  return runHookd(['hook', '--agent', 'claude'], {
    env: box.env,
    cwd: box.project,
    stdin: JSON.stringify({ ...payload, workspace_roots: [box.project], cwd: box.project }),
  });
}

describe('a hookd guard under Cursor', () => {
  it("blocks preToolUse and beforeShellExecution in Cursor's own answer, with the reason, and exit 2", async () => {
    box.writeConfig({ hooks: { PreToolUse: [guard('Shell')], beforeShellExecution: [guard('')] } });
    const pre = await hook(cursor('preToolUse-Shell.json'));
    const { tool_name: _t, tool_input: _i, ...common } = cursor('preToolUse-Shell.json');
    const shell = await hook({ ...common, hook_event_name: 'beforeShellExecution', command: 'rm -rf build' });
    for (const ran of [pre, shell]) {
      expect(ran.code, ran.stderr).toBe(2);
      expect(JSON.parse(ran.stdout)).toEqual({
        permission: 'deny',
        user_message: 'no rm here',
        agent_message: 'no rm here',
      });
      expect(ran.stderr).toContain('no rm here');
    }
  });

  it('lets an allowed call through with nothing on stdout, and a stop is not a permission event', async () => {
    box.writeConfig({ hooks: { PreToolUse: [guard('Read')], Stop: [guard('')] } });
    const pre = await hook(cursor('preToolUse-Shell.json'));
    expect([pre.code, pre.stdout]).toEqual([0, '']);
    const stop = await hook(cursor('stop.json'));
    expect(stop.code).toBe(2);
    expect(stop.stdout).toBe('');
  });
});

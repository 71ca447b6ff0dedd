import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli-run.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';

// Copilot CLI 1.0.102 skips a PreToolUse entry whose matcher is empty ("matcher cannot be empty — hook
// will be skipped", in its log) and sends PermissionRequest in its own camelCase shape: hookd writes
// `*` for every call, and wires only the events that arrive in Claude Code's shape.

let tmp: { dir: string; cleanup: () => void } | undefined;
afterEach(() => tmp?.cleanup());

type Entry = { matcher?: string; hooks: { type: string; command: string; timeout: number }[] };

function wired(file: string): Record<string, Entry[]> {
  return (JSON.parse(readFileSync(file, 'utf8')) as { hooks?: Record<string, Entry[]> }).hooks ?? {};
}

describe('hookd install --agent copilot', () => {
  it('writes ~/.copilot/hooks/hookd.json with a "*" matcher on every entry, no PermissionRequest', async () => {
    tmp = makeTempDir('hkci-');
    const env = isolatedEnv(tmp.dir);
    const ran = await runCli(['install', '--agent', 'copilot'], { env });
    expect(ran.code, ran.stderr).toBe(0);
    const file = join(env.HOME!, '.copilot/hooks/hookd.json');
    const hooks = wired(file);
    expect(Object.keys(hooks)).toEqual(expect.arrayContaining(['PreToolUse', 'Stop', 'SessionStart']));
    expect(Object.keys(hooks)).not.toContain('PermissionRequest');
    for (const [event, entries] of Object.entries(hooks)) {
      expect(entries.map((e) => e.matcher)).toEqual(['*']);
      expect(entries[0]!.hooks[0]!.command).toMatch(new RegExp(`--agent copilot --event ${event}$`));
      expect(entries[0]!.hooks[0]!.timeout).toBe(30);
    }
    expect(ran.stdout).toContain('.github/hooks');

    const again = await runCli(['install', '--agent', 'copilot'], { env });
    expect(again.code).toBe(0);
    expect(wired(file)).toEqual(hooks);

    const removed = await runCli(['uninstall', '--agent', 'copilot'], { env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(!existsSync(file) || Object.keys(wired(file)).length === 0).toBe(true);
  });

  it('writes .github/hooks/hookd.json at project scope', async () => {
    tmp = makeTempDir('hkci-');
    const env = isolatedEnv(tmp.dir);
    const project = join(tmp.dir, 'repo');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(project);
    const ran = await runCli(['install', '--agent', 'copilot', '--scope', 'project'], { env, cwd: project });
    expect(ran.code, ran.stderr).toBe(0);
    expect(wired(join(project, '.github/hooks/hookd.json')).PreToolUse![0]!.matcher).toBe('*');
  });
});

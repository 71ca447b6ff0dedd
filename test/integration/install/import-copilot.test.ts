import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectTrust } from '../../../src/config/trust.js';
import { validateConfigText } from '../../../src/config/validate.js';
import { importAgentHooks } from '../../../src/install/import-hooks.js';
import { makeTempDir } from '../../helpers/temp.js';

// `hookd import --agent copilot`: hooks files in Copilot CLI's own dialect (`{"version": 1, "hooks":
// {"preToolUse": [{"type": "command", "bash": ...}]}}`) beside hookd's own file move into hookd's config
// under hookd's event names. A project's .github/hooks is the repository's: the import never trusts it.

let tmp: { dir: string; cleanup: () => void };
let home: string;
let env: Record<string, string>;
let hookd: string;

const guard = { type: 'command', bash: './guard.sh', timeoutSec: 10, comment: 'no secrets' };
const notes = { type: 'command', bash: 'say done', env: { VOICE: 'low' } };
const cwdEntry = { type: 'command', bash: 'make check', cwd: 'scripts' };

async function writeJson(file: string, value: unknown): Promise<void> {
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, `${JSON.stringify(value, null, 2)}\n`);
}

const readJson = async (file: string) =>
  JSON.parse(await readFile(file, 'utf8')) as { version?: number; hooks: Record<string, unknown> };

beforeEach(async () => {
  tmp = makeTempDir('hkcpi-');
  home = join(tmp.dir, 'home');
  env = { HOME: home, XDG_CONFIG_HOME: join(home, 'xdg'), XDG_STATE_HOME: join(home, 'state') };
  hookd = join(tmp.dir, 'dist', 'hookd.cjs');
  await mkdir(join(hookd, '..'), { recursive: true });
  await writeFile(hookd, '#!/usr/bin/env node\n', { mode: 0o755 });
});

afterEach(() => tmp.cleanup());

describe('hookd import --agent copilot', () => {
  it("moves the entries of Copilot's own dialect into hookd's names, and wires hookd", async () => {
    const mine = join(home, '.copilot', 'hooks', 'mine.json');
    await writeJson(mine, {
      version: 1,
      hooks: { preToolUse: [guard, cwdEntry], agentStop: [notes], userPromptTransformed: [notes] },
    });
    const result = await importAgentHooks({ agent: 'copilot', scope: 'user', env, hookdPath: hookd });
    expect(result.imported.map((i) => [i.event, i.index, i.file, i.entry])).toEqual([
      ['PreToolUse', 0, mine, { hooks: [{ type: 'command', command: './guard.sh', timeout: 10 }] }],
      ['Stop', 0, mine, { hooks: [{ type: 'command', command: 'say done', env: { VOICE: 'low' } }] }],
    ]);
    expect(result.refused.map((r) => [r.event, r.index, r.reasons])).toEqual([
      ['PreToolUse', 1, ['"cwd": not moved (hookd runs commands in the event\'s folder)']],
      ['userPromptTransformed', 0, ['hookd has no event for Copilot\'s "userPromptTransformed"']],
    ]);
    const configFile = join(home, 'xdg', 'hookd', 'config.json');
    const configText = await readFile(configFile, 'utf8');
    expect(validateConfigText(configText, configFile).ok).toBe(true);
    expect(JSON.parse(configText).hooks).toEqual({
      PreToolUse: [{ hooks: [{ type: 'command', command: './guard.sh', timeout: 10 }], agent: 'copilot' }],
      Stop: [{ hooks: [{ type: 'command', command: 'say done', env: { VOICE: 'low' } }], agent: 'copilot' }],
    });
    // What hookd cannot run stays in Copilot's file; hookd is wired in its own.
    expect(await readJson(mine)).toEqual({
      version: 1,
      hooks: { preToolUse: [cwdEntry], userPromptTransformed: [notes] },
    });
    const wired = await readJson(join(home, '.copilot', 'hooks', 'hookd.json'));
    expect(Object.keys(wired.hooks)).toEqual(expect.arrayContaining(['PreToolUse', 'Stop']));
    // Every entry matches "*": Copilot skips one whose matcher is empty.
    const matchers = Object.values(wired.hooks as Record<string, { matcher: string }[]>).flat();
    expect(new Set(matchers.map((e) => e.matcher))).toEqual(new Set(['*']));
    // Run again: nothing more to move, nothing added twice.
    const again = await importAgentHooks({ agent: 'copilot', scope: 'user', env, hookdPath: hookd });
    expect(again.imported).toEqual([]);
    expect(JSON.parse(await readFile(configFile, 'utf8')).hooks.PreToolUse).toHaveLength(1);
  });

  it('a dry run changes nothing and shows each file it would change', async () => {
    const mine = join(home, '.copilot', 'hooks', 'mine.json');
    await writeJson(mine, { version: 1, hooks: { preToolUse: [guard] } });
    const before = await readFile(mine, 'utf8');
    const result = await importAgentHooks({
      agent: 'copilot',
      scope: 'user',
      env,
      hookdPath: hookd,
      dryRun: true,
    });
    expect(result.files.find((f) => f.file === mine)).toMatchObject({ changed: true });
    expect(await readFile(mine, 'utf8')).toBe(before);
  });

  it("never trusts the commands of a repository's .github/hooks for the user, nor follows a symlink there", async () => {
    const project = join(tmp.dir, 'repo');
    const repoFile = join(project, '.github', 'hooks', 'ci.json');
    await writeJson(repoFile, { version: 1, hooks: { preToolUse: [guard] } });
    const outside = join(tmp.dir, 'outside.json');
    await writeJson(outside, { version: 1, hooks: { sessionStart: [notes] } });
    await symlink(outside, join(project, '.github', 'hooks', 'planted.json'));
    const result = await importAgentHooks({
      agent: 'copilot',
      scope: 'project',
      projectDir: project,
      env,
      hookdPath: hookd,
    });
    expect(result.imported.map((i) => [i.event, i.file])).toEqual([['PreToolUse', repoFile]]);
    expect(result.trust).toMatchObject({ recorded: false });
    expect(result.trust?.note).toMatch(/does not trust for you: review them, then run hookd trust/);
    const trust = projectTrust(env, project);
    expect(trust?.file).toBe(result.trust?.file);
    expect(trust?.state).not.toBe('trusted');
    expect(result.notes.join('\n')).toContain('planted.json: a symlink: not followed; not imported');
    expect(await readJson(outside)).toEqual({ version: 1, hooks: { sessionStart: [notes] } });
  });
});

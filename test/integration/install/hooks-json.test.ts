import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DROID_EVENTS } from '../../../src/events/names.js';
import { importAgentHooks } from '../../../src/install/import-hooks.js';
import { installHookd, uninstallHookd } from '../../../src/install/install.js';
import { parseJsoncText } from '../../../src/settings-io/jsonc-text.js';

// Droid runs, for each event a folder's hooks.json names, that list instead of the folder's
// settings.json list (real Droid 0.225.2: test/e2e/install-hooks-json.test.ts). install, uninstall and
// import edit both files with that rule; the user's own bytes stay as they were.

let root: string;
let home: string;
let project: string;
let HOOKD: string;
const NODE = process.execPath;
const fixedNow = () => new Date('2026-01-02T03:04:05.678Z');
const factory = () => join(home, '.factory');
const settingsPath = () => join(factory(), 'settings.json');
const hooksJsonPath = () => join(factory(), 'hooks.json');
const cmd = (event: string, agent = 'droid') => `${NODE} ${HOOKD} hook --agent ${agent} --event ${event}`;
const mine = (event: string, agent = 'droid') => ({
  matcher: '',
  hooks: [{ type: 'command', command: cmd(event, agent), timeout: 60 }],
});
const lint = { matcher: 'Edit', hooks: [{ type: 'command', command: 'npm run lint' }] };
const say = { hooks: [{ type: 'command', command: 'say done' }] };

async function put(file: string, text: string): Promise<string> {
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, text);
  return text;
}
/** A settings file or a hooks.json, parsed: hooks objects are lists of entries by event. */
type Parsed = Record<string, unknown[]> & { hooks: Record<string, unknown[]> };
const json = (file: string) => readFile(file, 'utf8').then((t) => parseJsoncText(t) as Parsed);

function install(extra: Partial<Parameters<typeof installHookd>[0]> = {}) {
  return installHookd({
    agent: 'droid',
    scope: 'user',
    env: { HOME: home },
    projectDir: project,
    claudeManagedDir: join(root, 'managed'),
    hookdPath: HOOKD,
    now: fixedNow,
    ...extra,
  });
}
const uninstall = (extra: Partial<Parameters<typeof uninstallHookd>[0]> = {}) =>
  uninstallHookd({
    agent: 'droid',
    scope: 'user',
    env: { HOME: home },
    projectDir: project,
    now: fixedNow,
    ...extra,
  });

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'hookd-hj-'));
  home = join(root, 'home');
  project = join(root, 'project');
  await mkdir(project, { recursive: true });
  HOOKD = join(root, 'app', 'dist', 'hookd.cjs');
  await mkdir(join(HOOKD, '..'), { recursive: true });
  await writeFile(HOOKD, '#!/usr/bin/env node\n', { mode: 0o755 });
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('install with a Droid hooks.json', () => {
  it("puts hookd's entry of each event hooks.json names there, every other in settings.json; uninstall gives both back byte for byte", async () => {
    const jsonText = await put(
      hooksJsonPath(),
      '{\n  "PreToolUse": [ { "matcher": "Edit", "hooks": [ { "type": "command", "command": "npm run lint" } ] } ],\n  "Stop": [],\n  "showHookOutput": false\n}\n',
    );
    const settingsText = await put(
      settingsPath(),
      '{"model": "x", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}',
    );
    const result = await install();
    expect(result.files.map((f) => f.file)).toEqual([settingsPath(), hooksJsonPath()]);
    const where = Object.fromEntries(result.events.map((e) => [e.event, e.file]));
    expect(where.PreToolUse).toBe(hooksJsonPath());
    expect(where.Stop).toBe(hooksJsonPath());
    expect(where.SessionStart).toBe(settingsPath());
    const hj = await json(hooksJsonPath());
    // The user's entry stays first; the empty list gets hookd's; nothing is added that hooks.json did not name.
    expect(hj).toEqual({
      PreToolUse: [lint, mine('PreToolUse')],
      Stop: [mine('Stop')],
      showHookOutput: false,
    });
    const settings = await json(settingsPath());
    // settings.json's Stop list is the user's (Droid does not run it, and hookd adds nothing there).
    expect(settings.hooks.Stop).toEqual([say]);
    expect(Object.keys(settings.hooks).sort()).toEqual(DROID_EVENTS.filter((e) => e !== 'PreToolUse').sort());
    expect(settings.hooks.SessionStart).toEqual([mine('SessionStart')]);

    const again = await install();
    expect(again.changed).toBe(false);

    const removed = await uninstall();
    expect(removed.removed.map((r) => `${r.event} ${r.file}`)).toContain(`PreToolUse ${hooksJsonPath()}`);
    expect(await readFile(hooksJsonPath(), 'utf8')).toBe(jsonText);
    expect(await readFile(settingsPath(), 'utf8')).toBe(settingsText);
  });

  it("moves hookd's entry out of settings.json when hooks.json names its event (there it never runs)", async () => {
    // An install from before the user had a hooks.json: every event in settings.json.
    await install();
    const jsonText =
      '{"PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "npm run lint"}]}]}';
    await put(hooksJsonPath(), jsonText);
    const result = await install();
    expect(result.events.find((e) => e.event === 'PreToolUse')).toEqual({
      event: 'PreToolUse',
      action: 'added',
      file: hooksJsonPath(),
    });
    expect((await json(settingsPath())).hooks.PreToolUse).toBeUndefined();
    expect((await json(hooksJsonPath())).PreToolUse).toEqual([lint, mine('PreToolUse')]);
    await uninstall();
    expect(await readFile(hooksJsonPath(), 'utf8')).toBe(jsonText);
    expect(await json(settingsPath())).toEqual({});
  });

  it("keeps an event Droid's /hooks screen copied hookd into, emptied, on uninstall: it stays named", async () => {
    const text = `{\n  "Stop": [\n    ${JSON.stringify(mine('Stop'))}\n  ]\n}\n`;
    await put(hooksJsonPath(), text);
    await put(settingsPath(), JSON.stringify({ hooks: { Stop: [say] } }));
    await uninstall();
    // Dropping the key would bring back settings.json's Stop list, which the user had replaced.
    expect(await json(hooksJsonPath())).toEqual({ Stop: [] });
    expect((await json(settingsPath())).hooks.Stop).toEqual([say]);
  });

  it('keeps comments in a hooks.json; reads the older hooks/hooks.json when hooks.json is absent', async () => {
    await put(hooksJsonPath(), '{\n  // my lint\n  "PostToolUse": []\n}\n');
    await install();
    const text = await readFile(hooksJsonPath(), 'utf8');
    expect(text).toContain('// my lint');
    expect((parseJsoncText(text) as Record<string, unknown[]>).PostToolUse).toEqual([mine('PostToolUse')]);

    await rm(hooksJsonPath());
    await rm(settingsPath());
    const older = join(factory(), 'hooks', 'hooks.json');
    await put(older, JSON.stringify({ Notification: [say] }));
    const result = await install();
    expect(result.events.find((e) => e.event === 'Notification')?.file).toBe(older);
    expect((await json(older)).Notification).toEqual([say, mine('Notification')]);
  });

  it('leaves a hooks.json Droid rejects alone and says why; settings.json gets every event', async () => {
    const bad = JSON.stringify({ PreToolUse: [{ hooks: [{ type: 'command' }] }] });
    await put(hooksJsonPath(), bad);
    const result = await install();
    expect(await readFile(hooksJsonPath(), 'utf8')).toBe(bad);
    expect(Object.keys((await json(settingsPath())).hooks)).toEqual([...DROID_EVENTS]);
    expect(result.notes.join('\n')).toContain(
      `${hooksJsonPath()} has hooks Droid rejects, so Droid ignores that whole file`,
    );
  });

  it('--dry-run shows both diffs and writes nothing', async () => {
    const jsonText = await put(hooksJsonPath(), '{"Stop": []}');
    const result = await install({ dryRun: true });
    expect(result.diff).toContain(`+++ ${settingsPath()}`);
    expect(result.diff).toContain(`+++ ${hooksJsonPath()}`);
    expect(await readFile(hooksJsonPath(), 'utf8')).toBe(jsonText);
    await expect(readFile(settingsPath(), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('refuses --file naming a hooks.json, and says Droid reads no hooks from settings.local.json', async () => {
    await expect(install({ file: hooksJsonPath() })).rejects.toThrow(
      /edits it together with the settings.json/,
    );
    const local = await install({ file: join(factory(), 'settings.local.json') });
    expect(local.notes.join('\n')).toContain('Droid does not read hooks from settings.local.json');
  });

  it('imports the hooks Droid runs from hooks.json and settings.json; one hooks.json shadows stays, said so', async () => {
    await put(hooksJsonPath(), JSON.stringify({ PreToolUse: [lint] }));
    const shadowed = { matcher: 'Execute', hooks: [{ type: 'command', command: 'old-guard' }] };
    await put(settingsPath(), JSON.stringify({ hooks: { PreToolUse: [shadowed], Stop: [say] } }));
    const configPath = join(root, 'config.json');
    const result = await importAgentHooks({
      agent: 'droid',
      scope: 'user',
      env: { HOME: home },
      projectDir: project,
      hookdPath: HOOKD,
      configPath,
      now: fixedNow,
    });
    expect(result.imported.map((i) => `${i.event} ${i.file}`).sort()).toEqual([
      `PreToolUse ${hooksJsonPath()}`,
      `Stop ${settingsPath()}`,
    ]);
    expect(result.refused).toEqual([
      {
        event: 'PreToolUse',
        index: 0,
        file: settingsPath(),
        reasons: [`Droid does not run it: ${hooksJsonPath()} names PreToolUse, so its list runs instead`],
      },
    ]);
    expect((await json(configPath)).hooks).toEqual({
      PreToolUse: [{ ...lint, agent: 'droid' }],
      Stop: [{ ...say, agent: 'droid' }],
    });
    // hookd takes the moved hooks' place, each in the file Droid runs for its event.
    expect(await json(hooksJsonPath())).toEqual({ PreToolUse: [mine('PreToolUse')] });
    const settings = await json(settingsPath());
    expect(settings.hooks.PreToolUse).toEqual([shadowed]);
    expect(settings.hooks.Stop).toEqual([mine('Stop')]);
  });
});

describe('install says where else hookd is wired', () => {
  it('Droid: a project that wires hookd too is named, with the uninstall that takes it out', async () => {
    await install({ scope: 'project' });
    const result = await install();
    expect(result.layers.map((l) => `${l.layer} ${l.file}`)).toEqual([
      `user ${settingsPath()}`,
      `project ${join(project, '.factory', 'settings.json')}`,
    ]);
    expect(result.notes.join('\n')).toContain(
      `hookd is also wired in ${join(project, '.factory', 'settings.json')} (project): Droid runs both, so hookd runs twice for SessionStart`,
    );
    expect(result.notes.join('\n')).toContain(
      `\`hookd uninstall --agent droid --scope project --project ${project}\` removes that one`,
    );
  });

  it("Claude Code: the layer of each hookd entry (user, project, local, managed), the local one's uninstall", async () => {
    const local = join(project, '.claude', 'settings.local.json');
    await installHookd({
      agent: 'claude',
      scope: 'user',
      file: local,
      // Another node than the user scope's: two different commands (identical ones run once).
      nodePath: '/opt/other/bin/node',
      env: { HOME: home },
      projectDir: project,
      claudeManagedDir: join(root, 'managed'),
      hookdPath: HOOKD,
    });
    await put(
      join(root, 'managed', 'managed-settings.json'),
      JSON.stringify({
        hooks: { Stop: [{ hooks: [{ type: 'command', command: 'hookd hook --agent claude' }] }] },
      }),
    );
    const result = await install({ agent: 'claude' });
    expect(result.layers.map((l) => l.layer)).toEqual(['user', 'local', 'managed']);
    expect(result.layers.find((l) => l.layer === 'managed')?.events).toEqual(['Stop']);
    const notes = result.notes.join('\n');
    expect(notes).toContain(`\`hookd uninstall --agent claude --file ${local}\` removes that one`);
    expect(notes).toContain(
      '(managed): Claude Code runs both, so hookd runs twice for Stop; only its administrator can remove it',
    );
  });
});

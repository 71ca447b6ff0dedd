import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validateAgentHooks } from '../../../src/install/agent-hooks.js';
import { installHookd, uninstallHookd } from '../../../src/install/install.js';
import { DROID_EVENTS } from '../../../src/events/names.js';

let HOOKD: string;
let home: string;
let env: Record<string, string>;
const settingsPath = () => join(home, '.factory', 'settings.json');
const fixedNow = () => new Date('2026-01-02T03:04:05.678Z');

async function writeSettings(text: string, file = settingsPath()): Promise<void> {
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, text);
}

async function backups(dir = join(home, '.factory')): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.includes('.hookd-backup-'));
}

/** The node running this install: written into the command, so the agent's PATH does not matter. */
const NODE = process.execPath;

function install(extra: Partial<Parameters<typeof installHookd>[0]> = {}) {
  return installHookd({ agent: 'droid', scope: 'user', env, hookdPath: HOOKD, now: fixedNow, ...extra });
}

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'hookd-install-'));
  env = { HOME: home };
  // a stand-in for the built program: install only needs an executable file named hookd.cjs
  HOOKD = join(home, 'app', 'dist', 'hookd.cjs');
  await mkdir(join(HOOKD, '..'), { recursive: true });
  await writeFile(HOOKD, '#!/usr/bin/env node\n', { mode: 0o755 });
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

// A settings file as people really have them: other keys, other hooks, odd but valid formatting.
const ODD = `{
    "model":"custom:fake",   "customModels" : [ {"id": "a", "apiKey": "k"} ],
    "hooks": {
        "PostToolUse": [ { "matcher": "Edit|Create",
            "hooks": [ { "type": "command", "command": "npm run lint -- --fix", "timeout": 30 } ] } ],
        "Stop": [{"hooks":[{"type":"command","command":"say done"}]}]
    },
    "theme":   "dark"
}`;

describe('installHookd on a real settings file', () => {
  it('creates a missing file (and its folder) with an entry for all nine Droid events', async () => {
    const result = await install();
    expect(result).toMatchObject({
      created: true,
      changed: true,
      dryRun: false,
      command: `${NODE} ${HOOKD} hook --agent droid`,
    });
    expect(result.backup).toBeUndefined();
    const data = JSON.parse(await readFile(settingsPath(), 'utf8'));
    expect(Object.keys(data.hooks)).toEqual([...DROID_EVENTS]);
    expect(data.hooks.Stop).toEqual([
      {
        matcher: '',
        hooks: [
          { type: 'command', command: `${NODE} ${HOOKD} hook --agent droid --event Stop`, timeout: 60 },
        ],
      },
    ]);
    expect(validateAgentHooks(data.hooks, 'droid')).toEqual({ ok: true, problems: [] });
    expect(await readFile(settingsPath(), 'utf8')).toMatch(/^\{\n {2}"hooks": \{\n/);
  });

  it('keeps every other key and hook, their order and the file layout outside hooks', async () => {
    await writeSettings(ODD);
    const result = await install({ events: ['PostToolUse', 'Stop', 'SessionEnd'] });
    const text = await readFile(settingsPath(), 'utf8');
    const data = JSON.parse(text);
    const before = JSON.parse(ODD);
    expect(Object.keys(data)).toEqual(['model', 'customModels', 'hooks', 'theme']);
    expect(data.model).toBe(before.model);
    expect(data.customModels).toEqual(before.customModels);
    expect(data.hooks.PostToolUse[0]).toEqual(before.hooks.PostToolUse[0]);
    expect(data.hooks.Stop[0]).toEqual(before.hooks.Stop[0]);
    expect(data.hooks.PostToolUse).toHaveLength(2);
    expect(data.hooks.SessionEnd).toHaveLength(1);
    // bytes outside the hooks value are untouched; 4-space indent and no final newline kept
    expect(text.startsWith(ODD.slice(0, ODD.indexOf('"hooks": {') + 9))).toBe(true);
    expect(text.endsWith('},\n    "theme":   "dark"\n}')).toBe(true);
    // the existing entries keep their exact text; the new ones follow the file's 4-space indent
    expect(text).toContain(
      ODD.slice(ODD.indexOf('"PostToolUse"'), ODD.indexOf(' ] } ]') + 4) + ',\n        {\n',
    );
    expect(text).toContain('"Stop": [{"hooks":[{"type":"command","command":"say done"}]},{"matcher":""');
    expect(text).toContain('\n        "SessionEnd": [\n            {\n                "matcher": "",\n');
    expect(result.events.map((e) => e.action)).toEqual(['added', 'added', 'added']);
  });

  it('changes nothing the second time: no write, no second backup', async () => {
    await writeSettings(ODD);
    const first = await install();
    expect(first.backup).toBeDefined();
    const afterFirst = await readFile(settingsPath(), 'utf8');
    const mtime = (await stat(settingsPath())).mtimeMs;
    const second = await install({ now: () => new Date('2026-02-02T00:00:00Z') });
    expect(second).toMatchObject({ changed: false, diff: '' });
    expect(second.backup).toBeUndefined();
    expect(second.events.every((e) => e.action === 'unchanged')).toBe(true);
    expect(await readFile(settingsPath(), 'utf8')).toBe(afterFirst);
    expect((await stat(settingsPath())).mtimeMs).toBe(mtime);
    expect(await backups()).toHaveLength(1);
  });

  it('backs the original up once, byte for byte, and keeps the file mode', async () => {
    await writeSettings(ODD);
    await chmod(settingsPath(), 0o600);
    const result = await install();
    expect(result.backup).toBe(`${settingsPath()}.hookd-backup-20260102T030405678Z`);
    expect(await readFile(result.backup!, 'utf8')).toBe(ODD);
    expect((await stat(settingsPath())).mode & 0o777).toBe(0o600);
  });

  it('--dry-run returns the diff and changes nothing', async () => {
    await writeSettings(ODD);
    const result = await install({ dryRun: true, events: ['Stop'] });
    expect(result).toMatchObject({ dryRun: true, changed: true });
    expect(result.diff).toContain(`--- ${settingsPath()}`);
    expect(result.diff).toContain(
      `\n+        "Stop": [{"hooks":[{"type":"command","command":"say done"}]},` +
        `{"matcher":"","hooks":[{"type":"command","command":"${NODE} ${HOOKD} hook --agent droid --event Stop","timeout":60}]}]\n`,
    );
    expect(await readFile(settingsPath(), 'utf8')).toBe(ODD);
    expect(await backups()).toEqual([]);
  });

  it('refuses a file whose hooks Droid already rejects, naming the broken entry, and changes nothing', async () => {
    const broken = JSON.stringify({
      hooks: { Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'x', timeout: '5' }] }] },
    });
    await writeSettings(broken);
    await expect(install()).rejects.toThrow(
      /hooks\.Stop\[0\]\.hooks\[0\]\.timeout: error: timeout must be a number/,
    );
    expect(await readFile(settingsPath(), 'utf8')).toBe(broken);
    expect(await backups()).toEqual([]);
  });

  it('refuses a read-only file with a clear error, and changes nothing', async () => {
    await writeSettings(ODD);
    await chmod(settingsPath(), 0o444);
    await expect(install()).rejects.toThrow(/is read-only \(mode 0444\); nothing was changed/);
    expect(await readFile(settingsPath(), 'utf8')).toBe(ODD);
    expect(await backups()).toEqual([]);
  });

  it('refuses JSON that does not parse, with the line and column', async () => {
    await writeSettings('{\n  "a": 1,\n  "hooks": {,}\n}\n');
    await expect(install()).rejects.toThrow(/is not valid JSON at line 3, column 13/);
  });

  it('refuses a commented file for its real mistake, not for its first comment', async () => {
    const text = '{\n  // my model\n  "model": "x",\n  "autonomyLevel": "low",\n}\n';
    await writeSettings(text);
    await expect(install()).rejects.toThrow(
      /is not valid JSON with comments at line 5, column 1: a trailing comma/,
    );
    expect(await readFile(settingsPath(), 'utf8')).toBe(text);
    await writeSettings('{\n  // my model\n  "model": "x" "y"\n}\n');
    await expect(install()).rejects.toThrow(
      /is not valid JSON with comments at line 3, column 16: CommaExpected/,
    );
  });

  it('refuses a file whose root is not an object', async () => {
    await writeSettings('[]');
    await expect(install()).rejects.toThrow(/does not hold a JSON object/);
  });

  it('writes through a symlinked settings file, which stays a link', async () => {
    const real = join(home, 'dotfiles', 'factory-settings.json');
    await writeSettings('{"theme": "dark"}\n', real);
    await mkdir(join(home, '.factory'), { recursive: true });
    await symlink(real, settingsPath());
    await install({ events: ['Stop'] });
    expect((await lstat(settingsPath())).isSymbolicLink()).toBe(true);
    expect(JSON.parse(await readFile(real, 'utf8')).hooks.Stop).toHaveLength(1);
  });

  it('writes project scope to <project>/.factory/settings.json and Claude to .claude/settings.json', async () => {
    const project = join(home, 'proj');
    const droid = await install({ scope: 'project', projectDir: project, events: ['Stop'] });
    expect(droid.file).toBe(join(project, '.factory', 'settings.json'));
    const claude = await install({ agent: 'claude', timeoutSec: 600 });
    expect(claude.file).toBe(join(home, '.claude', 'settings.json'));
    const data = JSON.parse(await readFile(claude.file, 'utf8'));
    expect(Object.keys(data.hooks)).toEqual([...DROID_EVENTS, 'PermissionRequest', 'StopFailure']);
    expect(data.hooks.Stop[0].hooks[0]).toEqual({
      type: 'command',
      command: `${NODE} ${HOOKD} hook --agent claude --event Stop`,
      timeout: 600,
    });
  });

  it('rejects unknown events and out-of-range timeouts before touching anything', async () => {
    await expect(install({ events: ['stop'] })).rejects.toThrow(/unknown Droid event: stop/);
    await expect(install({ agent: 'claude', timeoutSec: 601 })).rejects.toThrow(
      /--timeout 601 is out of range/,
    );
    await expect(stat(settingsPath())).rejects.toThrow(/ENOENT/);
  });
});

// Settings files some users keep notes in: JSON with // and /* */ comments (JSONC).
const COMMENTED = `{
  // my model; do not change
  "model": "custom:fake",
  /* hooks of the team */
  "hooks": {
    "Stop": [{ "hooks": [{ "type": "command", "command": "say done" }] }] // a voice
  },
  "theme": "dark" // dark is better
}
`;

const COMMENTS = ['// my model; do not change', '/* hooks of the team */', '// a voice', '// dark is better'];

describe('installHookd on a settings file with comments', () => {
  it('adds the hooks and keeps every comment; changes nothing the second time; uninstall gives the value back', async () => {
    await writeSettings(COMMENTED);
    const dry = await install({ dryRun: true, events: ['Stop', 'SessionEnd'] });
    expect(dry.diff).toContain('+');
    expect(await readFile(settingsPath(), 'utf8')).toBe(COMMENTED);

    const first = await install({ events: ['Stop', 'SessionEnd'] });
    expect(first.changed).toBe(true);
    const text = await readFile(settingsPath(), 'utf8');
    for (const comment of COMMENTS) expect(text).toContain(comment);
    expect(text).toContain('"command": "say done"');
    expect(text).toContain(`${NODE} ${HOOKD} hook --agent droid`);
    expect(text).toContain('"SessionEnd": [');

    const second = await install({
      events: ['Stop', 'SessionEnd'],
      now: () => new Date('2026-02-02T00:00:00Z'),
    });
    expect(second).toMatchObject({ changed: false, diff: '' });
    expect(await readFile(settingsPath(), 'utf8')).toBe(text);

    const removed = await uninstallHookd({ agent: 'droid', scope: 'user', env, now: fixedNow });
    expect(removed.changed).toBe(true);
    // The file is given back byte for byte: comments, the compact Stop array, every space.
    expect(await readFile(settingsPath(), 'utf8')).toBe(COMMENTED);
  });
});

describe('uninstallHookd', () => {
  it('after install, gives back the original file byte for byte', async () => {
    for (const original of [ODD, '{"theme":"dark"}', '{\n\t"a": [1, 2]\n}\n', '{}\n']) {
      await writeSettings(original);
      await install();
      const result = await uninstallHookd({ agent: 'droid', scope: 'user', env, now: fixedNow });
      expect(result.changed).toBe(true);
      expect(await readFile(settingsPath(), 'utf8')).toBe(original);
    }
  });

  it('keeps an empty "hooks" object that was there before install, and removes one install made', async () => {
    const withEmpty = ['{\n  "theme": "dark",\n  // mine\n  "hooks": {}\n}\n', '{"hooks":{}}'];
    for (const original of [...withEmpty, '{"theme":"dark"}\n']) {
      await writeSettings(original);
      await install();
      // A second install that changes hookd's entries backs up a file that already holds them.
      await install({ events: ['Stop'] });
      await uninstallHookd({ agent: 'droid', scope: 'user', env, now: fixedNow });
      expect(await readFile(settingsPath(), 'utf8')).toBe(original);
    }
  });

  it('removes exactly the hookd hooks and nothing else', async () => {
    const mixed = {
      hooks: {
        Stop: [
          {
            matcher: '',
            hooks: [
              { type: 'command', command: 'say done' },
              { type: 'command', command: 'hookd hook' },
            ],
          },
        ],
        PreToolUse: [{ matcher: '', hooks: [{ type: 'command', command: `'${HOOKD}' hook`, timeout: 60 }] }],
      },
      other: true,
    };
    await writeSettings(JSON.stringify(mixed, null, 2));
    const result = await uninstallHookd({ agent: 'droid', scope: 'user', env });
    expect(result.removed).toEqual([
      { event: 'Stop', count: 1, file: settingsPath() },
      { event: 'PreToolUse', count: 1, file: settingsPath() },
    ]);
    expect(JSON.parse(await readFile(settingsPath(), 'utf8'))).toEqual({
      hooks: { Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'say done' }] }] },
      other: true,
    });
  });

  it('does nothing on a missing file or a file without hookd', async () => {
    const missing = await uninstallHookd({ agent: 'droid', scope: 'user', env });
    expect(missing).toMatchObject({ changed: false, created: false, removed: [] });
    await expect(stat(settingsPath())).rejects.toThrow(/ENOENT/);
    await writeSettings(ODD);
    const none = await uninstallHookd({ agent: 'droid', scope: 'user', env });
    expect(none.changed).toBe(false);
    expect(await readFile(settingsPath(), 'utf8')).toBe(ODD);
  });

  it('refuses a read-only file and changes nothing', async () => {
    await install();
    const installed = await readFile(settingsPath(), 'utf8');
    await chmod(settingsPath(), 0o444);
    await expect(uninstallHookd({ agent: 'droid', scope: 'user', env })).rejects.toThrow(/read-only/);
    expect(await readFile(settingsPath(), 'utf8')).toBe(installed);
  });
});

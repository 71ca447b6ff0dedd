import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validateConfigText } from '../../../src/config/validate.js';
import { validateAgentHooks } from '../../../src/install/agent-hooks.js';
import { importAgentHooks } from '../../../src/install/import-hooks.js';
import { installHookd } from '../../../src/install/install.js';
import { isHookdCommand } from '../../../src/install/hookd-command.js';

let home: string;
let hookd: string;
let env: Record<string, string>;
const settingsPath = () => join(home, '.factory', 'settings.json');
const configPath = () => join(home, 'xdg', 'hookd', 'config.json');

const lint = { matcher: 'Edit|Create', hooks: [{ type: 'command', command: 'npm run lint', timeout: 30 }] };
const say = { hooks: [{ type: 'command', command: 'say done' }] };

async function writeJson(file: string, value: unknown): Promise<string> {
  await mkdir(join(file, '..'), { recursive: true });
  const text = JSON.stringify(value, null, 2) + '\n';
  await writeFile(file, text);
  return text;
}

function runImport(extra: Partial<Parameters<typeof importAgentHooks>[0]> = {}) {
  return importAgentHooks({ agent: 'droid', scope: 'user', env, hookdPath: hookd, ...extra });
}

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'hookd-import-'));
  env = { HOME: home, XDG_CONFIG_HOME: join(home, 'xdg') };
  hookd = join(home, 'dist', 'hookd.cjs');
  await mkdir(join(hookd, '..'), { recursive: true });
  await writeFile(hookd, '#!/usr/bin/env node\n', { mode: 0o755 });
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('importAgentHooks', () => {
  it("moves the agent's hooks into a new config file and wires hookd in their place", async () => {
    await writeJson(settingsPath(), { theme: 'dark', hooks: { PostToolUse: [lint], Stop: [say] } });
    const result = await runImport();
    expect(result.imported.map((i) => [i.event, i.index, i.alreadyInConfig])).toEqual([
      ['PostToolUse', 0, false],
      ['Stop', 0, false],
    ]);
    expect(result.config).toMatchObject({ file: configPath(), created: true, changed: true });
    const configText = await readFile(configPath(), 'utf8');
    expect(validateConfigText(configText, configPath()).ok).toBe(true);
    expect(JSON.parse(configText)).toEqual({
      hooks: { PostToolUse: [{ ...lint, agent: 'droid' }], Stop: [{ ...say, agent: 'droid' }] },
    });
    const settings = JSON.parse(await readFile(settingsPath(), 'utf8'));
    expect(settings.theme).toBe('dark');
    expect(validateAgentHooks(settings.hooks, 'droid').ok).toBe(true);
    const commands = Object.values(
      settings.hooks as Record<string, { hooks: { command: string }[] }[]>,
    ).flatMap((entries) => entries.flatMap((e) => e.hooks.map((h) => h.command)));
    expect(commands).toHaveLength(9);
    expect(commands.every(isHookdCommand)).toBe(true);
  });

  it('an entry an older import moved in without its agent is not added again', async () => {
    await writeJson(configPath(), { hooks: { Stop: [say] } });
    await writeJson(settingsPath(), { hooks: { Stop: [say] } });
    const result = await runImport();
    expect(result.imported.map((i) => [i.event, i.alreadyInConfig])).toEqual([['Stop', true]]);
    expect(JSON.parse(await readFile(configPath(), 'utf8'))).toEqual({ hooks: { Stop: [say] } });
  });

  it('keeps the other keys of an existing config and is idempotent', async () => {
    await writeJson(configPath(), {
      settings: { commandTimeoutSec: 20 },
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo mine' }] }] },
    });
    await writeJson(settingsPath(), { hooks: { Stop: [say] } });
    await runImport();
    const once = await readFile(configPath(), 'utf8');
    expect(JSON.parse(once)).toEqual({
      settings: { commandTimeoutSec: 20 },
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo mine' }] }, { ...say, agent: 'droid' }] },
    });
    const again = await runImport();
    expect(again.imported).toEqual([]);
    expect(again.config.changed).toBe(false);
    expect(again.settings.changed).toBe(false);
    expect(await readFile(configPath(), 'utf8')).toBe(once);
  });

  it("leaves entries hookd's schema rejects in the agent's file, with the reason", async () => {
    const odd = { matcher: '', extra: 1, hooks: [{ type: 'command', command: 'echo odd' }] };
    const zero = { hooks: [{ type: 'command', command: 'echo zero', timeout: 0 }] };
    await writeJson(settingsPath(), { hooks: { Stop: [odd, say], PreToolUse: [zero] } });
    const result = await runImport();
    expect(result.refused).toEqual([
      { event: 'Stop', index: 0, file: settingsPath(), reasons: ['unknown key "extra"'] },
      {
        event: 'PreToolUse',
        index: 0,
        file: settingsPath(),
        reasons: [expect.stringMatching(/^hooks\[0\]\.timeout: /)],
      },
    ]);
    expect(result.imported.map((i) => i.entry)).toEqual([say]);
    const settings = JSON.parse(await readFile(settingsPath(), 'utf8'));
    expect(settings.hooks.Stop[0]).toEqual(odd);
    expect(settings.hooks.PreToolUse[0]).toEqual(zero);
  });

  it('dry run: returns both diffs and writes nothing', async () => {
    const original = await writeJson(settingsPath(), { hooks: { Stop: [say] } });
    const result = await runImport({ dryRun: true });
    expect(result.config.diff).toContain('+++ ' + configPath());
    expect(result.settings.diff).toContain('\n-            "command": "say done"\n');
    expect(await readFile(settingsPath(), 'utf8')).toBe(original);
    await expect(readFile(configPath(), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('refuses to write a config hookd would reject, and writes neither file', async () => {
    const badConfig = JSON.stringify({ hooks: {}, notAKey: true });
    await mkdir(join(configPath(), '..'), { recursive: true });
    await writeFile(configPath(), badConfig);
    const original = await writeJson(settingsPath(), { hooks: { Stop: [say] } });
    await expect(runImport()).rejects.toThrow(/would not be a valid hookd config[\s\S]*notAKey/);
    expect(await readFile(configPath(), 'utf8')).toBe(badConfig);
    expect(await readFile(settingsPath(), 'utf8')).toBe(original);
  });

  it('writes neither file when the agent settings are read-only', async () => {
    const original = await writeJson(settingsPath(), { hooks: { Stop: [say] } });
    await chmod(settingsPath(), 0o444);
    await expect(runImport()).rejects.toThrow(/read-only/);
    expect(await readFile(settingsPath(), 'utf8')).toBe(original);
    await expect(readFile(configPath(), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('puts project-scope hooks into <project>/.hookd/config.json', async () => {
    const project = join(home, 'proj');
    await writeJson(join(project, '.factory', 'settings.json'), { hooks: { Stop: [say] } });
    const result = await runImport({ scope: 'project', projectDir: project });
    expect(result.config.file).toBe(join(project, '.hookd', 'config.json'));
    expect(JSON.parse(await readFile(result.config.file, 'utf8'))).toEqual({
      hooks: { Stop: [{ ...say, agent: 'droid' }] },
    });
  });

  it("Claude Code: moves command hooks; http, prompt and agent hooks stay in Claude's settings, with the reason", async () => {
    const claudeSettings = join(home, '.claude', 'settings.json');
    const guard = { type: 'command', command: "echo 'no rm' >&2; exit 2" };
    const http = { type: 'http', url: 'http://127.0.0.1:9/hook' };
    const judge = { type: 'prompt', prompt: 'Is the work done?' };
    await writeJson(claudeSettings, {
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [guard, http] }],
        Stop: [{ hooks: [judge] }],
        SubagentStop: [{ hooks: [{ type: 'agent', prompt: 'check' }] }],
      },
    });
    const result = await runImport({ agent: 'claude' });
    expect(result.imported.map((i) => [i.event, i.index, i.entry])).toEqual([
      ['PreToolUse', 0, { matcher: 'Bash', hooks: [guard] }],
    ]);
    expect(result.refused).toEqual([
      {
        event: 'PreToolUse',
        index: 0,
        file: claudeSettings,
        reasons: [
          'hooks[1]: a Claude Code "http" hook is run by Claude Code itself; hookd runs only commands',
        ],
      },
      {
        event: 'Stop',
        index: 0,
        file: claudeSettings,
        reasons: [
          'hooks[0]: a Claude Code "prompt" hook is run by Claude Code itself; hookd runs only commands',
        ],
      },
      {
        event: 'SubagentStop',
        index: 0,
        file: claudeSettings,
        reasons: [
          'hooks[0]: a Claude Code "agent" hook is run by Claude Code itself; hookd runs only commands',
        ],
      },
    ]);
    expect(JSON.parse(await readFile(configPath(), 'utf8'))).toEqual({
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [guard], agent: 'claude' }] },
    });
    const settings = JSON.parse(await readFile(claudeSettings, 'utf8')) as {
      hooks: Record<string, { matcher?: string; hooks: Record<string, unknown>[] }[]>;
    };
    expect(validateAgentHooks(settings.hooks, 'claude').ok).toBe(true);
    // the http hook keeps its place; hookd's entry comes after it
    expect(settings.hooks.PreToolUse![0]).toEqual({ matcher: 'Bash', hooks: [http] });
    expect(isHookdCommand(settings.hooks.PreToolUse![1]!.hooks[0]!.command)).toBe(true);
    expect(settings.hooks.PreToolUse![1]!.hooks[0]!.command).toMatch(
      / hook --agent claude --event PreToolUse$/,
    );
    expect(settings.hooks.Stop![0]).toEqual({ hooks: [judge] });
  });
});

const readJson = async (file: string) => JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;

type Hooks = Record<string, { matcher?: string; hooks: { command: string; timeout?: number }[] }[]>;

/** The agent's entries that are not hookd's, and the events hookd is wired on with their timeouts. */
function split(hooks: Hooks) {
  const own: Hooks = {};
  const wired: Record<string, number | undefined> = {};
  for (const [event, entries] of Object.entries(hooks))
    for (const entry of entries)
      for (const hook of entry.hooks) {
        if (isHookdCommand(hook.command)) wired[event] = hook.timeout;
        else (own[event] ??= []).push(entry);
      }
  return { own, wired };
}

// `hookd import --agent codex|gemini`: the agent's own hooks move into hookd's config, in hookd's event
// names (Gemini's BeforeTool is a PreToolUse there) and hookd's unit (seconds; Gemini writes
// milliseconds), tagged with the agent; hookd is wired in their place in the agent's own names and
// unit, and nothing is lost.
describe('importAgentHooks: Codex CLI and Gemini CLI', () => {
  const importCodex = (codexHome: string) =>
    importAgentHooks({
      agent: 'codex',
      scope: 'user',
      env: { ...env, CODEX_HOME: codexHome },
      hookdPath: hookd,
    });
  /** `./guard.sh` on Bash calls, as hookd's config holds it once imported from Codex. */
  const CODEX_GUARD = {
    matcher: 'Bash',
    hooks: [{ type: 'command', command: './guard.sh', timeout: 10 }],
    agent: 'codex',
  };
  it('Gemini CLI: its events by hookd names, its milliseconds as seconds; hookd wired in its names', async () => {
    const settings = join(home, '.gemini', 'settings.json');
    await writeJson(settings, {
      theme: 'GitHub',
      hooks: {
        BeforeTool: [
          {
            matcher: 'run_shell_command',
            hooks: [{ type: 'command', command: './guard.sh', timeout: 5000 }],
          },
        ],
        AfterAgent: [{ hooks: [{ type: 'command', command: 'say done', timeout: 1500 }] }],
        BeforeModel: [{ hooks: [{ type: 'command', command: 'log-model' }] }],
      },
    });
    const result = await importAgentHooks({ agent: 'gemini', scope: 'user', env, hookdPath: hookd });
    expect(result.refused).toEqual([]);
    expect(result.imported.map((i) => i.event)).toEqual(['BeforeTool', 'AfterAgent', 'BeforeModel']);

    const configText = await readFile(configPath(), 'utf8');
    expect(validateConfigText(configText, configPath()).ok).toBe(true);
    expect(JSON.parse(configText)).toEqual({
      hooks: {
        PreToolUse: [
          {
            matcher: 'run_shell_command',
            hooks: [{ type: 'command', command: './guard.sh', timeout: 5 }],
            agent: 'gemini',
          },
        ],
        Stop: [{ hooks: [{ type: 'command', command: 'say done', timeout: 1.5 }], agent: 'gemini' }],
        BeforeModel: [{ hooks: [{ type: 'command', command: 'log-model' }], agent: 'gemini' }],
      },
    });

    const after = await readJson(settings);
    expect(after.theme).toBe('GitHub');
    const { own, wired } = split(after.hooks as Hooks);
    expect(own).toEqual({});
    // Wired in Gemini's names and milliseconds, on its defaults and on every event a moved command had
    expect(Object.keys(wired)).toEqual(expect.arrayContaining(['BeforeTool', 'AfterAgent', 'BeforeModel']));
    expect(Object.keys(wired)).not.toContain('PreToolUse');
    expect(wired.BeforeTool).toBe(60_000);

    // Again: nothing moves twice
    const again = await importAgentHooks({ agent: 'gemini', scope: 'user', env, hookdPath: hookd });
    expect(again.imported).toEqual([]);
    expect(JSON.parse(await readFile(configPath(), 'utf8'))).toEqual(JSON.parse(configText));
  });

  it('Codex CLI: $CODEX_HOME/hooks.json; its names are hookd names; trust is left to the user', async () => {
    const codexHome = join(home, 'codex-home');
    const file = join(codexHome, 'hooks.json');
    await writeJson(file, {
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './guard.sh', timeout: 10 }] }],
        Interrupt: [{ hooks: [{ type: 'command', command: 'say stopped' }] }],
      },
    });
    const result = await importCodex(codexHome);
    expect(result.refused).toEqual([]);
    expect(result.settings.file).toBe(file);
    expect(JSON.parse(await readFile(configPath(), 'utf8'))).toEqual({
      hooks: {
        PreToolUse: [CODEX_GUARD],
        Interrupt: [{ hooks: [{ type: 'command', command: 'say stopped' }], agent: 'codex' }],
      },
    });
    const { own, wired } = split((await readJson(file)).hooks as Hooks);
    expect(own).toEqual({});
    expect(wired.PreToolUse).toBe(60);
    // Codex gives Interrupt a few seconds whatever the entry says: hookd's entry fits
    expect(wired.Interrupt).toBe(3);
    // hookd writes no trust (config.toml is not touched): it says how to trust the changed hooks
    expect(result.notes.join('\n')).toContain('open `/hooks`, review the hookd entries and trust them');
    await expect(readFile(join(codexHome, 'config.toml'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('Codex CLI: config.toml hooks are copied into the config, left in place, and the note says to delete them', async () => {
    const codexHome = join(home, 'codex-home');
    const toml = join(codexHome, 'config.toml');
    const text = [
      'model = "gpt-5.5"',
      '',
      '[[hooks.PreToolUse]]',
      'matcher = "Bash"',
      '[[hooks.PreToolUse.hooks]]',
      'type = "command"',
      'command = "./guard.sh"',
      'timeout = 10',
      '',
      '[hooks.state."/x/hooks.json:stop:0:0"]',
      'trusted_hash = "sha256:aa"',
      '',
    ].join('\n');
    await mkdir(codexHome, { recursive: true });
    await writeFile(toml, text);
    const result = await importCodex(codexHome);
    expect(result.imported.map((i) => [i.event, i.file])).toEqual([['PreToolUse', toml]]);
    expect(JSON.parse(await readFile(configPath(), 'utf8'))).toEqual({
      hooks: {
        PreToolUse: [CODEX_GUARD],
      },
    });
    // hookd never edits TOML: config.toml is as it was, and the note says what to delete
    expect(await readFile(toml, 'utf8')).toBe(text);
    expect(result.notes.join('\n')).toContain(
      `${toml}: its hooks for PreToolUse are now in hookd's config too; delete their \`[[hooks.<Event>]]\` tables`,
    );
    expect(split((await readJson(join(codexHome, 'hooks.json'))).hooks as Hooks).wired.PreToolUse).toBe(60);

    // A config.toml that is not TOML: the import goes on without it, and says so
    await writeFile(toml, '[[hooks.PreToolUse]\n');
    const again = await importCodex(codexHome);
    expect(again.imported).toEqual([]);
    expect(again.notes.join('\n')).toMatch(
      /config\.toml is not valid TOML at line 1.*its hooks were not imported/,
    );
  });

  it('Codex CLI: install names hookd wired in config.toml too, which Codex runs beside hooks.json', async () => {
    const codexHome = join(home, 'codex-home');
    const toml = join(codexHome, 'config.toml');
    await mkdir(codexHome, { recursive: true });
    await writeFile(
      toml,
      `[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = ${JSON.stringify(`${hookd} hook --agent codex`)}\n`,
    );
    const text = await readFile(toml, 'utf8');
    const result = await installHookd({
      agent: 'codex',
      scope: 'user',
      env: { ...env, CODEX_HOME: codexHome },
      hookdPath: hookd,
      transport: 'node',
    });
    expect(result.notes.join('\n')).toContain(
      `hookd is also wired in ${toml}: Codex CLI runs both, so hookd runs twice for Stop; delete hookd's \`[[hooks.<Event>]]\` tables from ${toml} by hand`,
    );
    expect(await readFile(toml, 'utf8')).toBe(text);
  });
});

import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexHookHash } from '../../../src/agents/adapters/codex-trust.js';
import { runCli } from '../../helpers/cli-run.js';
import { check, doctor, makeDoctorHome, writeJson, type DoctorHome } from './doctor-env.js';

// doctor surveys Codex CLI and Gemini CLI as it does Droid and Claude Code, with each one's own rules:
// Codex runs only the hooks its user trusted (recorded in $CODEX_HOME/config.toml by its /hooks screen),
// Gemini reads timeouts in milliseconds; Copilot CLI goes through the same checks as every agent. An
// agent never run here, and not wired, adds nothing.

let h: DoctorHome;
let env: Record<string, string>;
beforeEach(() => {
  h = makeDoctorHome();
  env = Object.fromEntries(Object.entries(h.env).filter((e): e is [string, string] => e[1] !== undefined));
});
afterEach(() => h.cleanup());

const ids = (results: { id: string }[], prefix: string) =>
  results.filter((r) => r.id.startsWith(prefix)).map((r) => r.id);
const codexHome = () => join(h.home, '.codex');

/** The trust record Codex's /hooks screen writes for one hook. */
const trustLine = (key: string, hash: string, more = '') =>
  `\n[hooks.state.${JSON.stringify(key)}]\ntrusted_hash = ${JSON.stringify(hash)}\n${more}`;

// A hooks.json entry and the hash Codex CLI 0.171.0's `codex app-server` listed for it (hooks/list).
const ENTRY = {
  matcher: '',
  hooks: [{ type: 'command', command: '/usr/bin/hookd hook --agent codex', timeout: 60 }],
};
const LISTED_HASH = 'sha256:29ce27b6c4668d24c97d689fd609f0a5a67bba1a77d6a8545dc7232afdac3b70';

/** hooks.json with hookd's PreToolUse entry, its command a program that exists. */
function wireWorkingHooksJson(): void {
  const working = { ...ENTRY, hooks: [{ ...ENTRY.hooks[0]!, command: `${h.hookdBin} hook --agent codex` }] };
  writeJson(join(codexHome(), 'hooks.json'), { hooks: { PreToolUse: [working] } });
}

/** `hookd install --agent <agent>` (in-process as the built program, the Node path), then doctor's results. */
async function installThenDoctor(agent: string) {
  const installed = await runCli(['install', '--agent', agent, '--transport', 'node'], {
    env,
    cwd: h.project,
  });
  expect(installed.code, installed.stderr).toBe(0);
  const results = await doctor(h);
  expect(check(results, `${agent}-settings-user`).status).toBe('ok');
  expect(check(results, `${agent}-hooks`).status).toBe('ok');
  return results;
}

describe('doctor: Codex CLI and Gemini CLI', () => {
  it('says nothing of an agent never run here and not wired', async () => {
    const results = await doctor(h);
    expect(ids(results, 'codex-')).toEqual([]);
    expect(ids(results, 'gemini-')).toEqual([]);
  });

  it('surveys an agent that was run here (its folder exists) without failing for not being wired', async () => {
    mkdirSync(codexHome());
    mkdirSync(join(h.home, '.gemini'));
    const results = await doctor(h);
    expect(check(results, 'codex-hooks').status).toBe('skip');
    expect(check(results, 'gemini-hooks').status).toBe('skip');
    expect(check(results, 'codex-trust').status).toBe('skip');
    expect(
      results.filter((r) => r.id.startsWith('codex-') || r.id.startsWith('gemini-')).map((r) => r.status),
    ).not.toContain('fail');
  });

  it('after `hookd install --agent codex`: wired, but not trusted, with the steps to trust', async () => {
    const results = await installThenDoctor('codex');
    const trust = check(results, 'codex-trust');
    expect(trust.status).toBe('warn');
    expect(trust.detail).toMatch(
      /^wired but not trusted: SessionStart, UserPromptSubmit, PreToolUse, .*Codex CLI skips them without a word/,
    );
    expect(trust.detail).toContain(join(codexHome(), 'config.toml'));
    expect(trust.fix).toMatch(/start `codex`, type `\/hooks`, review the hookd entries and trust them/);
    // install writes Codex's caps: SessionEnd and Interrupt within its 3 s
    expect(check(results, 'codex-timeouts').status).toBe('ok');
  });

  describe('trust as Codex records it (the hash its app-server listed for this entry)', () => {
    let key: string;
    beforeEach(() => {
      writeJson(join(codexHome(), 'hooks.json'), { hooks: { PreToolUse: [ENTRY] } });
      key = `${realpathSync(join(codexHome(), 'hooks.json'))}:pre_tool_use:0:0`;
    });

    it("trusted: the recorded hash is the entry's", async () => {
      writeFileSync(join(codexHome(), 'config.toml'), `model = "x"\n${trustLine(key, LISTED_HASH)}`);
      const trust = check(await doctor(h), 'codex-trust');
      expect(trust).toMatchObject({ status: 'ok' });
      expect(trust.detail).toMatch(/^trusted: 1 hookd hook \(PreToolUse\)/);
    });

    it('changed since trusted: the entry was edited after the user trusted it', async () => {
      writeFileSync(join(codexHome(), 'config.toml'), trustLine(key, LISTED_HASH));
      const edited = { ...ENTRY, hooks: [{ ...ENTRY.hooks[0]!, timeout: 30 }] };
      writeJson(join(codexHome(), 'hooks.json'), { hooks: { PreToolUse: [edited] } });
      const trust = check(await doctor(h), 'codex-trust');
      expect(trust.status).toBe('warn');
      expect(trust.detail).toMatch(/^changed since trusted: PreToolUse; Codex CLI skips them without a word/);
    });

    it('switched off in /hooks', async () => {
      writeFileSync(join(codexHome(), 'config.toml'), trustLine(key, LISTED_HASH, 'enabled = false\n'));
      expect(check(await doctor(h), 'codex-trust').detail).toMatch(
        /^switched off in its hooks screen: PreToolUse/,
      );
    });

    it('CODEX_HOME moves both files', async () => {
      const other = join(h.root, 'codex-home');
      writeJson(join(other, 'hooks.json'), { hooks: { PreToolUse: [ENTRY] } });
      const otherKey = `${realpathSync(join(other, 'hooks.json'))}:pre_tool_use:0:0`;
      writeFileSync(join(other, 'config.toml'), trustLine(otherKey, LISTED_HASH));
      const results = await doctor(h, { env: { ...h.env, CODEX_HOME: other } });
      expect(check(results, 'codex-trust').status).toBe('ok');
    });

    it("hookd's entries in config.toml: wired, and judged by the trust Codex files under config.toml", async () => {
      writeJson(join(codexHome(), 'hooks.json'), { hooks: {} });
      const toml = join(codexHome(), 'config.toml');
      const tomlKey = `${realpathSync(codexHome())}/config.toml:pre_tool_use:0:0`;
      const command = `${h.hookdBin} hook --agent codex`;
      const tables = `[[hooks.PreToolUse]]\nmatcher = ""\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = ${JSON.stringify(command)}\ntimeout = 60\n`;
      // The hash rules are checked against the real binary's hooks/list (codex-trust.test.ts).
      const hash = codexHookHash('PreToolUse', { matcher: '' }, { command, timeout: 60 });
      writeFileSync(toml, `model = "x"\n\n${tables}`);
      let results = await doctor(h);
      expect(check(results, 'codex-config-toml-user')).toMatchObject({ status: 'ok' });
      expect(check(results, 'codex-hooks').detail).toContain(`${toml} (user)`);
      expect(check(results, 'codex-trust').detail).toMatch(/^wired but not trusted: PreToolUse;/);
      writeFileSync(toml, `model = "x"\n\n${tables}${trustLine(tomlKey, hash)}`);
      results = await doctor(h);
      expect(check(results, 'codex-trust').detail).toMatch(/^trusted: 1 hookd hook \(PreToolUse\)/);
    });

    it('hookd in both hooks.json and config.toml: runs twice, and the fix is to delete the TOML tables', async () => {
      wireWorkingHooksJson();
      const toml = join(codexHome(), 'config.toml');
      writeFileSync(
        toml,
        `[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = ${JSON.stringify(`${h.hookdBin} hook --agent codex`)}\n`,
      );
      const wiring = check(await doctor(h), 'codex-hooks');
      expect(wiring.status).toBe('warn');
      expect(wiring.detail).toContain('every hookd command runs twice for PreToolUse');
      expect(wiring.detail).toContain(`the fix keeps ${join(codexHome(), 'hooks.json')} (user)`);
      expect(wiring.fix).toContain(`tables (those whose command runs hookd) from ${toml} by hand`);
      expect(wiring.fix).not.toContain('hookd uninstall');
    });

    it('a hostile config.toml (invalid, too deep, too big) is a finding, never a crash', async () => {
      wireWorkingHooksJson();
      const toml = join(codexHome(), 'config.toml');
      const cases: [string, RegExp][] = [
        ['[[hooks.PreToolUse]]\nmatcher = \n', /is not valid TOML at line 2/],
        [`x = ${'['.repeat(5000)}${']'.repeat(5000)}\n`, /is not valid TOML/],
        [
          `[[hooks.PreToolUse]]\nmatcher.${Array(20_000).fill('a').join('.')} = 1\n`,
          /nests tables more than 32 levels deep/,
        ],
        [`# ${'x'.repeat(5 * 1024 * 1024)}\n`, /over the \d+ limit/],
      ];
      for (const [text, said] of cases) {
        writeFileSync(toml, text);
        const results = await doctor(h);
        const file = check(results, 'codex-config-toml-user');
        expect(file.status).toBe('fail');
        expect(file.detail).toMatch(said);
        expect(check(results, 'codex-hooks').status).toBe('ok');
        expect(check(results, 'codex-trust').status).toBe('warn');
      }
    });

    it('a config.toml that cannot be read: says so, never fails the run', async () => {
      mkdirSync(join(codexHome(), 'config.toml'));
      const trust = check(await doctor(h), 'codex-trust');
      expect(trust.status).toBe('warn');
      expect(trust.detail).toContain('is a directory');
    });
  });

  it('Codex: a SessionEnd entry longer than Codex allows is named', async () => {
    const end = { hooks: [{ type: 'command', command: `${h.hookdBin} hook --agent codex`, timeout: 30 }] };
    writeJson(join(codexHome(), 'hooks.json'), { hooks: { SessionEnd: [end] } });
    const timeouts = check(await doctor(h), 'codex-timeouts');
    expect(timeouts.status).toBe('warn');
    expect(timeouts.detail).toContain(
      'hooks.SessionEnd[0].hooks[0]: timeout 30 s: Codex CLI gives SessionEnd at most 3 s',
    );
  });

  it('after `hookd install --agent gemini`: wired, timeouts in milliseconds; a timeout in seconds is named', async () => {
    let results = await installThenDoctor('gemini');
    expect(check(results, 'gemini-timeouts').status).toBe('ok');
    expect(ids(results, 'gemini-trust')).toEqual([]);

    const file = join(h.home, '.gemini', 'settings.json');
    const settings = JSON.parse(readFileSync(file, 'utf8')) as {
      hooks: Record<string, { hooks: { timeout: number }[] }[]>;
    };
    settings.hooks.BeforeTool![0]!.hooks[0]!.timeout = 60;
    writeJson(file, settings);
    results = await doctor(h);
    const timeouts = check(results, 'gemini-timeouts');
    expect(timeouts.status).toBe('warn');
    expect(timeouts.detail).toContain('hooks.BeforeTool[0].hooks[0]: timeout 60 is 60 ms');
    expect(timeouts.fix).toContain('hookd install --agent gemini');
  });

  it('status and explain show the Gemini paths, by the names in its settings (PreToolUse is BeforeTool)', async () => {
    await installThenDoctor('gemini');
    const status = await runCli(['status'], { env, cwd: h.project });
    expect(status.stdout).toMatch(/^Gemini CLI paths: node: SessionStart, BeforeAgent, BeforeTool\b/m);
    const explained = await runCli(['explain', 'PreToolUse', '--agent', 'gemini'], { env, cwd: h.project });
    expect(explained.stdout).toContain(`path (gemini): node (`);
    expect(explained.stdout).toContain(`in ${join(h.home, '.gemini', 'settings.json')}`);
  });

  it("Gemini: the project's .gemini/settings.json is surveyed too", async () => {
    writeJson(join(h.project, '.gemini', 'settings.json'), {
      hooks: {
        BeforeTool: [
          {
            matcher: '',
            hooks: [{ type: 'command', command: `${h.hookdBin} hook --agent gemini`, timeout: 60000 }],
          },
        ],
      },
    });
    const results = await doctor(h);
    expect(check(results, 'gemini-settings-project').status).toBe('ok');
    expect(check(results, 'gemini-hooks').detail).toContain(join(h.project, '.gemini', 'settings.json'));
  });
});

const copilotIds = (results: { id: string }[]) =>
  results.filter((r) => r.id.startsWith('copilot-')).map((r) => r.id);

describe('doctor: Copilot CLI', () => {
  it('says nothing of Copilot when it was never run here and is not wired', async () => {
    expect(copilotIds(await doctor(h))).toEqual([]);
  });

  it('surveys Copilot once it was run here (~/.copilot exists), without failing for not being wired', async () => {
    mkdirSync(join(h.home, '.copilot'));
    const results = await doctor(h);
    expect(check(results, 'copilot-hooks').status).toBe('skip');
    expect(results.filter((r) => r.id.startsWith('copilot-')).map((r) => r.status)).not.toContain('fail');
  });

  it('after `hookd install --agent copilot`: wired, in ~/.copilot/hooks/hookd.json', async () => {
    const installed = await runCli(['install', '--agent', 'copilot', '--transport', 'node'], {
      env,
      cwd: h.project,
    });
    expect(installed.code, installed.stderr).toBe(0);
    const results = await doctor(h);
    const hooks = check(results, 'copilot-hooks');
    expect(hooks.status, JSON.stringify(hooks)).toBe('ok');
    expect(hooks.detail).toContain(join(h.home, '.copilot', 'hooks', 'hookd.json'));
    expect(results.filter((r) => r.id.startsWith('copilot-')).map((r) => r.status)).not.toContain('fail');
  });
});

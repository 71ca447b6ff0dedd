import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAST_CLIENT_VERSIONS, FAST_PROTOCOL } from '../../../src/link/wire.js';
import type { CheckResult } from '../../../src/doctor/types.js';
import { ROOT } from '../daemon/process-helpers.js';
import { runCli } from '../../helpers/cli-run.js';
import {
  check,
  doctor,
  makeDoctorHome,
  wiredSettings,
  writeExecutable,
  writeJson,
  type DoctorHome,
} from './doctor-env.js';

// Every fix the agent checks of `hookd doctor` print, done as printed, makes that warning go away. A fix
// that is a command (`run \`hookd ...\``) is run as printed through `sh -c`, with the built hookd first on
// PATH, in the project folder; a fix that asks for an edit of the user's own file (only they can say how
// their hook should look) is done here the way it says. The set-ups' own `hookd install` runs in-process.

let h: DoctorHome;
let env: Record<string, string>;
const BIN = join(ROOT, 'dist', 'hookd.cjs');
const managed = () => join(h.root, 'managed');
const droidUser = () => join(h.home, '.factory', 'settings.json');
const droidUserJson = () => join(h.home, '.factory', 'hooks.json');
const droidProject = () => join(h.project, '.factory', 'settings.json');
const claudeUser = () => join(h.home, '.claude', 'settings.json');
const claudeLocal = () => join(h.project, '.claude', 'settings.local.json');

beforeEach(() => {
  h = makeDoctorHome();
  // The real hookd, as a user has it on PATH.
  const real = join(h.root, 'real-bin');
  writeExecutable(join(real, 'hookd'), `#!/bin/sh\nexec ${process.execPath} ${BIN} "$@"\n`);
  env = { ...(h.env as Record<string, string>), PATH: `${real}:${h.env.PATH}` };
  h.env = env;
});
afterEach(() => h.cleanup());

const runDoctor = () => doctor(h, { claudeManagedDir: managed() });

/** A set-up step: `hookd ...` run in-process as the built hookd, in the project folder. */
async function hookd(...args: string[]): Promise<void> {
  const ran = await runCli(args, { env, cwd: h.project });
  expect(ran.code, ran.stderr).toBe(0);
}

/** Runs every `hookd ...` command a fix names, as printed; returns how many. */
function runFixCommands(fix: string): number {
  const commands = [...fix.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter((c) => c.startsWith('hookd '));
  for (const command of commands) {
    const ran = spawnSync('/bin/sh', ['-c', command], { env, cwd: h.project, encoding: 'utf8' });
    expect(ran.status, `${command}: ${ran.stderr}`).toBe(0);
  }
  return commands.length;
}

/** A settings file or hooks.json as these tests edit it: lists of entries, switches, other keys. */
interface Edited {
  hooks: Record<string, unknown> & { Stop?: unknown[] };
  Stop: unknown[];
  [key: string]: unknown;
}
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Edited;
const own = (command: string, matcher = '') => ({ matcher, hooks: [{ type: 'command', command }] });

interface Scenario {
  name: string;
  id: string;
  status: 'warn' | 'fail';
  setup: () => void | Promise<void>;
  /** What the fix says, besides a command. */
  says?: (fix: string) => void;
  /** The user's edit, for a fix that is not a command. */
  edit?: () => void;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'hookd not wired into Droid',
    id: 'droid-hooks',
    status: 'warn',
    setup: () => {},
  },
  {
    name: 'a hookd program that is gone',
    id: 'droid-hooks',
    status: 'fail',
    setup: () => writeJson(droidUser(), wiredSettings(`${join(h.root, 'gone', 'dist', 'hookd.cjs')} hook`)),
  },
  {
    name: 'hookd wired in the user and the project settings (every command runs twice)',
    id: 'droid-hooks',
    status: 'warn',
    setup: async () => {
      await hookd('install');
      await hookd('install', '--scope', 'project');
    },
    says: (fix) => {
      expect(fix).toBe(`run \`hookd uninstall --agent droid --scope project --project ${h.project}\``);
    },
  },
  {
    name: 'hookd wired twice, the project one broken: the uninstall comes first',
    id: 'droid-hooks',
    status: 'warn',
    setup: async () => {
      await hookd('install');
      writeJson(
        droidProject(),
        wiredSettings(`${join(h.root, 'gone', 'dist', 'hookd.cjs')} hook --agent droid`),
      );
    },
    says: (fix) => {
      expect(fix).toBe(`run \`hookd uninstall --agent droid --scope project --project ${h.project}\``);
    },
  },
  {
    name: 'two different hookd commands in one settings file',
    id: 'droid-hooks',
    status: 'warn',
    setup: () => {
      const settings = wiredSettings(`${h.hookdBin} hook`);
      settings.hooks.Stop![0]!.hooks.push({
        type: 'command',
        command: `${h.hookdBin} hook --agent droid`,
        timeout: 60,
      });
      writeJson(droidUser(), settings);
    },
  },
  {
    name: 'hookd.cjs run by itself, needing node on the agent PATH',
    id: 'droid-hooks',
    status: 'warn',
    setup: () => {
      const cjs = join(h.root, 'pkg', 'dist', 'hookd.cjs');
      writeExecutable(cjs, '#!/usr/bin/env node\n');
      writeJson(droidUser(), wiredSettings(`${cjs} hook`));
    },
  },
  {
    name: 'a hookd entry limited by a matcher',
    id: 'droid-hooks',
    status: 'warn',
    setup: () => {
      const settings = wiredSettings(`${h.hookdBin} hook`);
      (settings.hooks.Stop![0] as { matcher: string }).matcher = 'nothing';
      writeJson(droidUser(), settings);
    },
  },
  {
    name: "hookd's entry in settings.json shadowed by the hooks.json beside it",
    id: 'droid-hooks-json-shadow',
    status: 'warn',
    setup: async () => {
      await hookd('install');
      writeJson(droidUserJson(), { PreToolUse: [own('my-guard', 'Edit')] });
    },
    says: (fix) => expect(fix).toBe('run `hookd install --agent droid`'),
  },
  {
    name: "the user's own settings.json hook shadowed by their hooks.json",
    id: 'droid-hooks-json-shadow',
    status: 'warn',
    setup: async () => {
      writeJson(droidUserJson(), { PreToolUse: [own('my-guard', 'Edit')], Stop: [] });
      await hookd('install');
      // Added to settings.json afterwards: Droid runs hooks.json's Stop list instead.
      const settings = read(droidUser());
      settings.hooks.Stop = [own('say done')];
      writeJson(droidUser(), settings);
    },
    says: (fix) =>
      expect(fix).toBe(
        `move hooks.Stop[0].hooks[0] into the Stop list of ${droidUserJson()} (or remove Stop from that file)`,
      ),
    edit: () => {
      const json = read(droidUserJson());
      json.Stop.push(own('say done'));
      writeJson(droidUserJson(), json);
    },
  },
  {
    name: 'hooksDisabled inside settings.json hooks',
    id: 'droid-hooks-switch',
    status: 'fail',
    setup: async () => {
      await hookd('install');
      const settings = read(droidUser());
      settings.hooks.hooksDisabled = true;
      writeJson(droidUser(), settings);
    },
    says: (fix) =>
      expect(fix).toBe(`remove "hooksDisabled": true from ${droidUser()} (it is inside "hooks")`),
    edit: () => {
      const settings = read(droidUser());
      delete settings.hooks.hooksDisabled;
      writeJson(droidUser(), settings);
    },
  },
  {
    name: 'hooksDisabled in hooks.json',
    id: 'droid-hooks-switch',
    status: 'fail',
    setup: async () => {
      await hookd('install');
      writeJson(droidUserJson(), { hooksDisabled: true });
    },
    says: (fix) => expect(fix).toBe(`remove "hooksDisabled": true from ${droidUserJson()}`),
    edit: () => writeJson(droidUserJson(), {}),
  },
  {
    name: 'a settings.json entry Droid rejects',
    id: 'droid-settings-user',
    status: 'fail',
    setup: () =>
      writeJson(droidUser(), {
        hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x', timeout: '5' }] }] },
      }),
    says: (fix) => expect(fix).toBe(`fix (or remove) the entry listed above in ${droidUser()}`),
    edit: () =>
      writeJson(droidUser(), {
        hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x', timeout: 5 }] }] },
      }),
  },
  {
    name: 'a settings.json that is not JSON',
    id: 'droid-settings-user',
    status: 'fail',
    setup: () => writeJson(droidUser(), '{"hooks": '),
    says: (fix) => expect(fix).toContain('Fix the JSON by hand'),
    edit: () => writeJson(droidUser(), '{"hooks": {}}'),
  },
  {
    name: 'a hooks.json Droid rejects',
    id: 'droid-hooks-json-user',
    status: 'fail',
    setup: () => writeJson(droidUserJson(), { Stop: [{ hooks: [{ type: 'command' }] }] }),
    says: (fix) => expect(fix).toBe(`fix (or remove) the entry listed above in ${droidUserJson()}`),
    edit: () => writeJson(droidUserJson(), { Stop: [{ hooks: [{ type: 'command', command: 'x' }] }] }),
  },
  {
    name: 'a hooks.json in the settings.json layout',
    id: 'droid-hooks-json-user',
    status: 'warn',
    setup: () => writeJson(droidUserJson(), { hooks: { Stop: [own('say done')] } }),
    says: (fix) => expect(fix).toBe(`move the events inside "hooks" to the top level of ${droidUserJson()}`),
    edit: () => writeJson(droidUserJson(), { Stop: [own('say done')] }),
  },
  {
    name: 'a guard on an event left out with --events',
    id: 'droid-wiring',
    status: 'warn',
    setup: async () => {
      await hookd('install', '--events', 'Stop');
      writeJson(env.HOOKD_CONFIG!, {
        hooks: { PreToolUse: [{ matcher: 'Execute', hooks: [{ type: 'command', command: 'guard' }] }] },
      });
    },
  },
  {
    name: 'the retired bash client',
    id: 'droid-wiring',
    status: 'warn',
    setup: () =>
      writeJson(
        droidUser(),
        wiredSettings(
          `HOOKD_NODE=${process.execPath} /bin/bash --posix ${join(ROOT, 'bin', 'hookd-client.bash')} --agent droid`,
        ),
      ),
  },
  {
    name: 'a native client the daemon no longer serves',
    id: 'droid-wiring',
    status: 'warn',
    setup: () => {
      const client = join(h.root, 'old', 'dist', 'hookd-client');
      writeExecutable(
        client,
        `#!/bin/sh\necho "hookd-client ${FAST_CLIENT_VERSIONS.min - 1} protocol ${FAST_PROTOCOL}"\n`,
      );
      writeJson(droidUser(), wiredSettings(`HOOKD_NODE=${process.execPath} ${client} --agent droid`));
    },
  },
  {
    name: 'Droid logged a settings.json it rejected',
    id: 'droid-log',
    status: 'fail',
    setup: () => {
      writeJson(droidUser(), {
        hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x', timeout: '5' }] }] },
      });
      utimesSync(droidUser(), new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:00:00Z'));
      const logs = join(h.home, '.factory', 'logs');
      mkdirSync(logs, { recursive: true });
      writeFileSync(
        join(logs, 'droid-log-single.log'),
        `[2026-01-02T00:00:00.000Z] WARN: Invalid hooks in settings.json, ignoring | Context: ${JSON.stringify({ path: droidUser() })}\n`,
      );
    },
    says: (fix) => expect(fix).toContain('fix the entries the settings checks list for that file'),
    edit: () =>
      writeJson(droidUser(), {
        hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x', timeout: 5 }] }] },
      }),
  },
  {
    name: 'disableAllHooks in the Claude Code user settings',
    id: 'claude-hooks-switch',
    status: 'fail',
    setup: async () => {
      await hookd('install', '--agent', 'claude');
      writeJson(claudeUser(), { ...read(claudeUser()), disableAllHooks: true });
    },
    says: (fix) => expect(fix).toBe(`remove "disableAllHooks": true from ${claudeUser()}`),
    edit: () => {
      const settings = read(claudeUser());
      delete settings.disableAllHooks;
      writeJson(claudeUser(), settings);
    },
  },
  {
    name: 'managed settings that allow managed hooks only',
    id: 'claude-hooks-switch',
    status: 'fail',
    setup: async () => {
      await hookd('install', '--agent', 'claude');
      writeJson(join(managed(), 'managed-settings.json'), { allowManagedHooksOnly: true });
    },
    says: (fix) =>
      expect(fix).toContain(
        `only the administrator of ${join(managed(), 'managed-settings.json')} can change it`,
      ),
    // What the administrator does.
    edit: () => writeJson(join(managed(), 'managed-settings.json'), {}),
  },
  {
    name: 'hookd wired in the Claude Code user and local settings',
    id: 'claude-hooks',
    status: 'warn',
    setup: async () => {
      await hookd('install', '--agent', 'claude');
      await hookd('install', '--agent', 'claude', '--transport', 'node', '--file', claudeLocal());
    },
    says: (fix) => expect(fix).toBe(`run \`hookd uninstall --agent claude --file ${claudeLocal()}\``),
  },
  {
    name: 'a Claude Code PreToolUse entry it cannot load',
    id: 'claude-settings-user',
    status: 'fail',
    setup: () => writeJson(claudeUser(), { hooks: { PreToolUse: [{ hooks: [{ type: 'command' }] }] } }),
    edit: () => writeJson(claudeUser(), { hooks: {} }),
  },
  {
    name: 'the retired Claude Code http hooks',
    id: 'claude-wiring',
    status: 'warn',
    setup: () =>
      writeJson(claudeUser(), {
        hooks: {
          Stop: [{ hooks: [{ type: 'http', url: 'http://127.0.0.1:47615/hookd/v1/claude', timeout: 5 }] }],
        },
      }),
  },
];

describe('doctor: every fix of the agent checks, done as printed, makes its warning go away', () => {
  it.each(SCENARIOS.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    await scenario.setup();
    const before: CheckResult = check(await runDoctor(), scenario.id);
    expect(before.status, before.detail).toBe(scenario.status);
    expect(before.fix, before.detail).toBeTruthy();
    scenario.says?.(before.fix!);
    const commands = runFixCommands(before.fix!);
    if (scenario.edit) scenario.edit();
    else expect(commands, `a fix with no command and no edit: ${before.fix}`).toBeGreaterThan(0);
    const after = await runDoctor();
    const now = check(after, scenario.id);
    expect(['ok', 'skip'], `${now.detail}\nfix: ${now.fix ?? ''}`).toContain(now.status);
    // The fix made nothing else of the agent's checks worse.
    const agent = scenario.id.split('-')[0]!;
    const failed = after.filter((r) => r.id.startsWith(`${agent}-`) && r.status === 'fail');
    expect(failed.map((r) => `${r.id}: ${r.detail}`)).toEqual([]);
  });

  it('the double-wiring fix is not install, which would change nothing', async () => {
    await hookd('install');
    await hookd('install', '--scope', 'project');
    const ran = await runCli(['install'], { env, cwd: h.project });
    expect(ran.stdout).toContain('nothing to change');
    const twice = check(await runDoctor(), 'droid-hooks');
    expect(twice.detail).toContain(`${droidUser()} (user)`);
    expect(twice.detail).toContain(`${droidProject()} (project)`);
    expect(twice.fix).not.toContain('hookd install');
    rmSync(droidProject());
    expect(check(await runDoctor(), 'droid-hooks').status).toBe('ok');
  });
});

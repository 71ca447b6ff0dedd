import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import { readmeGuardHook, runRealDroid, type DroidRun, type FakeStep } from '../helpers/droid.js';
import { HOOKD_BIN } from '../helpers/fixtures.js';
import { runHookd } from '../helpers/run-hookd.js';
import { isolatedEnv, makeTempDir } from '../helpers/temp.js';

// Droid 0.225.2 reads hooks from each folder's hooks.json as well as from settings.json's `hooks`, and
// merges them event by event with hooks.json winning (`loadHooks` -> `mergeHookSettings`). Each rule is
// proved here against the real Droid with user and project files; then `hookd install` is run over a
// user's own hooks.json files, and the real Droid runs hookd's guard and the user's hooks alike.

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;

/** A hook of the user's own: appends `<label> <event>` to the marker file. */
const own = (label: string, matcher = '') => [
  {
    matcher,
    hooks: [{ type: 'command', command: `cat >/dev/null; echo "${label} $hook_event_name" >> ${marker()}` }],
  },
];
const marker = () => join(tmp.dir, 'marker');

function put(file: string, value: unknown): string {
  mkdirSync(dirname(file), { recursive: true });
  const text = typeof value === 'string' ? value : `${JSON.stringify(value, null, 2)}\n`;
  writeFileSync(file, text);
  return text;
}

/** The marker lines written since the last call, sorted (hooks of one event run concurrently). */
function ran(): string[] {
  const lines = existsSync(marker()) ? readFileSync(marker(), 'utf8').trim().split('\n').filter(Boolean) : [];
  writeFileSync(marker(), '');
  return lines.sort();
}

/** hookd's config: the README's guard on Execute, told to refuse a harmless marker. */
const GUARD = {
  hooks: {
    PreToolUse: [
      {
        matcher: 'Execute',
        hooks: [readmeGuardHook()],
      },
    ],
  },
};

const SHELL_ONLY: FakeStep[] = [{ tool: 'shell', input: { command: 'echo hi' } }, { text: 'done' }];

async function droid(name: string, hooks: unknown, script: FakeStep[] = SHELL_ONLY): Promise<DroidRun> {
  const run = await runRealDroid({
    outDir: join(tmp.dir, name),
    env,
    hooksJson: hooks,
    script,
    agentTimeoutSec: 60,
  });
  expect(run.rc, run.stderr).toBe(0);
  return run;
}

const home = (name: string) => join(tmp.dir, name, 'home');
const work = (name: string) => join(tmp.dir, name, 'work');

describeWithAgent('droid', 'Droid hooks.json beside settings.json (real Droid 0.225.2)', () => {
  beforeAll(() => {
    tmp = makeTempDir('hkd-hj-');
    env = isolatedEnv(tmp.dir);
  });
  afterAll(() => tmp?.cleanup());

  describe("Droid's rules", () => {
    it("per folder, an event its hooks.json names replaces settings.json's list, an empty list too; other events and the other folder add up, an identical command in each", async () => {
      put(join(home('rules'), '.factory', 'hooks.json'), { PreToolUse: own('user-json'), Stop: [] });
      put(join(work('rules'), '.factory', 'settings.json'), {
        // The same command as the user's PostToolUse one: Droid runs it once per folder.
        hooks: {
          PreToolUse: own('project-settings'),
          SessionEnd: own('project-settings'),
          PostToolUse: own('user-settings'),
        },
      });
      put(join(work('rules'), '.factory', 'hooks.json'), { SessionEnd: own('project-json') });
      await droid('rules', {
        PreToolUse: own('user-settings'),
        PostToolUse: own('user-settings'),
        Stop: own('user-settings'),
        SessionEnd: own('user-settings'),
      });
      expect(ran()).toEqual([
        'project-json SessionEnd',
        'project-settings PreToolUse',
        'user-json PreToolUse',
        'user-settings PostToolUse',
        'user-settings PostToolUse',
        'user-settings SessionEnd',
      ]);
    });

    it('a hooks.json Droid rejects, or one in the settings.json layout, replaces nothing; without hooks.json the older hooks/hooks.json is read; settings.local.json holds none', async () => {
      put(join(home('older'), '.factory', 'hooks', 'hooks.json'), { PreToolUse: own('user-older') });
      // Droid reads no hooks from settings.local.json.
      put(join(home('older'), '.factory', 'settings.local.json'), { hooks: { Stop: own('user-local') } });
      put(join(work('older'), '.factory', 'settings.json'), { hooks: { Stop: own('project-settings') } });
      // A hook without its command: Droid logs "Invalid hooks file, ignoring" and reads none of it.
      put(join(work('older'), '.factory', 'hooks.json'), {
        Stop: [{ hooks: [{ type: 'command' }] }],
        PostToolUse: own('project-json'),
      });
      const run = await droid('older', { PreToolUse: own('user-settings'), Stop: own('user-settings') });
      expect(run.droidLogs).toContain('Invalid hooks file, ignoring');
      expect(ran()).toEqual(['project-settings Stop', 'user-older PreToolUse', 'user-settings Stop']);

      put(join(home('wrapped'), '.factory', 'hooks.json'), { hooks: { PreToolUse: own('user-json') } });
      const wrapped = await droid('wrapped', { PreToolUse: own('user-settings') });
      expect(wrapped.droidLogs).toContain('Ignoring unknown hook event keys');
      expect(ran()).toEqual(['user-settings PreToolUse']);
    });

    it('hooksDisabled inside a hooks object switches every hook off; beside "hooks" it does nothing; not a boolean, the file is dropped', async () => {
      put(join(work('off'), '.factory', 'hooks.json'), { hooksDisabled: true, Stop: own('project-json') });
      await droid('off', { PreToolUse: own('user-settings'), Stop: own('user-settings') });
      expect(ran()).toEqual([]);

      put(join(work('beside'), '.factory', 'settings.json'), {
        hooksDisabled: true,
        hooks: { Stop: own('project-settings') },
      });
      // And a hooks.json with comments is read like any other.
      put(
        join(home('beside'), '.factory', 'hooks.json'),
        `{\n  // mine\n  "PreToolUse": ${JSON.stringify(own('user-json'))}\n}\n`,
      );
      await droid('beside', { PreToolUse: own('user-settings') });
      expect(ran()).toEqual(['project-settings Stop', 'user-json PreToolUse']);

      put(join(work('not-boolean'), '.factory', 'settings.json'), {
        hooks: { hooksDisabled: 'yes', Stop: own('project-settings') },
      });
      await droid('not-boolean', { Stop: own('user-settings') });
      expect(ran()).toEqual(['user-settings Stop']);
    });
  });

  describe('hookd install over hooks.json files of the user’s own', () => {
    const SCRIPT: FakeStep[] = [
      { tool: 'shell', input: { command: 'echo forbidden-marker > leaked.txt' } },
      { tool: 'write', input: { path: 'note.txt', content: 'hello\n' } },
      { text: 'done' },
    ];
    /** The user's own hooks.json files: their hooks on the very events hookd needs. */
    function userFiles(name: string) {
      const userJson = join(home(name), '.factory', 'hooks.json');
      const projectJson = join(work(name), '.factory', 'hooks.json');
      return {
        userJson,
        projectJson,
        userText: put(userJson, { PreToolUse: own('user-json', 'Create'), Stop: own('user-json') }),
        projectText: put(projectJson, {
          PreToolUse: own('project-json', 'Execute'),
          Stop: own('project-json'),
        }),
      };
    }
    const hookdEnv = (name: string) => ({ ...env, HOME: home(name) });
    const settingsHooks = (name: string) =>
      (
        JSON.parse(readFileSync(join(home(name), '.factory', 'settings.json'), 'utf8')) as {
          hooks?: Record<string, unknown>;
        }
      ).hooks;

    it("user scope: hookd's guard blocks, the user's hooks still run, and uninstall gives the files back as they were", async () => {
      writeFileSync(env.HOOKD_CONFIG!, JSON.stringify(GUARD));
      const files = userFiles('user-scope');
      const installed = await runHookd(['install', '--json'], {
        env: hookdEnv('user-scope'),
        cwd: work('user-scope'),
      });
      expect(installed.code, installed.stderr).toBe(0);
      const result = JSON.parse(installed.stdout) as { events: { event: string; file: string }[] };
      // The events the user's hooks.json names get hookd's entry there; the other seven in settings.json.
      const inJson = result.events.filter((e) => e.file === files.userJson).map((e) => e.event);
      expect(inJson.sort()).toEqual(['PreToolUse', 'Stop']);
      expect(Object.keys(settingsHooks('user-scope') ?? {})).not.toContain('PreToolUse');
      expect(readFileSync(files.projectJson, 'utf8')).toBe(files.projectText);

      const run = await droid('user-scope', settingsHooks('user-scope'), SCRIPT);
      expect(existsSync(join(run.work, 'leaked.txt'))).toBe(false);
      expect(run.fakeModelLog).toContain('Blocked by hookd guard');
      expect(ran()).toEqual([
        'project-json PreToolUse',
        'project-json Stop',
        'user-json PreToolUse',
        'user-json Stop',
      ]);

      const removed = await runHookd(['uninstall'], { env: hookdEnv('user-scope'), cwd: work('user-scope') });
      expect(removed.code, removed.stderr).toBe(0);
      expect(readFileSync(files.userJson, 'utf8')).toBe(files.userText);
      expect(readFileSync(files.projectJson, 'utf8')).toBe(files.projectText);
      expect(settingsHooks('user-scope')).toBeUndefined();
    });

    it("project scope: hookd's entries go into the project's hooks.json, run from PATH; uninstall gives it back", async () => {
      writeFileSync(env.HOOKD_CONFIG!, JSON.stringify(GUARD));
      const files = userFiles('project-scope');
      const bin = join(tmp.dir, 'bin');
      put(join(bin, 'hookd'), `#!/bin/sh\nexec ${process.execPath} ${HOOKD_BIN} "$@"\n`);
      chmodSync(join(bin, 'hookd'), 0o755);
      const withBin = { ...env, PATH: `${bin}:${env.PATH}` };
      const installed = await runHookd(['install', '--scope', 'project'], {
        env: { ...withBin, HOME: home('project-scope') },
        cwd: work('project-scope'),
      });
      expect(installed.code, installed.stderr).toBe(0);
      expect(readFileSync(files.projectJson, 'utf8')).toContain(
        'exec hookd hook --agent droid --event PreToolUse',
      );
      expect(readFileSync(files.userJson, 'utf8')).toBe(files.userText);

      const saved = env;
      env = withBin;
      try {
        const run = await droid('project-scope', {}, SCRIPT);
        expect(existsSync(join(run.work, 'leaked.txt'))).toBe(false);
        expect(run.fakeModelLog).toContain('Blocked by hookd guard');
      } finally {
        env = saved;
      }
      expect(ran()).toEqual([
        'project-json PreToolUse',
        'project-json Stop',
        'user-json PreToolUse',
        'user-json Stop',
      ]);

      const removed = await runHookd(['uninstall', '--scope', 'project'], {
        env: { ...withBin, HOME: home('project-scope') },
        cwd: work('project-scope'),
      });
      expect(removed.code, removed.stderr).toBe(0);
      expect(readFileSync(files.projectJson, 'utf8')).toBe(files.projectText);
      expect(readFileSync(files.userJson, 'utf8')).toBe(files.userText);
    });
  });

  it('a guard added to the config after install blocks in the next session, with no command run in between', async () => {
    writeFileSync(env.HOOKD_CONFIG!, '{}\n');
    mkdirSync(work('later'), { recursive: true });
    const installed = await runHookd(['install'], {
      env: { ...env, HOME: home('later') },
      cwd: work('later'),
    });
    expect(installed.code, installed.stderr).toBe(0);
    const hooks = (
      JSON.parse(readFileSync(join(home('later'), '.factory', 'settings.json'), 'utf8')) as {
        hooks: Record<string, unknown>;
      }
    ).hooks;
    // The guard comes afterwards: only the config changes.
    writeFileSync(env.HOOKD_CONFIG!, JSON.stringify(GUARD));
    const run = await droid('later', hooks, [
      { tool: 'shell', input: { command: 'echo forbidden-marker > leaked.txt' } },
      { text: 'done' },
    ]);
    expect(existsSync(join(run.work, 'leaked.txt'))).toBe(false);
    expect(run.fakeModelLog).toContain('Blocked by hookd guard');
  });
});

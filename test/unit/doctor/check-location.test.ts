import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SettingsFileState } from '../../../src/doctor/checks/agent/agent-settings.js';
import { checkLocation, hookdProgramOf } from '../../../src/doctor/checks/hook/check-location.js';
import {
  buildHookdCommand,
  buildNativeClientCommand,
  commandForEvent,
  PORTABLE_HOOKD_COMMAND,
} from '../../../src/install/hookd-command.js';
import { useTempDir } from '../../helpers/temp.js';

const tmp = useTempDir();

function hookd(root: string): string {
  const program = join(root, 'dist', 'hookd.cjs');
  mkdirSync(dirname(program), { recursive: true });
  writeFileSync(program, '');
  return program;
}

function settings(commands: Record<string, string>, scope: 'user' | 'project' = 'user'): SettingsFileState {
  const hooks = Object.fromEntries(
    Object.entries(commands).map(([event, command]) => [
      event,
      [{ hooks: [{ type: 'command', command: commandForEvent(command, event) }] }],
    ]),
  );
  return {
    agent: 'droid',
    layer: scope,
    kind: 'settings',
    file: join(tmp.dir, scope, '.factory', 'settings.json'),
    exists: true,
    data: { hooks },
    hooks,
    report: { ok: true, problems: [] } as unknown as SettingsFileState['report'],
  };
}

describe('hookdProgramOf: the hookd.cjs an entry runs', () => {
  it('reads it from each form install writes', () => {
    expect(hookdProgramOf(buildHookdCommand('/a/dist/hookd.cjs', { agent: 'droid' }))).toBe(
      '/a/dist/hookd.cjs',
    );
    expect(hookdProgramOf(buildNativeClientCommand('/a/dist/hookd-client', 'droid'))).toBe(
      '/a/dist/hookd.cjs',
    );
    expect(
      hookdProgramOf(
        buildNativeClientCommand(
          '/p/@hookd-dev/hookd-linux-x64/bin/hookd-client',
          'droid',
          '/n',
          '/p/@hookd-dev/hookd/dist/hookd.cjs',
        ),
      ),
    ).toBe('/p/@hookd-dev/hookd/dist/hookd.cjs');
    expect(hookdProgramOf('HOOKD_NODE=/n /bin/bash --posix /old/bin/hookd-client.bash --agent droid')).toBe(
      '/old/dist/hookd.cjs',
    );
    expect(hookdProgramOf(`${PORTABLE_HOOKD_COMMAND} --agent droid`)).toBeUndefined();
  });
});

describe('checkLocation', () => {
  it('ok when every entry runs this hookd, also through a symlinked folder', () => {
    const self = hookd(join(tmp.dir, 'clone'));
    symlinkSync(join(tmp.dir, 'clone'), join(tmp.dir, 'linked'));
    const state = settings({
      PreToolUse: buildNativeClientCommand(join(tmp.dir, 'linked', 'dist', 'hookd-client'), 'droid'),
      Stop: buildHookdCommand(join(tmp.dir, 'linked', 'dist', 'hookd.cjs'), { agent: 'droid' }),
    });
    expect(checkLocation('droid', [state], self)).toMatchObject({ status: 'ok' });
  });

  it('warns about entries that run another hookd still on disk, and says how to move them', () => {
    const self = hookd(join(tmp.dir, 'new'));
    const old = hookd(join(tmp.dir, 'lib', 'node_modules', 'hookd'));
    const user = settings({
      PreToolUse: buildNativeClientCommand(join(dirname(old), 'hookd-client'), 'droid'),
      Stop: buildHookdCommand(self, { agent: 'droid' }),
    });
    const project = settings({ Stop: buildHookdCommand(old, { agent: 'droid' }) }, 'project');
    const checked = checkLocation('droid', [user, project], self);
    expect(checked.status).toBe('warn');
    expect(checked.detail).toBe(
      [
        `${user.file}: PreToolUse runs the hookd in ${join(tmp.dir, 'lib', 'node_modules', 'hookd')}, not this one (${join(tmp.dir, 'new')})`,
        `${project.file}: Stop runs the hookd in ${join(tmp.dir, 'lib', 'node_modules', 'hookd')}, not this one (${join(tmp.dir, 'new')})`,
      ].join('\n'),
    );
    expect(checked.fix).toBe(
      `run \`hookd install --agent droid\` and \`hookd install --agent droid --scope project --project ${tmp.dir}/project\` to move them to this hookd`,
    );
  });

  it("leaves entries whose hookd is gone to the settings check, and portable ones (PATH's hookd) alone", () => {
    const self = hookd(join(tmp.dir, 'new'));
    const state = settings({
      Stop: buildHookdCommand(join(tmp.dir, 'gone', 'dist', 'hookd.cjs'), { agent: 'droid' }),
      PreToolUse: `${PORTABLE_HOOKD_COMMAND} --agent droid`,
    });
    expect(checkLocation('droid', [state], self).status).toBe('ok');
    expect(checkLocation('droid', [settings({ Stop: `${PORTABLE_HOOKD_COMMAND}` })], self).status).toBe(
      'skip',
    );
  });

  it('is skipped when not run as an installed hookd (from the sources)', () => {
    expect(checkLocation('droid', [], '/repo/node_modules/vitest/vitest.mjs').status).toBe('skip');
  });
});

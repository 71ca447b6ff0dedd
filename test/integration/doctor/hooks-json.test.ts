import { spawnSync } from 'node:child_process';
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentEventPaths } from '../../../src/doctor/checks/agent/event-paths.js';
import { installHookd } from '../../../src/install/install.js';
import { ROOT } from '../daemon/process-helpers.js';
import { check, doctor, makeDoctorHome, writeJson, type DoctorHome } from './doctor-env.js';

// What doctor, status and explain read of a repository's agent files is the repository's to shape: a
// FIFO or a huge file where a settings file or a hooks.json should be is refused with the reason, never
// waited on or read whole. And the layers hookd is wired in are named.

let h: DoctorHome;
beforeEach(() => {
  h = makeDoctorHome();
});
afterEach(() => h.cleanup());

const projectFactory = () => join(h.project, '.factory');

describe('doctor and the agent files of a repository', () => {
  it('refuses a FIFO as hooks.json or settings.json instead of waiting on it', async () => {
    mkdirSync(projectFactory(), { recursive: true });
    for (const name of ['hooks.json', 'settings.json'])
      expect(spawnSync('mkfifo', [join(projectFactory(), name)]).status).toBe(0);
    const results = await doctor(h);
    expect(check(results, 'droid-hooks-json-project')).toMatchObject({ status: 'fail' });
    expect(check(results, 'droid-hooks-json-project').detail).toContain('not a regular file');
    expect(check(results, 'droid-settings-project').detail).toContain('not a regular file');
    const paths = await agentEventPaths(h.env, h.project, undefined);
    expect(paths.droid).toEqual([]);
  });

  it('refuses a settings file larger than any settings file, without reading it', async () => {
    mkdirSync(projectFactory(), { recursive: true });
    const big = join(projectFactory(), 'hooks.json');
    writeFileSync(big, '{}');
    truncateSync(big, 64 * 1024 * 1024);
    const result = check(await doctor(h), 'droid-hooks-json-project');
    expect(result.status).toBe('fail');
    expect(result.detail).toContain('over the');
  });

  it('says on every event path when a setting switches the hooks off', async () => {
    const hookd = join(ROOT, 'dist', 'hookd.cjs');
    await installHookd({
      agent: 'droid',
      scope: 'user',
      env: h.env as Record<string, string>,
      projectDir: h.project,
      hookdPath: hookd,
    });
    const before = await agentEventPaths(h.env, h.project, undefined);
    expect(before.droid.every((p) => p.off === undefined)).toBe(true);
    const json = join(h.home, '.factory', 'hooks.json');
    writeJson(json, { hooksDisabled: true });
    const after = await agentEventPaths(h.env, h.project, undefined);
    expect(after.droid).toHaveLength(9);
    expect(after.droid.every((p) => p.off === `"hooksDisabled": true in ${json}`)).toBe(true);
  });

  it('names the layer of each hookd entry, and reads a project in the home folder once', async () => {
    const hookd = join(ROOT, 'dist', 'hookd.cjs');
    const managed = join(h.root, 'managed');
    const common = { env: h.env as Record<string, string>, hookdPath: hookd, claudeManagedDir: managed };
    await installHookd({ ...common, agent: 'claude', scope: 'user', projectDir: h.project });
    writeJson(join(managed, 'managed-settings.json'), {
      hooks: { Stop: [{ hooks: [{ type: 'command', command: `${h.hookdBin} hook --agent claude` }] }] },
    });
    const hooks = check(await doctor(h, { claudeManagedDir: managed }), 'claude-hooks');
    expect(hooks.detail).toContain(`${join(h.home, '.claude', 'settings.json')} (user)`);
    expect(hooks.detail).toContain(`${join(managed, 'managed-settings.json')} (managed)`);
    // Run from the home folder, the user's files are the project's too: read once, not twice.
    await installHookd({ ...common, agent: 'droid', scope: 'user', projectDir: h.home });
    const home = await doctor({ ...h, project: h.home });
    expect(check(home, 'droid-hooks').status).toBe('ok');
    expect(home.some((r) => r.id === 'droid-settings-project')).toBe(false);
  });
});

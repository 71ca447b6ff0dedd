import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { check, doctor, makeDoctorHome, wiredSettings, writeJson, type DoctorHome } from './doctor-env.js';

let h: DoctorHome;
beforeEach(() => {
  h = makeDoctorHome();
});
afterEach(() => h.cleanup());

const droidUser = () => join(h.home, '.factory', 'settings.json');
const droidProject = () => join(h.project, '.factory', 'settings.json');

describe('doctor: agent settings', () => {
  it('passes a clean home: nothing fails, the missing files are skipped', async () => {
    const results = await doctor(h);
    expect(results.filter((r) => r.status === 'fail')).toEqual([]);
    expect(check(results, 'droid-settings-user')).toMatchObject({ status: 'skip' });
    expect(check(results, 'droid-settings-user').detail).toContain(droidUser());
    expect(check(results, 'droid-hooks')).toMatchObject({
      status: 'warn',
      fix: 'run `hookd install --agent droid`',
    });
    expect(check(results, 'claude-hooks').status).toBe('skip');
  });

  it('reports a broken Droid entry with its file, path, value and fix', async () => {
    const settings = wiredSettings(`${h.hookdBin} hook`);
    (settings.hooks as Record<string, unknown>).PreToolUse = [
      { matcher: 5, hooks: [{ type: 'command', command: 'x' }] },
    ];
    writeJson(droidUser(), settings);
    const results = await doctor(h);
    const file = check(results, 'droid-settings-user');
    expect(file.status).toBe('fail');
    expect(file.detail).toContain(
      `${droidUser()}: hooks.PreToolUse[0].matcher: error: matcher must be a string`,
    );
    expect(file.detail).toContain('(value: 5)');
    expect(file.fix).toContain(droidUser());
    // Droid ignores every hook of that file, so hookd counts as not wired at all.
    const wiring = check(results, 'droid-hooks');
    expect(wiring.status).toBe('warn');
    expect(wiring.detail).toContain('rejects');
  });

  it('reports a settings file that is not JSON, with line and column', async () => {
    writeJson(join(h.project, '.claude', 'settings.json'), '{"hooks": {,}');
    const results = await doctor(h);
    const file = check(results, 'claude-settings-project');
    expect(file.status).toBe('fail');
    expect(file.detail).toMatch(/is not valid JSON at line 1, column \d+/);
    expect(file.fix).toContain('Fix the JSON');
  });

  it('is ok when every event is wired to a hookd that exists, across user and project files', async () => {
    writeJson(
      droidUser(),
      wiredSettings(`${h.hookdBin} hook`, ['SessionStart', 'Stop', 'PreToolUse', 'PostToolUse']),
    );
    writeJson(
      droidProject(),
      wiredSettings(`${h.hookdBin} hook`, [
        'UserPromptSubmit',
        'Notification',
        'SubagentStop',
        'PreCompact',
        'SessionEnd',
      ]),
    );
    const results = await doctor(h);
    expect(check(results, 'droid-settings-user').status).toBe('ok');
    expect(check(results, 'droid-settings-project').status).toBe('ok');
    const wiring = check(results, 'droid-hooks');
    expect(wiring.status).toBe('ok');
    expect(wiring.detail).toContain('9 events wired');
  });

  it('names the events the config needs that are not wired (check droid-wiring)', async () => {
    writeJson(droidUser(), wiredSettings(`${h.hookdBin} hook`, ['Stop', 'Notification']));
    const results = await doctor(h);
    expect(check(results, 'droid-hooks').status).toBe('ok');
    const wiring = check(results, 'droid-wiring');
    expect(wiring.status).toBe('warn');
    expect(wiring.detail).toContain(
      'the config needs events the agent does not send hookd: SessionStart, UserPromptSubmit, PostToolUse, SubagentStop, SessionEnd',
    );
    expect(wiring.fix).toBe('run `hookd install --agent droid --transport node`');
  });

  it('fails when the hookd program in the settings no longer exists', async () => {
    writeJson(join(h.home, '.claude', 'settings.json'), wiredSettings('/gone/dist/hookd.cjs hook'));
    const wiring = check(await doctor(h), 'claude-hooks');
    expect(wiring.status).toBe('fail');
    expect(wiring.detail).toContain('hookd command broken: /gone/dist/hookd.cjs does not exist');
    expect(wiring.detail).toContain('hooks.Stop[0].hooks[0]');
    expect(wiring.fix).toContain('hookd install --agent claude');
  });

  it('re-checks the node an install wrote: gone, or not executable, is a failure with the fix', async () => {
    writeJson(droidUser(), wiredSettings(`${join(h.root, 'nvm', 'v20', 'bin', 'node')} ${h.hookdBin} hook`));
    const gone = check(await doctor(h), 'droid-hooks');
    expect(gone.status).toBe('fail');
    expect(gone.detail).toContain(
      `the node it runs with, ${join(h.root, 'nvm', 'v20', 'bin', 'node')}, does not exist`,
    );
    expect(gone.fix).toContain('hookd install --agent droid');
    const plain = join(h.root, 'node');
    writeJson(plain, {});
    writeJson(droidUser(), wiredSettings(`${plain} ${h.hookdBin} hook`));
    expect(check(await doctor(h), 'droid-hooks').detail).toContain(
      `the node it runs with, ${plain}, is not executable`,
    );
  });

  it('warns about an installed command that needs node on the agent PATH', async () => {
    const script = join(h.bin, 'hookd.cjs');
    writeFileSync(script, '#!/usr/bin/env node\n', { mode: 0o755 });
    writeJson(droidUser(), wiredSettings(`${script} hook`));
    const wiring = check(await doctor(h), 'droid-hooks');
    expect(wiring.status).toBe('warn');
    expect(wiring.detail).toContain("starts node through the agent's PATH");
  });

  it('finds a bare `hookd` on PATH and reports one that is not', async () => {
    writeJson(droidUser(), wiredSettings('hookd hook'));
    expect(check(await doctor(h), 'droid-hooks').status).toBe('ok');
    const noHookd = await doctor(h, { env: { ...h.env, PATH: '/usr/bin:/bin' } });
    expect(check(noHookd, 'droid-hooks').detail).toContain('hookd is not on PATH');
  });

  it('fails on hooksDisabled inside the hooks object (not beside it), and warns about entries that never run', async () => {
    // Droid 0.225.2 reads hooksDisabled from the hooks object; a top-level key does nothing.
    writeJson(droidUser(), { ...wiredSettings(`${h.hookdBin} hook`), hooksDisabled: true });
    expect(check(await doctor(h), 'droid-hooks-switch').status).toBe('ok');
    const off = wiredSettings(`${h.hookdBin} hook`);
    writeJson(droidUser(), { hooks: { ...off.hooks, hooksDisabled: true } });
    expect(check(await doctor(h), 'droid-hooks-switch')).toMatchObject({
      status: 'fail',
      fix: `remove "hooksDisabled": true from ${droidUser()} (it is inside "hooks")`,
    });
    expect(check(await doctor(h), 'droid-settings-user').status).toBe('ok');
    const settings = wiredSettings(`${h.hookdBin} hook`);
    (settings.hooks as Record<string, unknown>).PostToolUse = [
      { matcher: '(', hooks: [{ type: 'command', command: `${h.hookdBin} hook` }] },
    ];
    writeJson(droidUser(), settings);
    const results = await doctor(h);
    expect(check(results, 'droid-settings-user').status).toBe('warn');
    expect(check(results, 'droid-settings-user').detail).toContain('hooks.PostToolUse[0].matcher');
    expect(check(results, 'droid-hooks').detail).toContain('only runs for matcher "("');
  });
});

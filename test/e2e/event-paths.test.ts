import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CheckResult } from '../../src/doctor/types.js';
import type { Explanation } from '../../src/explain/explain-event.js';
import { HOOKD_BIN, REPO_DIR } from '../helpers/fixtures.js';
import { runHookd } from '../helpers/run-hookd.js';
import { makeDoctorHome, writeJson, type DoctorHome } from '../integration/doctor/doctor-env.js';

// `hookd status`, `hookd explain <event>` and `hookd doctor` say which path each event takes (fast /
// node / http / not wired) and why, from the agent's settings files and the config (built CLI).

let h: DoctorHome;
let env: Record<string, string>;

beforeAll(() => {
  if (!existsSync(HOOKD_BIN))
    spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: REPO_DIR, stdio: 'inherit' });
});
beforeEach(() => {
  h = makeDoctorHome();
  env = Object.fromEntries(Object.entries(h.env).filter((e): e is [string, string] => e[1] !== undefined));
  writeJson(env.HOOKD_CONFIG!, {
    notify: { rules: [{ on: 'Stop', channels: ['desktop'] }] },
    ledger: { enabled: false },
  });
});
afterEach(() => h.cleanup());

const hookd = (...args: string[]) => runHookd(args, { env, cwd: h.project });

describe('which path each event takes (built CLI)', () => {
  it('status, explain and doctor agree after install, and a guard added later is already wired', async () => {
    const installed = await hookd('install');
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('fast:      SessionStart, UserPromptSubmit, PreToolUse');

    const status = JSON.parse((await hookd('status', '--json')).stdout) as {
      paths: Record<string, { event: string; path: string; reasons: string[] }[]>;
    };
    expect(status.paths.droid).toHaveLength(9);
    expect(status.paths.droid).toContainEqual(
      expect.objectContaining({ event: 'Stop', path: 'fast', reasons: ['rules'] }),
    );
    expect(status.paths.claude).toBeUndefined();
    expect((await hookd('status')).stdout).toContain('Droid paths: fast: SessionStart (not needed)');

    const stop = JSON.parse((await hookd('explain', 'Stop', '--json')).stdout) as Explanation;
    expect(stop.paths).toEqual([
      expect.objectContaining({ agent: 'droid', path: 'fast', reasons: ['rules'] }),
    ]);
    expect((await hookd('explain', 'Stop')).stdout).toContain('path (droid): fast (needed: rules)');

    // A guard added to the config: PreToolUse is already sent to hookd.
    writeJson(env.HOOKD_CONFIG!, {
      notify: { rules: [{ on: 'Stop', channels: ['desktop'] }] },
      ledger: { enabled: false },
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'true' }] }] },
    });
    expect((await hookd('explain', 'PreToolUse')).stdout).toContain('path (droid): fast (needed: hooks)');
    expect((await hookd('status')).stdout).not.toContain('not wired');
    const doctor = JSON.parse((await hookd('doctor', '--json')).stdout) as CheckResult[];
    expect(doctor.find((c) => c.id === 'droid-wiring')).toMatchObject({ status: 'ok' });
  });

  it('after an install narrowed with --events, a config edit that needs another event is named everywhere', async () => {
    expect((await hookd('install', '--events', 'Stop')).code).toBe(0);
    writeJson(env.HOOKD_CONFIG!, {
      notify: { rules: [{ on: 'Stop', channels: ['desktop'] }] },
      ledger: { enabled: false },
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'true' }] }] },
    });
    const pre = await hookd('explain', 'PreToolUse');
    expect(pre.stdout).toContain(
      'path (droid): not wired: the agent does not send PreToolUse to hookd, though the config needs it (needed: hooks); run hookd install --agent droid',
    );
    expect((await hookd('status')).stdout).toContain(
      'not wired, but the config needs: PreToolUse (hookd install --agent droid)',
    );
    const validate = await hookd('validate');
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain(
      'note: Droid does not send hookd PreToolUse, which this config needs: run `hookd install --agent droid`',
    );
    expect(JSON.parse((await hookd('validate', '--json')).stdout).unwired).toEqual({ droid: ['PreToolUse'] });
    const doctor = JSON.parse((await hookd('doctor', '--json')).stdout) as CheckResult[];
    const wiring = doctor.find((c) => c.id === 'droid-wiring')!;
    expect(wiring).toMatchObject({ status: 'warn', fix: 'run `hookd install --agent droid`' });
    expect(wiring.detail).toContain('PreToolUse: not wired (your hooks)');
  });

  it('a hookd entry a hooks.json shadows is not wired, and status and explain say which file shadows it', async () => {
    expect((await hookd('install')).code).toBe(0);
    const hooksJson = `${h.home}/.factory/hooks.json`;
    writeJson(hooksJson, {
      PreToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: 'lint' }] }],
    });
    writeJson(env.HOOKD_CONFIG!, {
      notify: { rules: [{ on: 'Stop', channels: ['desktop'] }] },
      ledger: { enabled: false },
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'true' }] }] },
    });
    const explained = JSON.parse((await hookd('explain', 'PreToolUse', '--json')).stdout) as Explanation;
    expect(explained.paths).toEqual([
      expect.objectContaining({ agent: 'droid', path: 'not wired', shadowedBy: hooksJson }),
    ]);
    expect((await hookd('explain', 'PreToolUse')).stdout).toContain(
      `never runs: ${hooksJson} names PreToolUse`,
    );
    expect((await hookd('status')).stdout).toContain(`names it`);
    // The fix moves hookd's entry into hooks.json.
    expect((await hookd('install')).code).toBe(0);
    const after = JSON.parse((await hookd('explain', 'PreToolUse', '--json')).stdout) as Explanation;
    expect(after.paths).toEqual([expect.objectContaining({ path: 'fast', file: hooksJson })]);
  });
});

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
  it('status, explain and doctor agree after install, and after a config edit that needs a new event', async () => {
    const installed = await hookd('install');
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('fast:      Stop');

    const status = JSON.parse((await hookd('status', '--json')).stdout) as {
      paths: Record<string, { event: string; path: string; reasons: string[] }[]>;
    };
    expect(status.paths.droid).toEqual([
      expect.objectContaining({ event: 'Stop', path: 'fast', reasons: ['rules'] }),
    ]);
    expect(status.paths.claude).toBeUndefined();
    expect((await hookd('status')).stdout).toContain('Droid paths: fast: Stop');

    const stop = JSON.parse((await hookd('explain', 'Stop', '--json')).stdout) as Explanation;
    expect(stop.paths).toEqual([
      expect.objectContaining({ agent: 'droid', path: 'fast', reasons: ['rules'] }),
    ]);
    expect((await hookd('explain', 'Stop')).stdout).toContain('path (droid): fast (needed: rules)');

    // The config now needs PreToolUse (a guard): explain, status and doctor say it is not wired.
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
});

import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runDoctor } from '../../../src/doctor/run-doctor.js';
import { DROID_EVENTS } from '../../../src/events/names.js';
import type { CheckResult, DoctorOptions } from '../../../src/doctor/types.js';

/**
 * A temp HOME with every hookd and agent path inside it, a PATH holding a fake notify-send and a
 * D-Bus address, so a run with nothing configured has no failures. Nothing from the real environment
 * leaks in (no API keys, no Slack variables).
 */
export interface DoctorHome {
  root: string;
  home: string;
  project: string;
  bin: string;
  env: Record<string, string | undefined>;
  /** An executable file named hookd, for hook commands whose program must exist. */
  hookdBin: string;
  cleanup: () => void;
}

export function makeDoctorHome(): DoctorHome {
  const root = mkdtempSync(join(tmpdir(), 'hkd-'));
  const home = join(root, 'home');
  const project = join(root, 'project');
  const bin = join(root, 'bin');
  for (const dir of [home, project, bin]) mkdirSync(dir, { recursive: true });
  writeExecutable(join(bin, 'notify-send'), '#!/bin/sh\nexit 0\n');
  const hookdBin = join(bin, 'hookd');
  writeExecutable(hookdBin, '#!/bin/sh\nexit 0\n');
  const env = {
    PATH: `${bin}:/usr/bin:/bin`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_RUNTIME_DIR: join(root, 'run'),
    HOOKD_CONFIG: join(root, 'config.json'),
    DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(root, 'bus')}`,
  };
  return {
    root,
    home,
    project,
    bin,
    env,
    hookdBin,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export function writeExecutable(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  chmodSync(file, 0o755);
}

export function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
}

/** A settings object wiring `command` for the given events, as `hookd install` writes it. */
export function wiredSettings(command: string, events: readonly string[] = DROID_EVENTS) {
  return {
    hooks: Object.fromEntries(
      events.map((e) => [e, [{ matcher: '', hooks: [{ type: 'command', command, timeout: 60 }] }]]),
    ),
  };
}

export async function doctor(h: DoctorHome, extra: Partial<DoctorOptions> = {}): Promise<CheckResult[]> {
  return runDoctor({ env: h.env, projectDir: h.project, timeoutMs: 2000, ...extra });
}

export function check(results: readonly CheckResult[], id: string): CheckResult {
  const found = results.find((r) => r.id === id);
  if (!found) throw new Error(`no check ${id} in ${results.map((r) => r.id).join(', ')}`);
  return found;
}

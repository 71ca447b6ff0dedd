import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/schemas/schema.js';
import { FAST_CLIENT_VERSIONS, FAST_PROTOCOL } from '../../../src/link/wire.js';
import { installHookd } from '../../../src/install/install.js';
import type { Agent } from '../../../src/install/agents.js';
import { ROOT } from '../daemon/process-helpers.js';
import { check, doctor, makeDoctorHome, writeJson, type DoctorHome } from './doctor-env.js';

// `hookd doctor` compares the agent's wiring with what the config needs (check <agent>-wiring): missing
// events warn with the install command that fixes them, extra ones only cost time, and every event's
// path (fast / node / not wired) is said with the reason; entries older versions wrote are named.

let h: DoctorHome;
let hookd: string;
beforeEach(() => {
  h = makeDoctorHome();
  // The package layout install expects: dist/hookd.cjs, and the real native client (npm run build).
  hookd = join(h.root, 'pkg', 'dist', 'hookd.cjs');
  mkdirSync(join(h.root, 'pkg', 'dist'), { recursive: true });
  writeFileSync(hookd, '#!/usr/bin/env node\n', { mode: 0o755 });
  copyFileSync(join(ROOT, 'dist', 'hookd-client'), nativeClient());
  chmodSync(nativeClient(), 0o755);
});
const nativeClient = () => join(h.root, 'pkg', 'dist', 'hookd-client');
afterEach(() => h.cleanup());

function setConfig(config: Record<string, unknown>) {
  writeJson(h.env.HOOKD_CONFIG!, config);
  return configSchema.parse(config);
}

function install(agent: Agent, config: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return installHookd({
    agent,
    scope: 'user',
    env: h.env as Record<string, string>,
    hookdPath: hookd,
    transport: 'fast',
    config: configSchema.parse(config),
    ...extra,
  });
}

const STOP_ONLY = { notify: { rules: [{ on: 'Stop', channels: ['desktop'] }] }, ledger: { enabled: false } };

describe('doctor: the wiring matches the config', () => {
  it('is ok after install, and says each event’s path and why', async () => {
    setConfig(STOP_ONLY);
    await install('droid', STOP_ONLY);
    const wiring = check(await doctor(h), 'droid-wiring');
    expect(wiring.status).toBe('ok');
    expect(wiring.detail).toContain('Stop: fast (notification rules)');
    expect(wiring.detail).not.toContain('daemon.fastListener is off');
    // With the listener off, the fast client works but takes the Node path: said, not warned.
    setConfig({ ...STOP_ONLY, daemon: { fastListener: false } });
    const off = check(await doctor(h), 'droid-wiring');
    expect(off.status).toBe('ok');
    expect(off.detail).toContain('daemon.fastListener is off');
  });

  it('says which fast client the settings run, and flags a native client that is gone', async () => {
    setConfig(STOP_ONLY);
    const native = nativeClient();
    expect((await install('droid', STOP_ONLY)).client).toBe('native');
    const wiring = check(await doctor(h), 'droid-wiring');
    expect(wiring.detail).toContain('Stop: fast (notification rules)');
    expect(wiring.detail).toContain('fast client: native');
    rmSync(native);
    expect(JSON.stringify(await doctor(h))).toContain(`${native} does not exist`);
  });

  it('probes the native client the settings run: a version the daemon does not serve, a binary that does not run', async () => {
    setConfig(STOP_ONLY);
    const native = nativeClient();
    expect((await install('droid', STOP_ONLY)).client).toBe('native');
    expect(check(await doctor(h), 'droid-wiring').status).toBe('ok');
    // An older client left in place (a hookd upgraded without a rebuild): it runs, the daemon denies it.
    const { min, max } = FAST_CLIENT_VERSIONS;
    writeFileSync(native, `#!/bin/sh\necho "hookd-client ${min - 1} protocol ${FAST_PROTOCOL}"\n`, {
      mode: 0o755,
    });
    const stale = check(await doctor(h), 'droid-wiring');
    expect(stale.status).toBe('warn');
    expect(stale.detail).toContain(
      `native fast client: ${native} is client ${min - 1} protocol ${FAST_PROTOCOL}; this hookd serves ${min}-${max}, protocol ${FAST_PROTOCOL}`,
    );
    expect(stale.detail).toContain('every event takes the Node path');
    expect(stale.fix).toBe('run `hookd install --agent droid --transport fast`');
    // One that prints nothing a client would: not a client of this hookd.
    writeFileSync(native, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    expect(check(await doctor(h), 'droid-wiring').detail).toContain(`${native} does not run here (exit 0)`);
    // A file that cannot be run at all: every event wired to it fails before hookd runs.
    writeFileSync(native, 'not a program\n');
    chmodSync(native, 0o644);
    const broken = check(await doctor(h), 'droid-wiring');
    expect(broken.status).toBe('fail');
    expect(broken.detail).toContain(`native fast client: ${native} does not run here`);
    expect(broken.detail).toContain('hookd does not run');
    expect(broken.fix).toBe('run `hookd install --agent droid --transport fast`');
    // The fix: install probes it again and wires the Node path instead; doctor is content.
    const rewired = await install('droid', STOP_ONLY);
    expect(rewired).toMatchObject({ transport: 'node' });
    const fixed = check(await doctor(h), 'droid-wiring');
    expect(fixed.status).toBe('ok');
    expect(fixed.detail).toContain('Stop: node (notification rules)');
  });

  it('the default install already sends every event a guard can use: a guard added later needs nothing', async () => {
    setConfig(STOP_ONLY);
    await install('droid', STOP_ONLY);
    const guarded = {
      ...STOP_ONLY,
      hooks: { PreToolUse: [{ matcher: 'Execute', hooks: [{ type: 'command', command: 'guard' }] }] },
    };
    setConfig(guarded);
    const wiring = check(await doctor(h), 'droid-wiring');
    expect(wiring.status).toBe('ok');
    expect(wiring.detail).toContain('PreToolUse: fast (your hooks)');
  });

  it('warns when a config edit needs an event left out with --events, with the fix; ok again after it', async () => {
    setConfig(STOP_ONLY);
    await install('droid', STOP_ONLY, { events: ['Stop'] });
    const edited = {
      ...STOP_ONLY,
      hooks: { PreToolUse: [{ matcher: 'Execute', hooks: [{ type: 'command', command: 'guard' }] }] },
    };
    setConfig(edited);
    const stale = check(await doctor(h), 'droid-wiring');
    expect(stale.status).toBe('warn');
    expect(stale.detail).toContain('the config needs events the agent does not send hookd: PreToolUse');
    expect(stale.detail).toContain('PreToolUse: not wired (your hooks)');
    expect(stale.fix).toBe('run `hookd install --agent droid`');

    await install('droid', edited);
    const fixed = check(await doctor(h), 'droid-wiring');
    expect(fixed.status).toBe('ok');
    expect(fixed.detail).toContain('PreToolUse: fast (your hooks)');
  });

  it('a tool matcher an older install wrote that leaves out a tool the config now needs is missing too', async () => {
    const config = {
      ...STOP_ONLY,
      hooks: { PreToolUse: [{ matcher: 'Execute|Edit', hooks: [{ type: 'command', command: 'guard' }] }] },
    };
    setConfig(config);
    await install('droid', config);
    // As an older version wrote it: the config's tool names as the matcher.
    const file = join(h.home, '.factory', 'settings.json');
    const text = readFileSync(file, 'utf8');
    const data = JSON.parse(text) as { hooks: Record<string, { matcher: string }[]> };
    data.hooks.PreToolUse![0]!.matcher = 'Execute';
    writeJson(file, data);
    const narrow = check(await doctor(h), 'droid-wiring');
    expect(narrow.status).toBe('warn');
    expect(narrow.detail).toContain('PreToolUse (matcher "Execute" leaves out Execute|Edit)');
    expect(narrow.fix).toBe('run `hookd install --agent droid`');
    await install('droid', config);
    expect(check(await doctor(h), 'droid-wiring').status).toBe('ok');
  });

  it('says what events with nothing to do cost on the Node path only (ok, not a warning)', async () => {
    setConfig(STOP_ONLY);
    await install('droid', STOP_ONLY);
    expect(check(await doctor(h), 'droid-wiring').detail).not.toContain('still start Node');
    await install('droid', STOP_ONLY, { transport: 'node' });
    const wiring = check(await doctor(h), 'droid-wiring');
    expect(wiring.status).toBe('ok');
    expect(wiring.detail).toContain(
      'through the Node path, events with nothing in the config today still start Node (about 80 ms each): SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Notification, SubagentStop, PreCompact, SessionEnd',
    );
  });

  it('names entries older versions wrote (the bash client, http hooks); the fix it prints makes the warning go', async () => {
    const config = {
      notify: { rules: [{ on: ['Stop', 'SessionEnd'], channels: ['desktop'] }] },
      ledger: { enabled: false },
    };
    setConfig(config);
    const file = join(h.home, '.claude', 'settings.json');
    const old = (hook: Record<string, unknown>) => [{ matcher: '', hooks: [hook] }];
    writeJson(file, {
      hooks: {
        Stop: old({
          type: 'command',
          command: `HOOKD_NODE=${process.execPath} /bin/bash --posix ${join(h.root, 'pkg', 'bin', 'hookd-client.bash')} --agent claude`,
          timeout: 60,
        }),
        SessionEnd: old({
          type: 'http',
          url: 'http://127.0.0.1:47615/hookd/v1/claude',
          headers: { Authorization: `Bearer ${'a'.repeat(64)}` },
          timeout: 5,
        }),
      },
    });
    const stale = check(await doctor(h), 'claude-wiring');
    expect(stale.status).toBe('warn');
    expect(stale.detail).toContain(`http hooks in ${file}: hookd no longer serves them`);
    expect(stale.detail).toContain(`the retired bash fast client in ${file}`);
    expect(stale.fix).toBe('run `hookd install --agent claude`');
    // The fix as printed (the CLI's default transport is fast).
    await install('claude', config);
    const fixed = check(await doctor(h), 'claude-wiring');
    expect(fixed.status).toBe('ok');
    expect(fixed.detail).toContain('Stop: fast (notification rules)');
    expect(fixed.detail).toContain('SessionEnd: fast (notification rules)');
  });
});

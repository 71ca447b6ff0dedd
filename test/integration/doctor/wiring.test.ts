import { chmodSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/schema.js';
import { FAST_CLIENT_VERSIONS, FAST_PROTOCOL } from '../../../src/daemon/fast-server.js';
import { rotateHttpToken } from '../../../src/daemon/http-credential.js';
import { installHookd } from '../../../src/install/install.js';
import type { Agent } from '../../../src/install/agents.js';
import { ROOT } from '../daemon/process-helpers.js';
import { check, doctor, makeDoctorHome, writeJson, type DoctorHome } from './doctor-env.js';

// `hookd doctor` compares the agent's wiring with what the config needs (check <agent>-wiring): missing
// events warn with the install command that fixes them, extra ones only cost time, and every event's
// path (fast / node / http / not wired) is said with the reason.

let h: DoctorHome;
let hookd: string;
beforeEach(() => {
  h = makeDoctorHome();
  // The package layout install expects: dist/hookd.cjs and bin/hookd-client.bash.
  hookd = join(h.root, 'pkg', 'dist', 'hookd.cjs');
  mkdirSync(join(h.root, 'pkg', 'dist'), { recursive: true });
  mkdirSync(join(h.root, 'pkg', 'bin'), { recursive: true });
  writeFileSync(hookd, '#!/usr/bin/env node\n', { mode: 0o755 });
  writeFileSync(join(h.root, 'pkg', 'bin', 'hookd-client.bash'), '#!/bin/bash\n', { mode: 0o755 });
});
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
    bashPath: '/bin/bash',
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

  it.runIf(process.env.HOOKD_NO_NATIVE_CLIENT !== '1')(
    'says which fast client the settings run, native or bash, and flags a native client that is gone',
    async () => {
      setConfig(STOP_ONLY);
      await install('droid', STOP_ONLY);
      expect(check(await doctor(h), 'droid-wiring').detail).toContain('fast client: bash');
      // The real native client (npm run build) in the package: install wires it, doctor says so.
      const native = join(h.root, 'pkg', 'dist', 'hookd-client');
      copyFileSync(join(ROOT, 'dist', 'hookd-client'), native);
      chmodSync(native, 0o755);
      expect((await install('droid', STOP_ONLY)).client).toBe('native');
      const wiring = check(await doctor(h), 'droid-wiring');
      expect(wiring.detail).toContain('Stop: fast (notification rules)');
      expect(wiring.detail).toContain('fast client: native');
      rmSync(native);
      expect(JSON.stringify(await doctor(h))).toContain(`${native} does not exist`);
    },
  );

  it.runIf(process.env.HOOKD_NO_NATIVE_CLIENT !== '1')(
    'probes the native client the settings run: a version the daemon does not serve, a binary that does not run',
    async () => {
      setConfig(STOP_ONLY);
      const native = join(h.root, 'pkg', 'dist', 'hookd-client');
      copyFileSync(join(ROOT, 'dist', 'hookd-client'), native);
      chmodSync(native, 0o755);
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
      // The fix: install probes it again and wires the bash client instead; doctor is content.
      expect((await install('droid', STOP_ONLY)).client).toBe('bash');
      const fixed = check(await doctor(h), 'droid-wiring');
      expect(fixed.status).toBe('ok');
      expect(fixed.detail).toContain('fast client: bash');
    },
  );

  it('warns when a config edit needs an event the agent does not send, with the fix; ok again after install', async () => {
    setConfig(STOP_ONLY);
    await install('droid', STOP_ONLY);
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
    expect(fixed.detail).toContain('PreToolUse: fast [Execute] (your hooks)');

    // A matcher that leaves out a tool the config now needs is missing too.
    setConfig({
      ...STOP_ONLY,
      hooks: { PreToolUse: [{ matcher: 'Execute|Edit', hooks: [{ type: 'command', command: 'guard' }] }] },
    });
    const narrow = check(await doctor(h), 'droid-wiring');
    expect(narrow.status).toBe('warn');
    expect(narrow.detail).toContain('PreToolUse (matcher "Execute" leaves out Execute|Edit)');
  });

  it('says extra events only cost time (ok, not a warning)', async () => {
    setConfig(STOP_ONLY);
    await install('droid', STOP_ONLY, { allEvents: true });
    const wiring = check(await doctor(h), 'droid-wiring');
    expect(wiring.status).toBe('ok');
    expect(wiring.detail).toContain(
      'wired but not needed: SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Notification, SubagentStop, PreCompact, SessionEnd (each costs a hookd run per event; `hookd install --agent droid` removes them)',
    );
  });

  it('http (Claude Code): says what it costs, and warns about a rotated token, a readable file, the listener off', async () => {
    const config = {
      daemon: { httpHooks: { enabled: true, port: 47999 } },
      notify: { rules: [{ on: ['Stop', 'SessionStart'], channels: ['desktop'] }] },
      ledger: { enabled: false },
    };
    setConfig(config);
    await install('claude', config, { transport: 'http' });
    const ok = check(await doctor(h), 'claude-wiring');
    expect(ok.status).toBe('ok');
    expect(ok.detail).toContain('Stop: http (notification rules)');
    expect(ok.detail).toContain('SessionStart: fast (notification rules)');
    expect(ok.detail).toMatch(
      /while the daemon is down they are lost, not spooled, and the daemon does not run as a service/,
    );

    expect(ok.detail).toContain(
      `with hookd's token, written as is in ${join(h.home, '.claude', 'settings.json')}`,
    );
    rotateHttpToken(h.env as Record<string, string>);
    const rotated = check(await doctor(h), 'claude-wiring');
    expect(rotated.status).toBe('warn');
    expect(rotated.detail).toContain("the token in the settings is not the daemon's");
    expect(rotated.fix).toBe('run `hookd install --agent claude --transport http`');

    await install('claude', config, { transport: 'http' });
    chmodSync(join(h.home, '.claude', 'settings.json'), 0o644);
    expect(check(await doctor(h), 'claude-wiring').detail).toMatch(
      /holds hookd's token and others can read it/,
    );
    chmodSync(join(h.home, '.claude', 'settings.json'), 0o600);

    setConfig({ ...config, daemon: { httpHooks: { enabled: false, port: 47999 } } });
    expect(check(await doctor(h), 'claude-wiring').detail).toContain('daemon.httpHooks.enabled is off');
  });
});

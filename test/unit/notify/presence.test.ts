import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  parseGnomeIdletime,
  parseIoreg,
  parseLoginctlDisplay,
  parseLoginctlSession,
  parseXprintidle,
} from '../../../src/notify/presence-sources.js';
import {
  createPresenceProbe,
  describeDetection,
  describeReading,
  presenceState,
  presenceStatusSchema,
} from '../../../src/notify/presence.js';
import type { ProbeOutput, ProbeRun } from '../../../src/process/probe.js';
import { notifySettings } from '../../../src/config/schemas/notify-schema.js';

// Outputs as the tools print them (recorded; ioreg's from a MacBook, trimmed to the IOHIDSystem entry).
const IOREG = `+-o IOHIDSystem  <class IOHIDSystem, id 0x100000475, registered, matched, active, busy 0 (0 ms), retain 29>
  | {
  |   "IOClass" = "IOHIDSystem"
  |   "HIDIdleTime" = 4520612083
  |   "HIDScrollCountMinDeltaToStart" = 30
  |   "IOProviderClass" = "IOResources"
  | }
  |
  +-o IOHIDUserClient  <class IOHIDUserClient, id 0x1000008a2, !registered, !matched, active, busy 0, retain 7>
`;
const LOGINCTL_ACTIVE = 'IdleHint=no\nIdleSinceHint=1718000000000000\n';
const LOGINCTL_IDLE = 'IdleHint=yes\nIdleSinceHint=1718000000000000\n';

describe('parsing each source', () => {
  it('xprintidle: one number of ms', () => {
    expect(parseXprintidle('12345\n')).toEqual({ ok: true, sample: { idleMs: 12345 } });
    expect(parseXprintidle('0')).toEqual({ ok: true, sample: { idleMs: 0 } });
    expect(parseXprintidle("couldn't open display\n")).toMatchObject({ ok: false });
    expect(parseXprintidle('')).toMatchObject({ ok: false });
    expect(parseXprintidle('-5\n')).toMatchObject({ ok: false });
  });

  it('ioreg: HIDIdleTime in ns, the smallest of several entries', () => {
    expect(parseIoreg(IOREG)).toEqual({ ok: true, sample: { idleMs: 4520 } });
    const two = `${IOREG}  |   "HIDIdleTime" = 1000000\n`;
    expect(parseIoreg(two)).toEqual({ ok: true, sample: { idleMs: 1 } });
    // Days of idle time in ns stay exact (beyond 2^53 ns would lose precision as a Number).
    expect(parseIoreg('"HIDIdleTime" = 9007199254740993123')).toEqual({
      ok: true,
      sample: { idleMs: 9007199254740 },
    });
    expect(parseIoreg('+-o IOHIDSystem\n  "IOClass" = "IOHIDSystem"\n')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('no HIDIdleTime'),
    });
  });

  it('gdbus (GNOME Mutter IdleMonitor): (uint64 <ms>,)', () => {
    expect(parseGnomeIdletime('(uint64 4521,)\n')).toEqual({ ok: true, sample: { idleMs: 4521 } });
    expect(
      parseGnomeIdletime(
        'Error: GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown: The name is not activatable\n',
      ),
    ).toMatchObject({ ok: false });
  });

  it('loginctl: the idle hint is the verdict, the idle time is known while idle', () => {
    const now = 1_718_000_000_000 + 90_000;
    expect(parseLoginctlSession(LOGINCTL_ACTIVE, now)).toEqual({ ok: true, sample: { idle: false } });
    expect(parseLoginctlSession(LOGINCTL_IDLE, now)).toEqual({
      ok: true,
      sample: { idle: true, idleMs: 90_000 },
    });
    expect(parseLoginctlSession('IdleHint=yes\nIdleSinceHint=0\n', now)).toEqual({
      ok: true,
      sample: { idle: true },
    });
    expect(parseLoginctlSession('Failed to get session: No such session\n', now)).toMatchObject({
      ok: false,
    });
    expect(parseLoginctlDisplay('Display=3\n')).toBe('3');
    expect(parseLoginctlDisplay('Display=\n')).toBeUndefined();
    // Never an option-like or odd id passed on to loginctl.
    expect(parseLoginctlDisplay('Display=--help\n')).toBeUndefined();
  });

  it('the threshold: idle from idleAfterMs on; logind says so itself', () => {
    expect(presenceState({ idleMs: 119_999 }, 120_000)).toBe('active');
    expect(presenceState({ idleMs: 120_000 }, 120_000)).toBe('idle');
    expect(presenceState({ idle: true, idleMs: 5 }, 120_000)).toBe('idle');
    expect(presenceState({ idle: false }, 120_000)).toBe('active');
  });
});

describe('createPresenceProbe', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  /** A PATH holding these names as executables (the injected run stands in for running them). */
  function pathWith(...names: string[]): string {
    const dir = mkdtempSync(join(tmpdir(), 'hkd-presence-'));
    dirs.push(dir);
    for (const name of names) {
      writeFileSync(join(dir, name), '#!/bin/sh\nexit 1\n');
      chmodSync(join(dir, name), 0o755);
    }
    return dir;
  }
  const ok = (stdout: string): ProbeOutput => ({ code: 0, stdout, stderr: '', timedOut: false });
  /** A run that answers per tool name and records each call. */
  function fakeRun(answer: (tool: string, args: readonly string[]) => ProbeOutput | 'hang') {
    const calls: { tool: string; args: readonly string[] }[] = [];
    const envs: Record<string, string | undefined>[] = [];
    const run: ProbeRun = (file, args, options) => {
      const tool = file.split('/').pop()!;
      calls.push({ tool, args });
      envs.push(options.env);
      const a = answer(tool, args);
      return a === 'hang' ? new Promise(() => {}) : Promise.resolve(a);
    };
    return { run, calls, envs };
  }

  it('auto on Linux: xprintidle with a DISPLAY, the threshold applied, cached for 2 s of the injected clock', async () => {
    let clock = 1_000_000;
    let idle = 5000;
    const { run, calls, envs } = fakeRun(() => ok(`${idle}\n`));
    const path = pathWith('xprintidle', 'gdbus', 'loginctl');
    const probe = createPresenceProbe({
      env: {
        PATH: path,
        DISPLAY: ':5',
        XAUTHORITY: '/x/auth',
        HOOKD_API_KEY: 'fk-secret',
        LANG: 'de_DE.UTF-8',
      },
      run,
      now: () => clock,
      thresholdMs: 10_000,
      source: 'auto',
      platform: 'linux',
    });
    expect(probe.source).toBe('auto');
    expect(await probe.read()).toEqual({ state: 'active', idleMs: 5000, source: 'xprintidle' });
    expect(probe.source).toBe('xprintidle');
    // Detection's trial reading is the first reading: one run so far.
    expect(calls).toHaveLength(1);
    // The probe sees where the display is, in the C locale, and none of the daemon's secrets.
    expect(envs[0]).toEqual({ PATH: path, DISPLAY: ':5', XAUTHORITY: '/x/auth', LC_ALL: 'C' });
    idle = 12_000;
    clock += 1999;
    expect((await probe.read()).state).toBe('active');
    expect(calls).toHaveLength(1);
    clock += 1;
    expect(await probe.read()).toEqual({ state: 'idle', idleMs: 12_000, source: 'xprintidle' });
    expect(calls).toHaveLength(2);
    expect(probe.status()).toMatchObject({
      setting: 'auto',
      idleAfterMs: 10_000,
      detection: { source: 'xprintidle', skipped: [] },
      last: { state: 'idle', idleMs: 12_000, at: clock },
    });
    expect(presenceStatusSchema.safeParse(probe.status()).success).toBe(true);
  });

  it('reads at once share one probe run', async () => {
    const { run, calls } = fakeRun(() => ok('7\n'));
    let clock = 0;
    const probe = createPresenceProbe({
      env: { PATH: pathWith('xprintidle'), DISPLAY: ':5' },
      run,
      now: () => clock,
      thresholdMs: 10,
      source: 'xprintidle',
      platform: 'linux',
    });
    await probe.detect();
    clock += 5000;
    const readings = await Promise.all([probe.read(), probe.read(), probe.read()]);
    expect(readings.map((r) => r.state)).toEqual(['active', 'active', 'active']);
    expect(calls).toHaveLength(2);
  });

  it('detection says why each source is not used, and never guesses', async () => {
    const { run, calls } = fakeRun((tool) =>
      tool === 'loginctl'
        ? { code: 1, stdout: '', stderr: 'System has not been booted with systemd.\n', timedOut: false }
        : ok(''),
    );
    const probe = createPresenceProbe({
      env: { PATH: pathWith('loginctl') },
      run,
      thresholdMs: 1000,
      source: 'auto',
      platform: 'linux',
      uid: 1000,
    });
    const reading = await probe.read();
    expect(reading).toMatchObject({ state: 'unknown', source: 'none' });
    const detection = await probe.detect();
    expect(detection.source).toBe('none');
    expect(detection.skipped).toEqual([
      { source: 'xprintidle', reason: 'no DISPLAY (the daemon does not run in an X11 session)' },
      { source: 'gnome', reason: 'gdbus not installed (it comes with GLib: libglib2.0-bin)' },
      {
        source: 'loginctl',
        reason:
          'XDG_SESSION_ID is unset and loginctl show-user exited with 1: System has not been booted with systemd.',
      },
    ]);
    expect(calls).toEqual([{ tool: 'loginctl', args: ['show-user', '1000', '-p', 'Display'] }]);
    expect(describeDetection(detection)).toMatch(
      /^none \(xprintidle: no DISPLAY .*; gnome: .*; loginctl: .*\)$/,
    );
    expect(reading.reason).toContain('xprintidle: no DISPLAY');
  });

  it('xprintidle with a DISPLAY but not installed says how to install it; under Wayland it is not used', async () => {
    const missing = createPresenceProbe({
      env: { PATH: pathWith(), DISPLAY: ':0' },
      run: fakeRun(() => ok('1')).run,
      thresholdMs: 1000,
      source: 'xprintidle',
      platform: 'linux',
    });
    expect((await missing.detect()).skipped).toEqual([
      {
        source: 'xprintidle',
        reason: expect.stringContaining('xprintidle not installed: apt install xprintidle'),
      },
    ]);
    const wayland = createPresenceProbe({
      env: { PATH: pathWith('xprintidle'), DISPLAY: ':0', WAYLAND_DISPLAY: 'wayland-0' },
      run: fakeRun(() => ok('1')).run,
      thresholdMs: 1000,
      source: 'xprintidle',
      platform: 'linux',
    });
    expect((await wayland.detect()).skipped[0]!.reason).toMatch(/Wayland session/);
  });

  it('GNOME: the Mutter IdleMonitor over the session bus, only when it answers', async () => {
    const { run, calls } = fakeRun((tool) => (tool === 'gdbus' ? ok('(uint64 300000,)\n') : ok('')));
    const probe = createPresenceProbe({
      env: {
        PATH: pathWith('gdbus'),
        WAYLAND_DISPLAY: 'wayland-0',
        DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x',
      },
      run,
      thresholdMs: 120_000,
      source: 'auto',
      platform: 'linux',
    });
    expect(await probe.read()).toEqual({ state: 'idle', idleMs: 300_000, source: 'gnome' });
    expect(calls[0]!.args).toContain('org.gnome.Mutter.IdleMonitor.GetIdletime');
    const absent = createPresenceProbe({
      env: { PATH: pathWith('gdbus'), DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x' },
      run: fakeRun(() => ({
        code: 1,
        stdout: '',
        stderr:
          'Error: GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown: The name org.gnome.Mutter.IdleMonitor was not provided\n',
        timedOut: false,
      })).run,
      thresholdMs: 1000,
      source: 'gnome',
      platform: 'linux',
    });
    expect((await absent.detect()).skipped[0]!.reason).toMatch(/ServiceUnknown/);
  });

  it('loginctl: $XDG_SESSION_ID, else the user’s graphical session; an odd id is never passed on', async () => {
    const clock = 1_718_000_000_000 + 300_000;
    const own = fakeRun(() => ok(LOGINCTL_IDLE));
    const probe = createPresenceProbe({
      env: { PATH: pathWith('loginctl'), XDG_SESSION_ID: 'c2' },
      run: own.run,
      now: () => clock,
      thresholdMs: 1_000_000,
      source: 'loginctl',
      platform: 'linux',
    });
    // logind's hint wins over idleAfterMs: the desktop applies its own idle delay.
    expect(await probe.read()).toEqual({ state: 'idle', idleMs: 300_000, source: 'loginctl' });
    expect(own.calls[0]!.args).toEqual(['show-session', 'c2', '-p', 'IdleHint', '-p', 'IdleSinceHint']);

    const graphical = fakeRun((_tool, args) =>
      args[0] === 'show-user' ? ok('Display=7\n') : ok(LOGINCTL_ACTIVE),
    );
    const viaUser = createPresenceProbe({
      env: { PATH: pathWith('loginctl'), XDG_SESSION_ID: '--help' },
      run: graphical.run,
      thresholdMs: 1000,
      source: 'loginctl',
      platform: 'linux',
      uid: 1000,
    });
    expect(await viaUser.read()).toEqual({ state: 'active', source: 'loginctl' });
    expect(graphical.calls.map((c) => c.args[1])).toEqual(['1000', '7']);
  });

  it('macOS: ioreg, and only ioreg, under auto', async () => {
    const { run, calls } = fakeRun(() => ok(IOREG));
    const probe = createPresenceProbe({
      env: { PATH: pathWith('ioreg', 'xprintidle'), DISPLAY: ':0' },
      run,
      thresholdMs: 4000,
      source: 'auto',
      platform: 'darwin',
    });
    expect(await probe.read()).toEqual({ state: 'idle', idleMs: 4520, source: 'macos' });
    expect(calls).toEqual([{ tool: 'ioreg', args: ['-c', 'IOHIDSystem', '-d', '4'] }]);
    const notMac = createPresenceProbe({ env: {}, thresholdMs: 1, source: 'macos', platform: 'linux' });
    expect((await notMac.detect()).skipped).toEqual([{ source: 'macos', reason: 'not macOS' }]);
  });

  it('a probe that hangs reads unknown after its deadline; off never runs anything', async () => {
    let hang = false;
    let clock = 0;
    const { run } = fakeRun(() => (hang ? 'hang' : ok('1\n')));
    const probe = createPresenceProbe({
      env: { PATH: pathWith('xprintidle'), DISPLAY: ':1' },
      run,
      now: () => clock,
      thresholdMs: 1000,
      source: 'auto',
      platform: 'linux',
      timeoutMs: 20,
    });
    expect((await probe.read()).state).toBe('active');
    hang = true;
    clock += 10_000;
    const reading = await probe.read();
    expect(reading).toEqual({
      state: 'unknown',
      source: 'xprintidle',
      reason: 'xprintidle did not answer within 20 ms',
    });
    expect(describeReading(reading)).toBe('unknown (xprintidle did not answer within 20 ms)');

    const off = fakeRun(() => ok('1'));
    const none = createPresenceProbe({ env: {}, run: off.run, thresholdMs: 1, source: 'off' });
    expect(await none.read()).toMatchObject({ state: 'unknown', source: 'off' });
    expect(off.calls).toHaveLength(0);
  });

  it('the config: notify.presence defaults to auto, away after 2 minutes', () => {
    expect(notifySettings(undefined).presence).toEqual({ source: 'auto', idleAfterMs: 120_000 });
    expect(() => notifySettings({ presence: { source: 'guess' } })).toThrow();
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkPresence } from '../../../src/doctor/checks/notify/check-presence.js';
import type { DaemonView } from '../../../src/doctor/checks/daemon/daemon-view.js';
import type { DaemonStats } from '../../../src/daemon/lifecycle/daemon.js';
import { notifySettings } from '../../../src/config/schemas/notify-schema.js';
import type { ProbeRun } from '../../../src/process/probe.js';

const down: DaemonView = {
  running: false,
  spooled: 0,
  pendingEvents: 0,
  outbox: { pending: 0, held: 0, dead: 0 },
};
const neverRun: ProbeRun = () => Promise.reject(new Error('no probe may run here'));

describe('hookd doctor: presence', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const emptyPath = () => {
    const dir = mkdtempSync(join(tmpdir(), 'hkd-presence-'));
    dirs.push(dir);
    return dir;
  };

  it('an X11 session without xprintidle: a warning that says what to install', async () => {
    const check = await checkPresence({
      env: { PATH: emptyPath(), DISPLAY: ':0' },
      platform: 'linux',
      notify: notifySettings({ presence: { source: 'xprintidle' } }),
      view: down,
      run: neverRun,
    });
    expect(check).toMatchObject({ id: 'presence', status: 'warn' });
    expect(check.detail).toContain('this shell (the daemon is not running): no idle source works');
    expect(check.detail).toContain('xprintidle: xprintidle not installed');
    expect(check.fix).toMatch(/^apt install xprintidle .*, or set notify\.presence\.source to "off"/);
  });

  it('off: skipped, nothing runs', async () => {
    const check = await checkPresence({
      env: { PATH: emptyPath(), DISPLAY: ':0' },
      platform: 'linux',
      notify: notifySettings({ presence: { source: 'off' } }),
      view: down,
      run: neverRun,
    });
    expect(check).toMatchObject({ status: 'skip' });
  });

  it("the running daemon's detection wins over this shell's; a bad report is not trusted", async () => {
    const presence = {
      setting: 'auto',
      idleAfterMs: 120_000,
      detection: { source: 'loginctl', skipped: [{ source: 'xprintidle', reason: 'no DISPLAY' }] },
      last: { state: 'idle', idleMs: 300_000, source: 'loginctl', at: 1 },
    };
    const up = (p: unknown): DaemonView => ({
      ...down,
      running: true,
      stats: { presence: p } as unknown as DaemonStats,
    });
    const check = await checkPresence({
      env: { PATH: emptyPath() },
      platform: 'linux',
      notify: notifySettings({}),
      view: up(presence),
      run: neverRun,
    });
    expect(check).toMatchObject({
      status: 'ok',
      detail: 'the running daemon: loginctl, idle (idle 5m00s); away after 120 s idle',
    });
    const bad = await checkPresence({
      env: { PATH: emptyPath() },
      platform: 'linux',
      notify: notifySettings({}),
      view: up({ ...presence, detection: { source: '$(rm -rf ~)', skipped: [] } }),
      run: neverRun,
    });
    expect(bad.detail).toMatch(
      /^this shell \(the running daemon does not report presence yet\): no idle source works/,
    );
    expect(bad.status).toBe('skip');
  });
});

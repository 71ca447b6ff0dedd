import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { check, doctor, makeDoctorHome, wiredSettings, writeJson, type DoctorHome } from './doctor-env.js';

// `hookd doctor` says whether remote answers can work: which channels carry them, and whether Claude
// Code gives hookd's PermissionRequest hook the time to answer (docs/remote.md).

let h: DoctorHome;
beforeEach(() => {
  h = makeDoctorHome();
});
afterEach(() => h.cleanup());

const NTFY = {
  server: 'https://ntfy.example.net',
  topic: 'hookd-asks',
  replyTopic: 'hookd-answers',
  token: 'tk_daemon_secret',
  replyToken: 'tk_phone_write_only',
};

function configure(remote: Record<string, unknown> | undefined) {
  writeJson(h.env.HOOKD_CONFIG!, remote ? { remote } : {});
}

/** Claude Code's user settings with hookd's PermissionRequest entry at `timeout` seconds. */
function claudeEntry(timeout: number | undefined) {
  const settings = wiredSettings(`${h.hookdBin} hook --agent claude`, ['PermissionRequest']);
  const hook = settings.hooks.PermissionRequest![0]!.hooks[0]! as { timeout?: number };
  if (timeout === undefined) delete hook.timeout;
  else hook.timeout = timeout;
  writeJson(join(h.home, '.claude', 'settings.json'), settings);
}

describe('hookd doctor: remote answers', () => {
  it('is a skip when remote answers are off', async () => {
    configure(undefined);
    expect(check(await doctor(h), 'remote-answers')).toMatchObject({ status: 'skip' });
  });

  it('is ok when the entry gives hookd the time to answer (install writes 60 s; waitSec is 55)', async () => {
    configure({ ntfy: NTFY });
    claudeEntry(60);
    const found = check(await doctor(h), 'remote-answers');
    expect(found).toMatchObject({ status: 'ok' });
    expect(found.detail).toContain('through ntfy; hookd waits 55 s');
  });

  it('warns when Claude Code would stop the hook before hookd stops waiting', async () => {
    configure({ ntfy: NTFY, waitSec: 55 });
    claudeEntry(30);
    const found = check(await doctor(h), 'remote-answers');
    expect(found).toMatchObject({ status: 'warn' });
    expect(found.detail).toContain('gives hookd 30 s');
    expect(found.fix).toContain('lower remote.waitSec to 25');
  });

  it("an entry without a timeout has Claude Code's own 600 s", async () => {
    configure({ ntfy: NTFY, waitSec: 590 });
    claudeEntry(undefined);
    expect(check(await doctor(h), 'remote-answers')).toMatchObject({ status: 'ok' });
    configure({ ntfy: NTFY, waitSec: 599 });
    expect(check(await doctor(h), 'remote-answers')).toMatchObject({ status: 'warn' });
  });

  it('warns when no hookd PermissionRequest hook runs at all', async () => {
    configure({ ntfy: NTFY });
    const found = check(await doctor(h), 'remote-answers');
    expect(found).toMatchObject({ status: 'warn', fix: 'hookd install --agent claude' });
  });
});

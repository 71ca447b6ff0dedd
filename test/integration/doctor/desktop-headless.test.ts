import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { check, doctor, makeDoctorHome, writeJson, type DoctorHome } from './doctor-env.js';

let h: DoctorHome;

beforeEach(() => {
  h = makeDoctorHome();
  // A server or SSH login: no display, no session bus (notify-send may still be installed).
  rmSync(join(h.bin, 'notify-send'));
  delete h.env.DBUS_SESSION_BUS_ADDRESS;
  delete h.env.DISPLAY;
  delete h.env.WAYLAND_DISPLAY;
});
afterEach(() => h.cleanup());

describe('doctor on a machine with no desktop', () => {
  it('fails the default desktop channel with the config change that fixes it', async () => {
    const result = check(await doctor(h), 'desktop');
    expect(result.status).toBe('fail');
    expect(result.fix).toContain('"notify": {"defaults": false}');
    expect(result.fix).toContain('no desktop session');
  });

  it('is satisfied once the advice is followed', async () => {
    writeJson(h.env.HOOKD_CONFIG!, { notify: { defaults: false } });
    const results = await doctor(h);
    expect(check(results, 'desktop').status).toBe('skip');
    expect(results.filter((r) => r.status === 'fail')).toEqual([]);
  });

  it('names the rules to change when the user routes to a desktop channel', async () => {
    writeJson(h.env.HOOKD_CONFIG!, {
      notify: {
        channels: { desk: { type: 'desktop' } },
        rules: [{ on: ['Stop'], channels: ['desk'] }],
      },
    });
    const result = check(await doctor(h), 'desktop');
    expect(result.status).toBe('fail');
    expect(result.fix).toContain('take "desk" out of your notify.rules');
  });
});

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { check, doctor, makeDoctorHome, writeJson, type DoctorHome } from './doctor-env.js';

let h: DoctorHome;
beforeEach(() => {
  h = makeDoctorHome();
});
afterEach(() => h.cleanup());

describe('doctor: hookd config', () => {
  it('is ok without a config file, and names the files it looked for', async () => {
    const result = check(await doctor(h), 'config');
    expect(result.status).toBe('ok');
    expect(result.detail).toContain(h.env.HOOKD_CONFIG!);
    expect(result.detail).toContain('built-in defaults apply');
  });

  it('lists every issue of every file with its path, value and fix', async () => {
    writeJson(h.env.HOOKD_CONFIG!, {
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x', timeout: -1 }] }] },
      notify: { rules: [{ on: 'Stop', channels: ['nowhere'] }] },
    });
    const project = join(h.project, '.hookd', 'config.json');
    writeJson(project, '{ "hooks": ');
    const result = check(await doctor(h), 'config');
    expect(result.status).toBe('fail');
    const lines = result.detail.split('\n');
    expect(lines[0]).toBe(`${h.env.HOOKD_CONFIG}, ${project} ignored (hooks run as if it did not exist):`);
    expect(lines).toContainEqual(
      expect.stringMatching(/hooks\.Stop\[0\]\.hooks\[0\]\.timeout: .*\(value: -1\)/),
    );
    expect(lines).toContainEqual(
      expect.stringContaining('notify.rules[0].channels[0]: unknown channel "nowhere"'),
    );
    expect(lines.some((l) => l.startsWith(`${project}: `))).toBe(true);
    expect(result.fix).toContain('hookd validate');
  });

  it('changes nothing on disk: no config cache, no state or runtime folders', async () => {
    writeJson(h.env.HOOKD_CONFIG!, { hooks: {} });
    const before = readdirSync(h.root, { recursive: true }).sort();
    await doctor(h);
    expect(readdirSync(h.root, { recursive: true }).sort()).toEqual(before);
  });
});

describe('doctor: project trust and the last good config', () => {
  it('reports an untrusted project file, and the fix is `hookd trust <dir>`', async () => {
    writeJson(h.env.HOOKD_CONFIG!, { hooks: {} });
    writeJson(join(h.project, '.hookd', 'config.json'), { hooks: {} });
    const result = check(await doctor(h), 'config');
    expect(result.status).toBe('warn');
    expect(result.detail).toContain('not trusted');
    expect(result.fix).toContain(`hookd trust ${h.project}`);
  });

  it('says when the hook runs the last config that validated because the file is broken', async () => {
    writeJson(h.env.HOOKD_CONFIG!, { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] } });
    // What a hook run records: the last good config (as `hookd config` does too).
    const { loadConfig } = await import('../../../src/config/load.js');
    const { validator } = await import('../../../src/config/resolve.js');
    loadConfig({ env: h.env, projectDir: h.project, validator: () => validator });
    writeJson(h.env.HOOKD_CONFIG!, {
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true', tiemout: 5 }] }] },
    });
    const result = check(await doctor(h), 'config');
    expect(result.status).toBe('fail');
    expect(result.detail).toContain('last config that validated');
  });
});

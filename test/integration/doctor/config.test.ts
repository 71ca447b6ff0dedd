import { mkdirSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { trustProject } from '../../../src/config/trust.js';
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

describe('doctor: project trust records', () => {
  const hooks = (command: string) => ({ hooks: { Stop: [{ hooks: [{ type: 'command', command }] }] } });

  it('is ok when every trusted project config applies as trusted', async () => {
    writeJson(join(h.project, '.hookd', 'config.json'), hooks('true'));
    trustProject(h.env, h.project);
    const result = check(await doctor(h), 'project-trust');
    expect(result.status).toBe('ok');
    expect(result.detail).toContain('1 trusted project config(s) apply');
  });

  it('warns of a trusted project whose trust lapsed and of an old record that could not carry over', async () => {
    const project = realpathSync(h.project);
    const file = join(project, '.hookd', 'config.json');
    // An older hookd's record for a file reached through a link (not a project's .hookd/config.json).
    const shared = join(h.root, 'shared.json');
    writeFileSync(shared, JSON.stringify(hooks('true')));
    const state = join(h.env.XDG_STATE_HOME!, 'hookd');
    mkdirSync(state, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(state, 'trust.json'),
      JSON.stringify({
        v: 1,
        files: { [shared]: { sha256: 'a'.repeat(64), trustedAt: '2025-01-01T00:00:00Z' } },
      }),
      { mode: 0o600 },
    );
    writeJson(file, hooks('true'));
    trustProject(h.env, project);
    writeJson(file, hooks('./guard.sh'));
    // A second trusted project whose config became a link.
    const linked = join(h.root, 'linked');
    mkdirSync(join(linked, '.hookd'), { recursive: true });
    writeJson(join(linked, 'hookd.json'), hooks('true'));
    writeJson(join(linked, '.hookd', 'config.json'), hooks('true'));
    trustProject(h.env, linked);
    rmSync(join(linked, '.hookd', 'config.json'));
    symlinkSync('../hookd.json', join(linked, '.hookd', 'config.json'));

    const results = await doctor(h);
    const trust = check(results, 'project-trust');
    expect(trust.status).toBe('warn');
    expect(trust.detail).toContain(
      `${project}: trust lapsed, its commands no longer run: ${file} changed since you trusted it`,
    );
    expect(trust.detail).toContain(`${realpathSync(linked)}: trust lapsed`);
    expect(trust.detail).toContain('is a symlink');
    expect(trust.detail).toContain(`${shared}: an older record that could not carry over`);
    expect(trust.fix).toContain(`hookd trust ${project}`);
    expect(trust.fix).toContain(`hookd trust --revoke ${shared}`);

    // The current project's config check says its trust lapsed.
    const config = check(results, 'config');
    expect(config.status).toBe('warn');
    expect(config.detail).toContain('changed since you trusted it (trust lapsed');
    expect(config.fix).toContain(`hookd trust ${h.project}`);
  });
});

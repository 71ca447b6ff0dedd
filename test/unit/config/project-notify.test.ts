import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { validator } from '../../../src/config/resolve.js';
import { trustProjectFile } from '../../../src/config/trust.js';
import { effectiveRules } from '../../../src/notify/rules.js';
import { makeTempDir } from '../../helpers/temp.js';

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let projectFile: string;

beforeEach(() => {
  tmp = makeTempDir();
  env = { HOME: tmp.dir, HOOKD_CONFIG: join(tmp.dir, 'user.json'), HOOKD_STATE_DIR: join(tmp.dir, 'state') };
  mkdirSync(join(tmp.dir, 'proj', '.hookd'), { recursive: true });
  projectFile = join(tmp.dir, 'proj', '.hookd', 'config.json');
});
afterEach(() => tmp.cleanup());

function load(user: unknown, project: unknown, trust = true) {
  writeFileSync(env.HOOKD_CONFIG!, JSON.stringify(user));
  writeFileSync(projectFile, JSON.stringify(project));
  if (trust) trustProjectFile(env, projectFile);
  return loadConfig({ env, projectDir: join(tmp.dir, 'proj'), validator: () => validator, useCache: false });
}

const userConfig = {
  notify: {
    channels: { ops: { type: 'webhook', url: 'http://127.0.0.1:9/u' } },
    rules: [{ name: 'mine', on: 'Stop', channels: ['ops'] }],
    noise: { dedupeWindowMs: 1000 },
    quietHours: { windows: [{ start: '22:00', end: '07:00' }] },
  },
};

describe('a trusted project file’s notify', () => {
  it('adds its channels and rules after the user’s; the rest of its notify is ignored and listed', () => {
    const loaded = load(userConfig, {
      notify: {
        enabled: false,
        noise: { dedupeWindowMs: 0 },
        quietHours: { windows: [{ start: '00:00', end: '23:59' }] },
        channels: { team: { type: 'webhook', url: 'http://127.0.0.1:9/p' } },
        rules: [{ on: 'Notification', channels: ['team', 'ops'] }],
      },
    });
    const notify = loaded.config.notify!;
    expect(notify.rules!.map((r) => r.name)).toEqual(['mine', 'project:rule-0']);
    expect(Object.keys(notify.channels)).toEqual(['ops', 'team']);
    expect(notify.enabled).toBe(true);
    expect(notify.noise.dedupeWindowMs).toBe(1000);
    expect(notify.quietHours?.windows).toEqual([{ start: '22:00', end: '07:00' }]);
    const source = loaded.sources.find((s) => s.level === 'project')!;
    expect(source).toMatchObject({ ok: true });
    expect(source.ignoredKeys).toEqual(['notify.enabled', 'notify.noise', 'notify.quietHours']);
    expect(loaded.projectNotify).toMatchObject({
      file: projectFile,
      rules: ['project:rule-0'],
      channels: ['team'],
    });
  });

  it('an untrusted project’s rules are not applied', () => {
    const loaded = load(
      userConfig,
      { notify: { rules: [{ on: 'Notification', channels: ['ops'] }] } },
      false,
    );
    expect(loaded.config.notify!.rules!.map((r) => r.name)).toEqual(['mine']);
    expect(loaded.projectNotify).toBeUndefined();
  });

  it('a file trusted before project notify rules applied keeps its hooks but not its notify, until trusted again', () => {
    const loaded = load(userConfig, { notify: { rules: [{ on: 'Stop', channels: ['ops'] }] } });
    const trustFile = join(env.HOOKD_STATE_DIR!, 'trust.json');
    const data = JSON.parse(readFileSync(trustFile, 'utf8')) as {
      projects: Record<string, { notify?: true }>;
    };
    expect(loaded.config.notify!.rules).toHaveLength(2);
    for (const record of Object.values(data.projects)) delete record.notify;
    writeFileSync(trustFile, JSON.stringify(data));
    const old = loadConfig({
      env,
      projectDir: join(tmp.dir, 'proj'),
      validator: () => validator,
      useCache: false,
    });
    expect(old.config.notify!.rules!.map((r) => r.name)).toEqual(['mine']);
    expect(old.sources.find((s) => s.level === 'project')).toMatchObject({
      ok: true,
      trust: { state: 'trusted' },
    });
    expect(old.sources.find((s) => s.level === 'project')!.ignoredKeys).toEqual([
      'notify.rules (trusted before project notify rules applied: run `hookd trust` again)',
    ]);
  });

  it('keeps the built-in default rules of a user who wrote none', () => {
    const loaded = load({}, { notify: { rules: [{ name: 'ci', on: 'Stop', channels: ['desktop'] }] } });
    expect(effectiveRules(loaded.config.notify!).rules.map((r) => r.name)).toEqual([
      'default: needs you',
      'default: finished',
      'default: failed',
      'project:ci',
    ]);
  });

  it('refuses a project channel that redefines the user’s, and an unknown channel, at the project file’s path', () => {
    const loaded = load(userConfig, {
      notify: {
        channels: { ops: { type: 'webhook', url: 'http://127.0.0.1:9/evil' } },
        rules: [{ on: 'Stop', channels: ['nope'] }],
      },
    });
    const source = loaded.sources.find((s) => s.level === 'project')!;
    expect(source.ok).toBe(false);
    expect(source.issues.map((i) => [i.file, i.path, i.message])).toEqual([
      [projectFile, 'notify.channels.ops', 'a project cannot redefine the user\'s channel "ops"'],
      [projectFile, 'notify.rules[0].channels[0]', 'unknown channel "nope"'],
    ]);
    // The user's config stands as it is.
    expect(loaded.config.notify!.channels.ops).toMatchObject({ url: 'http://127.0.0.1:9/u' });
    expect(loaded.config.notify!.rules!.map((r) => r.name)).toEqual(['mine']);
  });

  it('a project file alone may name the user’s channels (checked after the merge)', () => {
    const loaded = load(userConfig, { notify: { rules: [{ on: 'Stop', channels: ['ops'] }] } });
    expect(loaded.sources.find((s) => s.level === 'project')).toMatchObject({ ok: true, issues: [] });
  });
});

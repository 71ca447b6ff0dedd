import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { validator } from '../../../src/config/resolve.js';
import { trustProjectFile } from '../../../src/config/trust.js';
import { makeTempDir } from '../../helpers/temp.js';

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let calls: number;
const countingValidator = () => {
  calls++;
  return validator;
};

beforeEach(() => {
  tmp = makeTempDir();
  env = { HOME: tmp.dir, HOOKD_CONFIG: join(tmp.dir, 'user.json'), HOOKD_STATE_DIR: join(tmp.dir, 'state') };
  calls = 0;
});
afterEach(() => tmp.cleanup());

const cmd = (command: string) => ({ type: 'command', command });

describe('config loading', () => {
  it('merges a trusted project level: both levels run their hooks, settings come from the user only', () => {
    writeFileSync(
      env.HOOKD_CONFIG!,
      JSON.stringify({
        settings: { commandTimeoutSec: 10, killGraceMs: 100 },
        hooks: { Stop: [{ hooks: [cmd('user-stop')] }] },
      }),
    );
    const project = join(tmp.dir, 'proj');
    mkdirSync(join(project, '.hookd'), { recursive: true });
    writeFileSync(
      join(project, '.hookd', 'config.json'),
      JSON.stringify({
        settings: { commandTimeoutSec: 5, killGraceMs: 0 },
        notify: { enabled: false },
        hooks: { Stop: [{ hooks: [cmd('project-stop')] }] },
      }),
    );
    trustProjectFile(env, join(project, '.hookd', 'config.json'));
    const loaded = loadConfig({ env, projectDir: project, validator: countingValidator });
    expect(loaded.config.hooks.Stop?.map((e) => e.hooks[0]?.command)).toEqual(['user-stop', 'project-stop']);
    expect(loaded.entryOrigins.Stop).toEqual([env.HOOKD_CONFIG, join(project, '.hookd', 'config.json')]);
    expect(loaded.entryLevels.Stop).toEqual(['user', 'project']);
    expect(loaded.config.settings.commandTimeoutSec).toBe(10);
    expect(loaded.config.settings.killGraceMs).toBe(100);
    expect(loaded.config.notify).toBeUndefined();
    expect(loaded.projectCommandTimeoutSec).toBe(5);
    const project_ = loaded.sources.find((s) => s.level === 'project');
    expect(project_).toMatchObject({ ok: true, trust: { state: 'trusted' } });
    expect(project_?.ignoredKeys).toEqual(['settings.killGraceMs', 'notify.enabled']);
  });

  it('does not apply an untrusted project level, but still validates it', () => {
    writeFileSync(env.HOOKD_CONFIG!, JSON.stringify({ hooks: { Stop: [{ hooks: [cmd('user-stop')] }] } }));
    const project = join(tmp.dir, 'proj');
    mkdirSync(join(project, '.hookd'), { recursive: true });
    writeFileSync(
      join(project, '.hookd', 'config.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [cmd('p')] }] } }),
    );
    const loaded = loadConfig({ env, projectDir: project, validator: countingValidator });
    expect(loaded.config.hooks.Stop).toHaveLength(1);
    expect(loaded.sources.find((s) => s.level === 'project')).toMatchObject({
      ok: true,
      trust: { state: 'untrusted' },
    });
  });

  it('ignores an invalid level loudly and keeps the valid one', () => {
    writeFileSync(env.HOOKD_CONFIG!, JSON.stringify({ hooks: { Stop: [{ hooks: [cmd('user-stop')] }] } }));
    const project = join(tmp.dir, 'proj');
    mkdirSync(join(project, '.hookd'), { recursive: true });
    writeFileSync(
      join(project, '.hookd', 'config.json'),
      '{"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}',
    );
    const loaded = loadConfig({ env, projectDir: project, validator: countingValidator });
    expect(loaded.config.hooks.Stop).toHaveLength(1);
    const bad = loaded.sources.find((s) => s.level === 'project');
    expect(bad?.ok).toBe(false);
    expect(bad?.issues[0]?.path).toBe('hooks.Stop[0].hooks[0].command');
  });

  it('validates once per file change: later loads come from the cache without loading zod', () => {
    writeFileSync(env.HOOKD_CONFIG!, JSON.stringify({ hooks: { Stop: [{ hooks: [cmd('a')] }] } }));
    loadConfig({ env, validator: countingValidator });
    const second = loadConfig({ env, validator: countingValidator });
    expect(calls).toBe(1);
    expect(second.cached).toBe(true);
    writeFileSync(
      env.HOOKD_CONFIG!,
      JSON.stringify({ hooks: { Stop: [{ hooks: [cmd('b')] }, { hooks: [cmd('c')] }] } }),
    );
    const third = loadConfig({ env, validator: countingValidator });
    expect(calls).toBe(2);
    expect(third.config.hooks.Stop).toHaveLength(2);
  });

  it('does not reuse a result validated by another schema (an upgraded hookd re-validates)', () => {
    writeFileSync(env.HOOKD_CONFIG!, JSON.stringify({ hooks: { Stop: [{ hooks: [cmd('a')] }] } }));
    loadConfig({ env, validator: countingValidator });
    const dir = join(env.HOOKD_STATE_DIR!, 'config-cache');
    const [name] = readdirSync(dir);
    const cached = JSON.parse(readFileSync(join(dir, name!), 'utf8')) as {
      key: string;
      value: { config: { hooks: unknown } };
    };
    expect(cached.key.startsWith('source|')).toBe(true);
    cached.key = cached.key.replace(/^source\|/, 'older-schema|');
    cached.value.config.hooks = {};
    writeFileSync(join(dir, name!), JSON.stringify(cached));
    const again = loadConfig({ env, validator: countingValidator });
    expect(calls).toBe(2);
    expect(again.config.hooks.Stop).toHaveLength(1);
  });

  it('runs with defaults when no file exists', () => {
    const loaded = loadConfig({ env, validator: countingValidator });
    expect(loaded.config.hooks).toEqual({});
    expect(loaded.sources[0]).toMatchObject({ level: 'user', exists: false, ok: true });
  });
});

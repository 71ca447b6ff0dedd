import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigMemory, loadConfig } from '../../../src/config/load.js';
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

// The in-memory memo in front of the on-disk config cache (the daemon's listeners): a hit reads no
// file, and any edit of a config file or the trust file is seen by the next load.
const stopConfig = (command: string) => JSON.stringify({ hooks: { Stop: [{ hooks: [cmd(command)] }] } });
const stops = (loaded: ReturnType<typeof loadConfig>) =>
  (loaded.config.hooks.Stop ?? []).flatMap((e) => e.hooks.map((h) => h.command));
const cacheDir = () => join(env.HOOKD_STATE_DIR!, 'config-cache');
/** Makes every on-disk cache result unreadable: a load that reads one warns that it is malformed. */
const corruptDiskCache = () => {
  for (const name of readdirSync(cacheDir()))
    if (!name.startsWith('last-good-')) writeFileSync(join(cacheDir(), name), '{not json');
};
const warnedMalformed = (loaded: ReturnType<typeof loadConfig>) =>
  (loaded.warnings ?? []).some((w) => w.kind === 'config-cache');

describe('a "__proto__" event name', () => {
  it('is an invalid config for the loader as for validate, never a valid one without it', () => {
    writeFileSync(
      env.HOOKD_CONFIG!,
      '{"hooks": {"__proto__": [{"hooks": [{"type": "command", "command": "echo proto"}]}],' +
        ' "Stop": [{"hooks": [{"type": "command", "command": "echo stop"}]}]}}',
    );
    const loaded = loadConfig({ env, projectDir: undefined, validator: countingValidator });
    const user = loaded.sources.find((s) => s.level === 'user');
    expect(user?.ok).toBe(false);
    expect(user?.issues.map((i) => i.path)).toEqual(['hooks.__proto__']);
    expect(Object.getPrototypeOf(loaded.config.hooks)).toBe(Object.prototype);
  });
});

describe('config memo (loadConfig memory)', () => {
  it('answers from memory without reading the disk cache, and as the disk cache would', () => {
    writeFileSync(env.HOOKD_CONFIG!, stopConfig('a'));
    const memory = new ConfigMemory();
    const first = loadConfig({ env, projectDir: tmp.dir, validator: countingValidator, memory });
    expect(calls).toBe(1);
    corruptDiskCache();
    const second = loadConfig({ env, projectDir: tmp.dir, validator: countingValidator, memory });
    expect(calls).toBe(1);
    expect(warnedMalformed(second)).toBe(false);
    expect(second.cached).toBe(true);
    expect(second.config).toEqual(first.config);
    expect(second.sources).toEqual(first.sources);
    // The same load without the memo reads the (now corrupt) disk cache: the memo was what answered.
    const fromDisk = loadConfig({ env, projectDir: tmp.dir, validator: countingValidator });
    expect(warnedMalformed(fromDisk)).toBe(true);
    expect(stops(fromDisk)).toEqual(['a']);
  });

  it('fills from a disk cache hit too', () => {
    writeFileSync(env.HOOKD_CONFIG!, stopConfig('a'));
    loadConfig({ env, projectDir: tmp.dir, validator: countingValidator });
    const memory = new ConfigMemory();
    loadConfig({ env, projectDir: tmp.dir, validator: countingValidator, memory });
    expect(calls).toBe(1);
    expect(memory.size).toBe(1);
    corruptDiskCache();
    expect(
      warnedMalformed(loadConfig({ env, projectDir: tmp.dir, validator: countingValidator, memory })),
    ).toBe(false);
  });

  it('sees a user config edit of the same size at the next load', () => {
    writeFileSync(env.HOOKD_CONFIG!, stopConfig('a'));
    const memory = new ConfigMemory();
    expect(stops(loadConfig({ env, projectDir: tmp.dir, validator: countingValidator, memory }))).toEqual([
      'a',
    ]);
    writeFileSync(env.HOOKD_CONFIG!, stopConfig('b'));
    expect(stops(loadConfig({ env, projectDir: tmp.dir, validator: countingValidator, memory }))).toEqual([
      'b',
    ]);
    expect(calls).toBe(2);
  });

  it('sees a file replaced by rename with the same size and mtime (another inode)', () => {
    writeFileSync(env.HOOKD_CONFIG!, stopConfig('a'));
    utimesSync(env.HOOKD_CONFIG!, 1_000_000, 1_000_000);
    const memory = new ConfigMemory();
    expect(stops(loadConfig({ env, projectDir: tmp.dir, validator: countingValidator, memory }))).toEqual([
      'a',
    ]);
    const before = statSync(env.HOOKD_CONFIG!);
    const next = `${env.HOOKD_CONFIG!}.new`;
    writeFileSync(next, stopConfig('c'));
    utimesSync(next, 1_000_000, 1_000_000);
    renameSync(next, env.HOOKD_CONFIG!);
    const after = statSync(env.HOOKD_CONFIG!);
    expect([after.size, after.mtimeMs]).toEqual([before.size, before.mtimeMs]);
    expect(after.ino).not.toBe(before.ino);
    expect(stops(loadConfig({ env, projectDir: tmp.dir, validator: countingValidator, memory }))).toEqual([
      'c',
    ]);
  });

  it('sees a project file appear, its trust, and its edit (no longer trusted)', () => {
    writeFileSync(env.HOOKD_CONFIG!, stopConfig('user'));
    const project = join(tmp.dir, 'proj');
    const file = join(project, '.hookd', 'config.json');
    mkdirSync(join(project, '.hookd'), { recursive: true });
    const memory = new ConfigMemory();
    const load = () => loadConfig({ env, projectDir: project, validator: countingValidator, memory });
    expect(stops(load())).toEqual(['user']);
    writeFileSync(file, stopConfig('p1'));
    expect(load().sources[1]).toMatchObject({ exists: true, trust: { state: 'untrusted' } });
    expect(stops(load())).toEqual(['user']);
    trustProjectFile(env, file);
    expect(stops(load())).toEqual(['user', 'p1']);
    writeFileSync(file, stopConfig('p2'));
    const edited = load();
    expect(stops(edited)).toEqual(['user']);
    expect(edited.sources[1]).toMatchObject({ trust: { state: 'changed' } });
  });

  it('keeps at most `max` project dirs, dropping the least recently used', () => {
    writeFileSync(env.HOOKD_CONFIG!, stopConfig('a'));
    const memory = new ConfigMemory(2);
    const dirs = ['p1', 'p2', 'p3'].map((d) => join(tmp.dir, d));
    const load = (dir: string) => loadConfig({ env, projectDir: dir, validator: countingValidator, memory });
    load(dirs[0]!);
    load(dirs[1]!);
    load(dirs[0]!); // p1 used last: p2 is the one dropped next
    load(dirs[2]!);
    expect(memory.size).toBe(2);
    corruptDiskCache();
    expect(warnedMalformed(load(dirs[0]!))).toBe(false);
    expect(warnedMalformed(load(dirs[2]!))).toBe(false);
    expect(warnedMalformed(load(dirs[1]!))).toBe(true);
  });

  it('is not used when the cache is off (validate, config)', () => {
    writeFileSync(env.HOOKD_CONFIG!, stopConfig('a'));
    const memory = new ConfigMemory();
    loadConfig({ env, projectDir: tmp.dir, validator: countingValidator, memory, useCache: false });
    loadConfig({ env, projectDir: tmp.dir, validator: countingValidator, memory, useCache: false });
    expect(calls).toBe(2);
    expect(memory.size).toBe(0);
  });
});

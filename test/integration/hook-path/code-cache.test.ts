import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';
import { requireCached } from '../../../src/entry/code-cache.js';

// `hookd hook` starts from V8's code cache of its bundle (src/entry/code-cache.ts): kept private in the
// state dir after the first run, keyed by the bundle file, never read through a link or from a file
// others can write, replaced when damaged, pruned when the bundle changes. The built dispatcher runs
// from a copy of dist/, so a bundle can be touched without touching the repository's.

const DIST = resolve(import.meta.dirname, '../../../dist');
let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let bin: string;

beforeEach(() => {
  tmp = makeTempDir('hkcc-');
  mkdirSync(join(tmp.dir, 'dist'));
  for (const f of readdirSync(DIST).filter((n) => n.endsWith('.cjs')))
    copyFileSync(join(DIST, f), join(tmp.dir, 'dist', f));
  bin = join(tmp.dir, 'dist', 'hookd.cjs');
  env = isolatedEnv(tmp.dir);
  writeFileSync(
    env.HOOKD_CONFIG!,
    JSON.stringify({
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'echo guarded >&2; exit 2' }] }] },
    }),
  );
});
afterEach(() => tmp.cleanup());

const cacheDir = () => join(env.XDG_STATE_HOME!, 'hookd', 'code-cache');
const allCaches = () =>
  existsSync(cacheDir()) ? readdirSync(cacheDir()).filter((n) => n.endsWith('.v8')) : [];
/** The hook bundle's own caches (its chunks have theirs). */
const caches = () => allCaches().filter((n) => n.startsWith('hook_cjs-'));
const EVENT = JSON.stringify({
  session_id: 's1',
  hook_event_name: 'PreToolUse',
  tool_name: 'Execute',
  tool_input: {},
});

function hook(more: Record<string, string> = {}, program = bin) {
  const r = spawnSync(process.execPath, [program, 'hook', '--agent', 'droid'], {
    env: { ...env, ...more },
    input: EVENT,
    encoding: 'utf8',
  });
  // The guard decides the same way whatever the cache did.
  expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 2, stderr: 'guarded\n' });
  return r;
}

describe("the hook bundle through V8's code cache", () => {
  it('is kept after the first run, private, and used by the next ones', () => {
    hook();
    expect(caches()).toHaveLength(1);
    const file = join(cacheDir(), caches()[0]!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(cacheDir()).mode & 0o777).toBe(0o700);
    const first = readFileSync(file);
    hook();
    hook();
    // Used, not rewritten: the same bytes.
    expect(readFileSync(file).equals(first)).toBe(true);
  });

  it('a damaged cache is compiled around and replaced', () => {
    hook();
    const file = join(cacheDir(), caches()[0]!);
    writeFileSync(file, Buffer.from('not a V8 code cache at all'));
    hook();
    expect(readFileSync(file).toString()).not.toBe('not a V8 code cache at all');
    expect(readFileSync(file).length).toBeGreaterThan(1000);
  });

  it('is never read through a symlink or from a file others may write', () => {
    hook();
    const name = caches()[0]!;
    const file = join(cacheDir(), name);
    const elsewhere = join(tmp.dir, 'elsewhere.v8');
    copyFileSync(file, elsewhere);
    // A link in its place is replaced by a file of hookd's, never followed or written through.
    writeFileSync(elsewhere, 'planted');
    rmSync(file);
    symlinkSync(elsewhere, file);
    hook();
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(readFileSync(elsewhere, 'utf8')).toBe('planted');
    // A cache others may write is not used (and is replaced by a private one).
    chmodSync(file, 0o666);
    hook();
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('a rebuilt bundle gets its own cache; the old one is removed', () => {
    hook();
    const [old] = caches();
    const bundle = join(tmp.dir, 'dist', 'hook.cjs');
    const later = new Date(Date.now() + 60_000);
    utimesSync(bundle, later, later);
    hook();
    expect(caches()).toHaveLength(1);
    expect(caches()[0]).not.toBe(old);
  });

  it('the chunks an event loads come from their own caches, private, and a damaged one is replaced', () => {
    // The guard runs from dist/run.cjs; the first run also loads the config afresh (dist/config.cjs).
    hook();
    const run = allCaches().find((n) => n.startsWith('run_cjs-'));
    expect(run).toBeDefined();
    expect(allCaches().some((n) => n.startsWith('config_cjs-'))).toBe(true);
    const file = join(cacheDir(), run!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const first = readFileSync(file);
    hook();
    expect(readFileSync(file).equals(first)).toBe(true);
    writeFileSync(file, Buffer.from('not a V8 code cache at all'));
    hook();
    expect(readFileSync(file).length).toBeGreaterThan(1000);
  });

  it('two installs sharing one state folder keep each their own caches', () => {
    // A second copy of hookd (another install, another version) run by the same user.
    mkdirSync(join(tmp.dir, 'other', 'dist'), { recursive: true });
    for (const f of readdirSync(join(tmp.dir, 'dist')))
      copyFileSync(join(tmp.dir, 'dist', f), join(tmp.dir, 'other', 'dist', f));
    const other = join(tmp.dir, 'other', 'dist', 'hookd.cjs');
    hook();
    const [mine] = caches();
    const first = readFileSync(join(cacheDir(), mine!));
    hook({}, other);
    expect(caches()).toHaveLength(2);
    // Each run of either uses its own cache as it is: neither removes nor rewrites the other's.
    hook();
    hook({}, other);
    expect(caches()).toHaveLength(2);
    expect(readFileSync(join(cacheDir(), mine!)).equals(first)).toBe(true);
    expect(allCaches().filter((n) => n.startsWith('run_cjs-'))).toHaveLength(2);
  });

  it('HOOKD_CODE_CACHE=0 keeps none', () => {
    hook({ HOOKD_CODE_CACHE: '0' });
    expect(allCaches()).toEqual([]);
  });
});

describe('chunks that require each other', () => {
  it('get each other as they stand, as with require, and run once', () => {
    // a.cjs is the bundle; b.cjs, a chunk of it, requires a.cjs back while a.cjs is still loading.
    const dir = join(tmp.dir, 'cycle');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'a.cjs'),
      "globalThis.__aRuns = (globalThis.__aRuns ?? 0) + 1; exports.name = 'a'; exports.b = require('./b.cjs');",
    );
    writeFileSync(
      join(dir, 'b.cjs'),
      "const a = require('./a.cjs'); exports.sawA = a.name; exports.name = 'b';",
    );
    const g = globalThis as { __aRuns?: number };
    delete g.__aRuns;
    try {
      // A state folder that can never be made: no cache is kept (nor written as this worker exits).
      const noCache = { HOOKD_STATE_DIR: '/dev/null/hookd-state' };
      const a = requireCached<{ name: string; b: { name: string; sawA: string } }>(
        join(dir, 'a.cjs'),
        noCache,
        { chunks: true },
      );
      expect(a).toEqual({ name: 'a', b: { name: 'b', sawA: 'a' } });
      expect(g.__aRuns).toBe(1);
    } finally {
      delete g.__aRuns;
    }
  });
});

import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Script } from 'node:vm';
import { stateDir } from '../paths.js';
import { myUid, writePrivateFileAtomic } from '../util/private-fs.js';
import { fnv1a } from '../util/fnv1a.js';

// Loads a bundle of hookd's with V8's code cache: the hook bundle starts once per agent event, and
// compiling it is a good part of its start-up. The first run compiles it as usual and, as it exits,
// keeps what V8 compiled in `<state>/code-cache/<bundle>-<folder>-<size>-<mtime>-<inode>.v8` (`<folder>`:
// an FNV-1a hash of the folder the bundle is in, so that two installs of hookd sharing one state folder each keep
// their own); later runs start from that. A cache is code: it is read only from a private file of this user's (0600, not a link),
// keyed by the bundle file's identity (a rebuilt or upgraded bundle has another key), and V8 itself
// rejects data that does not fit the source or this Node; a rejected or unreadable cache is compiled
// afresh. HOOKD_CODE_CACHE=0 turns it off.

declare const require: (id: string) => unknown;

const MAX_CACHE_BYTES = 8 * 1024 * 1024;

/** The private cache file's bytes, or undefined (absent, not ours, not private, a link, too big). */
function readCache(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    const uid = myUid();
    // One link only: a file hard-linked in from elsewhere is not the cache this program wrote.
    if (!st.isFile() || st.nlink !== 1 || (uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0)
      return undefined;
    if (st.size === 0 || st.size > MAX_CACHE_BYTES) return undefined;
    const buf = Buffer.allocUnsafe(st.size);
    let got = 0;
    while (got < st.size) {
      const n = readSync(fd, buf, got, st.size - got, got);
      if (n === 0) return undefined;
      got += n;
    }
    return buf;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The bundle's source text and where its cache lives, or undefined when it cannot be read. */
function readBundle(bundle: string, env: Record<string, string | undefined>) {
  try {
    const fd = openSync(bundle, constants.O_RDONLY);
    try {
      const st = fstatSync(fd);
      const dir = dirname(bundle);
      const name = bundle.slice(dir.length + 1).replace(/\W/g, '_');
      const cacheFile = join(
        stateDir(env),
        'code-cache',
        `${name}-${fnv1a(dir)}-${st.size}-${Math.trunc(st.mtimeMs)}-${st.ino}.v8`,
      );
      const buf = Buffer.allocUnsafe(st.size);
      let got = 0;
      while (got < st.size) {
        const n = readSync(fd, buf, got, st.size - got, got);
        if (n === 0) break;
        got += n;
      }
      return { source: buf.toString('utf8', 0, got), cacheFile };
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** Keeps what V8 compiled of `script` in `cacheFile` as the process exits; drops older builds' caches. */
function keepCacheAtExit(script: Script, cacheFile: string): void {
  process.once('exit', () => {
    try {
      writePrivateFileAtomic(cacheFile, script.createCachedData());
      // The caches of earlier builds of this bundle, in this folder, are of no use any more (those of
      // another install's bundle of the same name are: their folder's hash differs).
      const dir = dirname(cacheFile);
      const mine = cacheFile.slice(dir.length + 1);
      const prefix = mine.slice(0, mine.indexOf('-', mine.indexOf('-') + 1) + 1);
      for (const f of readdirSync(dir))
        if (f.startsWith(prefix) && f.endsWith('.v8') && f !== mine) rmSync(join(dir, f), { force: true });
    } catch {
      // A full disk or an unsafe state dir: the next run compiles again.
    }
  });
}

/** A chunk of hookd's own, named as a bundle requires it: `./<name>.cjs` beside the bundle. */
const OWN_CHUNK = /^\.\/([a-z][a-z0-9-]*\.cjs)$/;
type CjsModule = { exports: unknown };
/**
 * The bundles and chunks loaded so far (file -> module): each runs once per process, as with require. A
 * file is in here from before it runs, so that chunks that require each other get each other's exports
 * as they stand (as Node's require does), never run again in a loop.
 */
const loadedChunks = new Map<string, CjsModule>();

/**
 * The `require` a bundle loaded with `chunks` runs with: hookd's own chunks beside it load as the bundle
 * did, through the code cache and without Node's module lookup (which reads the package's package.json
 * and resolves every folder of the path on each first require); anything else (Node's built-ins) and a
 * chunk that cannot be read go to Node's require.
 */
function bundleRequire(
  bundle: string,
  env: Record<string, string | undefined>,
  chunks: boolean,
): NodeJS.Require {
  const { createRequire } = process.getBuiltinModule('node:module');
  const plain = createRequire(bundle);
  if (!chunks) return plain;
  const dir = dirname(bundle);
  const own = (id: string): unknown => {
    const chunk = OWN_CHUNK.exec(id);
    if (!chunk) return plain(id);
    const file = join(dir, chunk[1]!);
    const loaded = loadedChunks.get(file);
    if (loaded) return loaded.exports;
    const read = readBundle(file, env);
    if (!read) return plain(id);
    return runCached(file, read, env, true);
  };
  return Object.assign(own, plain);
}

/** Compiles `bundle` (with its cache when there is a good one), runs it as a CommonJS module: its exports. */
function runCached(
  bundle: string,
  { source, cacheFile }: { source: string; cacheFile: string },
  env: Record<string, string | undefined>,
  chunks: boolean,
): unknown {
  const vm = process.getBuiltinModule('node:vm');
  const { wrap } = process.getBuiltinModule('node:module') as unknown as { wrap(code: string): string };
  const cachedData = readCache(cacheFile);
  const script = new vm.Script(wrap(source), {
    filename: bundle,
    ...(cachedData ? { cachedData } : {}),
  });
  if (!cachedData || script.cachedDataRejected) keepCacheAtExit(script, cacheFile);
  const module: CjsModule = { exports: {} };
  if (chunks) loadedChunks.set(bundle, module);
  const run = script.runInThisContext() as (
    exports: unknown,
    req: NodeJS.Require,
    mod: typeof module,
    filename: string,
    dirname: string,
  ) => void;
  try {
    run.call(
      module.exports,
      module.exports,
      bundleRequire(bundle, env, chunks),
      module,
      bundle,
      dirname(bundle),
    );
  } catch (error) {
    // As with require: a file that failed to load is loaded afresh when asked for again.
    loadedChunks.delete(bundle);
    throw error;
  }
  return module.exports;
}

/**
 * `require(bundle)` through V8's code cache. Any trouble (no state dir, a cache that cannot be read or
 * written) falls back to a plain require: the cache only ever saves time. With `chunks`, the chunks the
 * bundle requires (`./<name>.cjs` beside it) load the same way (the hook's: client.cjs, run.cjs...).
 */
export function requireCached<T>(
  bundle: string,
  env: Record<string, string | undefined> = process.env,
  options: { chunks?: boolean } = {},
): T {
  if (env.HOOKD_CODE_CACHE === '0') return require(bundle) as T;
  const read = readBundle(bundle, env);
  if (!read) return require(bundle) as T;
  return runCached(bundle, read, env, options.chunks === true) as T;
}

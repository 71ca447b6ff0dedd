import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stateDir } from '../paths.js';
import { myUid, writePrivateFileAtomic } from '../util/private-fs.js';

// Loads a bundle of hookd's with V8's code cache: the hook bundle starts once per agent event, and
// compiling it is a good part of its start-up. The first run compiles it as usual and, as it exits,
// keeps what V8 compiled in `<state>/code-cache/<bundle>-<size>-<mtime>-<inode>.v8`; later runs start
// from that. A cache is code: it is read only from a private file of this user's (0600, not a link),
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
    if (!st.isFile() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0) return undefined;
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

/**
 * `require(bundle)` through V8's code cache. Any trouble (no state dir, a cache that cannot be read or
 * written) falls back to a plain require: the cache only ever saves time.
 */
export function requireCached<T>(bundle: string, env: Record<string, string | undefined> = process.env): T {
  if (env.HOOKD_CODE_CACHE === '0') return require(bundle) as T;
  let source: string;
  let cacheFile: string;
  try {
    const fd = openSync(bundle, constants.O_RDONLY);
    try {
      const st = fstatSync(fd);
      const name = bundle.slice(dirname(bundle).length + 1).replace(/\W/g, '_');
      cacheFile = join(
        stateDir(env),
        'code-cache',
        `${name}-${st.size}-${Math.trunc(st.mtimeMs)}-${st.ino}.v8`,
      );
      const buf = Buffer.allocUnsafe(st.size);
      let got = 0;
      while (got < st.size) {
        const n = readSync(fd, buf, got, st.size - got, got);
        if (n === 0) break;
        got += n;
      }
      source = buf.toString('utf8', 0, got);
    } finally {
      closeSync(fd);
    }
  } catch {
    return require(bundle) as T;
  }
  const vm = process.getBuiltinModule('node:vm');
  const { wrap } = process.getBuiltinModule('node:module') as unknown as { wrap(code: string): string };
  const cachedData = readCache(cacheFile);
  const script = new vm.Script(wrap(source), {
    filename: bundle,
    ...(cachedData ? { cachedData } : {}),
  });
  if (!cachedData || script.cachedDataRejected) {
    // Kept as the process exits, with what the run compiled by then.
    process.once('exit', () => {
      try {
        writePrivateFileAtomic(cacheFile, script.createCachedData());
        // The caches of earlier builds of this bundle are of no use any more.
        const dir = dirname(cacheFile);
        const mine = cacheFile.slice(dir.length + 1);
        const prefix = mine.slice(0, mine.indexOf('-') + 1);
        for (const f of readdirSync(dir))
          if (f.startsWith(prefix) && f.endsWith('.v8') && f !== mine) rmSync(join(dir, f), { force: true });
      } catch {
        // A full disk or an unsafe state dir: the next run compiles again.
      }
    });
  }
  const module = { exports: {} as unknown };
  const run = script.runInThisContext() as (
    exports: unknown,
    req: NodeJS.Require,
    mod: typeof module,
    filename: string,
    dirname: string,
  ) => void;
  const { createRequire } = process.getBuiltinModule('node:module');
  run.call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return module.exports as T;
}

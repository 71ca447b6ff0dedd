import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfigLevel } from './merge.js';
import { projectConfigStamp, trustFilePath } from './trust.js';
// A cache miss only: from its own chunk in the hook bundle (load-fresh.ts).
import { loadFresh } from './load-fresh.js';
import { fnv1a } from '../util/fnv1a.js';
import { readPrivateFile } from '../util/private-fs.js';
import { projectConfigPath, stateDir, userConfigPath, type Env } from '../paths.js';
import { isObject } from '../util/json-values.js';

/**
 * Finding and loading the config. This module is on the hook's start-up path, so it imports no zod:
 * a validated result is cached per file fingerprint and the validator, which pulls in zod, is loaded
 * only when a file changed.
 *
 * Two safety rules live here (docs/configuration.md, "Project configs and trust"):
 * - a project file applies only while its bytes hash to a value the user trusted for that project dir
 *   (`hookd trust`), and only when read without following a link inside the project;
 * - an invalid user file is replaced by the last user file that validated (kept privately, and
 *   validated again with the current schema before it is used), never by "no config at all".
 *
 * The caches are private state: 0600 files in a 0700 dir, read without following symlinks, refused
 * when owned by someone else or writable by others, and checked for shape when read back.
 */

export type { ConfigFileInput, ConfigSource, ConfigValidator, LoadedConfig, LoadWarning } from './loaded.js';
import type { LoadedConfig, LoadWarning, ConfigValidator } from './loaded.js';

export interface LoadOptions {
  env?: Env;
  projectDir?: string | undefined;
  validator: () => ConfigValidator;
  /** Set false to skip the on-disk cache (the CLI's `config` and `validate` always re-validate). */
  useCache?: boolean;
  /**
   * Whether a valid user file is saved as the last good config (default: when the cache is used).
   * `hookd doctor` passes false: it changes nothing on disk.
   */
  recordLastGood?: boolean;
  /**
   * A memo in front of the on-disk cache (long-running processes: the daemon's listeners), under the
   * same key: a hit costs the fingerprints' stats only, no read, no parse.
   */
  memory?: ConfigMemory | undefined;
}

/**
 * Validated results kept in memory, one per set of config files (a project dir), least recently used
 * dropped beyond `max`. Each holds the cache key it was validated under (the schema, each file's and the
 * trust file's fingerprint): an edit of any of them is a miss, so the next event sees it.
 */
export class ConfigMemory {
  private readonly entries = new Map<string, { key: string; value: LoadedConfig }>();
  constructor(readonly max = 64) {}

  get(files: string, key: string): LoadedConfig | undefined {
    const hit = this.entries.get(files);
    if (hit === undefined) return undefined;
    this.entries.delete(files);
    if (hit.key !== key) return undefined;
    this.entries.set(files, hit);
    return hit.value;
  }

  set(files: string, key: string, value: LoadedConfig): void {
    this.entries.delete(files);
    this.entries.set(files, { key, value });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * What produced a cached result: set at build time to a hash of src/config (scripts/build.mjs), so an
 * upgraded hookd never reuses results validated by an older schema. Running from source: "source".
 */
declare const __HOOKD_CONFIG_SCHEMA_ID__: string | undefined;
const SCHEMA_ID = typeof __HOOKD_CONFIG_SCHEMA_ID__ === 'string' ? __HOOKD_CONFIG_SCHEMA_ID__ : 'source';

const MAX_CACHE_BYTES = 16 * 1024 * 1024;

function fingerprint(file: string): string {
  try {
    // No exception for the common absent file (a project without a config, no trust file).
    const st = statSync(file, { throwIfNoEntry: false });
    return st ? `${file}:${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}` : `${file}:absent`;
  } catch {
    return `${file}:absent`;
  }
}

/** The config files of a load: the user's, then the project's (with the dir it applies in). */
export function configFiles(
  env: Env,
  projectDir: string | undefined,
): { level: ConfigLevel; file: string; projectDir?: string }[] {
  const files: { level: ConfigLevel; file: string; projectDir?: string }[] = [
    { level: 'user', file: userConfigPath(env) },
  ];
  if (projectDir && !env.HOOKD_NO_PROJECT_CONFIG) {
    const project = projectConfigPath(projectDir);
    if (project !== files[0]!.file) files.push({ level: 'project', file: project, projectDir });
  }
  return files;
}

/**
 * The shape check of a cached result read back (it was validated by zod when written; this guards
 * against a corrupt or hand-edited cache without loading zod): the parts the hook path acts on.
 */
function looksLikeLoadedConfig(value: unknown): value is LoadedConfig {
  if (!isObject(value) || !Array.isArray(value.sources) || !isObject(value.entryOrigins)) return false;
  if (!isObject(value.entryLevels)) return false;
  const config = value.config;
  if (!isObject(config) || !isObject(config.hooks) || !isObject(config.settings) || !isObject(config.daemon))
    return false;
  const s = config.settings;
  for (const key of ['commandTimeoutSec', 'eventBudgetSec', 'killGraceMs', 'maxOutputBytes'])
    if (typeof s[key] !== 'number' || !(Number(s[key]) >= 0)) return false;
  if (!Array.isArray(s.sequentialEvents) || !isObject(s.eventBudgetSecByEvent)) return false;
  for (const [event, entries] of Object.entries(config.hooks)) {
    const levels = value.entryLevels[event];
    if (!Array.isArray(entries) || !Array.isArray(levels) || levels.length !== entries.length) return false;
    for (const entry of entries as unknown[]) {
      if (!isObject(entry) || !Array.isArray(entry.hooks)) return false;
      for (const h of entry.hooks as unknown[])
        if (!isObject(h) || h.type !== 'command' || typeof h.command !== 'string') return false;
    }
  }
  return value.sources.every((s) => isObject(s) && typeof s.file === 'string' && Array.isArray(s.issues));
}

function readCache(file: string, key: string, warnings: LoadWarning[]): LoadedConfig | undefined {
  const read = readPrivateFile(file, MAX_CACHE_BYTES);
  if (!read.ok) {
    if (!read.missing)
      warnings.push({
        kind: 'config-cache',
        level: 'warn',
        message: `${read.problem}; validating the config afresh`,
      });
    return undefined;
  }
  try {
    const cached = JSON.parse(read.text) as { key?: unknown; value?: unknown };
    if (cached.key !== key) return undefined;
    if (looksLikeLoadedConfig(cached.value)) return cached.value;
  } catch {}
  warnings.push({
    kind: 'config-cache',
    level: 'warn',
    message: `${file} is malformed; validating the config afresh`,
  });
  return undefined;
}

export function loadConfig(options: LoadOptions): LoadedConfig {
  const env = options.env ?? process.env;
  const useCache = options.useCache !== false;
  const files = configFiles(env, options.projectDir);
  const warnings: LoadWarning[] = [];
  const cacheDir = join(stateDir(env), 'config-cache');

  // The cache key: the schema, each file's fingerprint (size, mtime, ctime, inode: any write changes
  // ctime; for the project file, its `.hookd` folder and itself as entries, a link seen as a link) and,
  // with a project file, the trust file's. A hit needs no read, no hash, no zod.
  const currentKey = () =>
    `${SCHEMA_ID}|${files
      .map((f) =>
        f.projectDir === undefined
          ? `${f.level}=${fingerprint(f.file)}`
          : `${f.level}=${f.file}:${projectConfigStamp(f.projectDir)}`,
      )
      .join('|')}` + (files.length > 1 ? `|trust=${fingerprint(trustFilePath(env))}` : '');
  const key = currentKey();
  const names = files.map((f) => f.file).join('\0');
  const cacheFile = join(cacheDir, `${fnv1a(names)}.json`);
  // The memo holds what the disk cache would give for this key (its own warnings aside).
  const memory = useCache ? options.memory : undefined;
  const memoKey = `${cacheDir}\0${names}`;
  if (memory) {
    const hit = memory.get(memoKey, key);
    if (hit) return { ...hit, cached: true };
  }
  if (useCache) {
    const cacheWarnings: LoadWarning[] = [];
    const cached = readCache(cacheFile, key, cacheWarnings);
    if (cached) {
      memory?.set(memoKey, key, cached);
      const all = [...(cached.warnings ?? []), ...cacheWarnings];
      return { ...cached, cached: true, ...(all.length > 0 ? { warnings: all } : {}) };
    }
    warnings.push(...cacheWarnings);
  }

  return loadFresh({
    env,
    files,
    validator: options.validator,
    cacheDir,
    recordLastGood: options.recordLastGood ?? useCache,
    warnings,
    ...(useCache
      ? { cache: { file: cacheFile, key, currentKey, remember: (value) => memory?.set(memoKey, key, value) } }
      : {}),
  });
}

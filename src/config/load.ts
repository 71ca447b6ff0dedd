import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { HookdConfig } from './schema.js';
import type { ConfigIssue } from './issues.js';
import { fnv1a } from '../util/fast.js';
import { describeReadError } from '../util/read-error.js';
import { projectConfigPath, stateDir, userConfigPath, type Env } from '../paths.js';

/**
 * Finding and loading the config. This module is on the hook's start-up path, so it imports no zod:
 * a validated result is cached per file fingerprint (path, size, mtime, inode) and the validator,
 * which pulls in zod, is loaded only when a file changed.
 */

export interface ConfigSource {
  level: 'user' | 'project';
  file: string;
  exists: boolean;
  /** False when the file exists but is invalid; its content is then ignored, like the agent does. */
  ok: boolean;
  issues: ConfigIssue[];
}

export interface LoadedConfig {
  config: HookdConfig;
  sources: ConfigSource[];
  entryOrigins: Record<string, string[]>;
  /** True when the result came from the cache (the validator was not loaded). */
  cached?: boolean;
}

/** What the zod side provides; injected so the hook path loads it only on a cache miss. */
export interface ConfigValidator {
  resolveConfig(
    files: readonly { level: 'user' | 'project'; file: string; text: string | null }[],
  ): LoadedConfig;
}

export interface LoadOptions {
  env?: Env;
  projectDir?: string | undefined;
  validator: () => ConfigValidator;
  /** Set false to skip the on-disk cache (the CLI's `config` and `validate` always re-validate). */
  useCache?: boolean;
}

/**
 * What produced a cached result: set at build time to a hash of src/config (scripts/build.mjs), so an
 * upgraded hookd never reuses results validated by an older schema. Running from source: "source".
 */
declare const __HOOKD_CONFIG_SCHEMA_ID__: string | undefined;
const SCHEMA_ID = typeof __HOOKD_CONFIG_SCHEMA_ID__ === 'string' ? __HOOKD_CONFIG_SCHEMA_ID__ : 'source';

/** The cache key: the schema that validated, and each file's path, size, mtime and inode. */
function cacheKey(files: readonly { level: string; file: string }[]): string {
  return `${SCHEMA_ID}|${files.map((f) => `${f.level}=${fingerprint(f.file)}`).join('|')}`;
}

function fingerprint(file: string): string {
  try {
    const st = statSync(file);
    return `${file}:${st.size}:${st.mtimeMs}:${st.ino}`;
  } catch {
    return `${file}:absent`;
  }
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

export function configFiles(
  env: Env,
  projectDir: string | undefined,
): { level: 'user' | 'project'; file: string }[] {
  const files: { level: 'user' | 'project'; file: string }[] = [{ level: 'user', file: userConfigPath(env) }];
  if (projectDir && !env.HOOKD_NO_PROJECT_CONFIG) {
    const project = projectConfigPath(projectDir);
    if (project !== files[0]!.file) files.push({ level: 'project', file: project });
  }
  return files;
}

export function loadConfig(options: LoadOptions): LoadedConfig {
  const env = options.env ?? process.env;
  const files = configFiles(env, options.projectDir);
  const key = cacheKey(files);
  const cacheFile = join(stateDir(env), 'config-cache', `${fnv1a(files.map((f) => f.file).join('\0'))}.json`);
  if (options.useCache !== false) {
    try {
      const cached = JSON.parse(readFileSync(cacheFile, 'utf8')) as { key: string; value: LoadedConfig };
      if (cached.key === key) return { ...cached.value, cached: true };
    } catch {}
  }
  const texts = files.map((f) => {
    try {
      return { ...f, text: readText(f.file) };
    } catch (error) {
      return { ...f, text: null, readError: describeReadError(error, f.file) };
    }
  });
  const value = options.validator().resolveConfig(texts);
  for (const t of texts) {
    if ('readError' in t && t.readError) {
      const source = value.sources.find((s) => s.file === t.file);
      if (source) {
        source.ok = false;
        source.exists = true;
        source.issues.push({
          file: t.file,
          path: '(root)',
          message: `cannot read: ${t.readError.reason}`,
          fix: t.readError.fix,
        });
      }
    }
  }
  // Only cache when the files did not change while we read them.
  if (options.useCache !== false && key === cacheKey(files)) {
    try {
      mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ key, value }), { mode: 0o600 });
      renameSync(tmp, cacheFile);
    } catch {}
  }
  return value;
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfigFileInput, ConfigValidator, LoadedConfig, LoadWarning } from './loaded.js';
import type { ConfigLevel } from './merge.js';
import { readProjectConfig, readTrust, trustOf, type ProjectConfigRead } from './trust.js';
import { fnv1a } from '../util/fnv1a.js';
import { describeReadError } from '../util/text/read-error.js';
import { readPrivateFile, writePrivateFileAtomic } from '../util/private-fs.js';
import type { Env } from '../paths.js';

/**
 * Loading the config when no cached result fits (a file, the trust file or the schema changed): read the
 * files, decide the project file's trust, validate with zod, keep the last good user file and cache the
 * result. Split from load.ts so that the hook, whose config is almost always unchanged since the last
 * event, loads this part (and the trust code) only on a miss (it comes from its own chunk of the hook
 * bundle, scripts/build.mjs).
 */

/** The same bound as the result cache: a last-good record is at most a config file and a little more. */
const MAX_LAST_GOOD_BYTES = 16 * 1024 * 1024;

export interface FreshLoad {
  env: Env;
  files: { level: ConfigLevel; file: string; projectDir?: string }[];
  validator: () => ConfigValidator;
  /** Where the result cache and the last good user file live. */
  cacheDir: string;
  /** Save a valid user file as the last good config. */
  recordLastGood: boolean;
  /** Problems met before validating (a cache that could not be read). */
  warnings: LoadWarning[];
  /**
   * Where to cache the result: the key it is valid under, a way to take the key again (a file changed
   * while it was read: not cached), and the memo to tell. Absent: not cached.
   */
  cache?: { file: string; key: string; currentKey: () => string; remember: (value: LoadedConfig) => void };
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function readLastGood(file: string, configFile: string): { text: string; savedAt: string } | undefined {
  const read = readPrivateFile(file, MAX_LAST_GOOD_BYTES);
  if (!read.ok) return undefined;
  try {
    const record = JSON.parse(read.text) as Record<string, unknown>;
    if (
      record.v === 1 &&
      record.file === configFile &&
      typeof record.text === 'string' &&
      typeof record.savedAt === 'string'
    )
      return { text: record.text, savedAt: record.savedAt };
  } catch {}
  return undefined;
}

/** Reads, judges and validates the config files, then caches the result (see FreshLoad). */
export function loadFresh(load: FreshLoad): LoadedConfig {
  const { env, files, cacheDir, warnings, cache } = load;
  const user = files[0]!;

  // The project file, read without following a link inside the project (config/trust.ts): its bytes,
  // their hash (node:crypto is loaded only here, when a project file exists and changed), and whether
  // the user trusted exactly these bytes in this project dir.
  const inputs: ConfigFileInput[] = [];
  const trustWarnings: LoadWarning[] = [];
  for (const { level, file, projectDir } of files.slice(1)) {
    let read: ProjectConfigRead | undefined;
    try {
      read = readProjectConfig(projectDir!);
    } catch (error) {
      inputs.push({ level, file, text: null, readError: describeReadError(error, file), apply: false });
      continue;
    }
    if (read.kind === 'absent') {
      inputs.push({ level, file, text: null });
      continue;
    }
    const trusted = readTrust(env);
    if (trusted.problem)
      trustWarnings.push({
        kind: 'trust-file',
        level: 'error',
        message: `${trusted.problem}; no project config is trusted until it is fixed (hookd trust <dir> rewrites it)`,
      });
    const trust = trustOf(trusted.data, read);
    const text = read.kind === 'file' ? read.bytes.toString('utf8') : null;
    inputs.push({ level, file, text, trust, apply: trust.state === 'trusted' });
  }

  const lastGoodFile = join(cacheDir, `last-good-${fnv1a(user.file)}.json`);
  const lastGood = readLastGood(lastGoodFile, user.file);
  let userInput: ConfigFileInput;
  try {
    userInput = { ...user, text: readText(user.file) };
  } catch (error) {
    userInput = { ...user, text: null, readError: describeReadError(error, user.file) };
  }
  if (lastGood) userInput.lastGood = lastGood;
  const value = load.validator().resolveConfig([userInput, ...inputs]);

  const userSource = value.sources[0];
  if (load.recordLastGood && userSource?.ok && userInput.text !== null && userInput.text !== lastGood?.text) {
    try {
      const savedAt = new Date().toISOString();
      writePrivateFileAtomic(
        lastGoodFile,
        JSON.stringify({ v: 1, file: user.file, savedAt, text: userInput.text }),
      );
    } catch {}
  }
  // Kept with the cached result: the trust file's problem lasts as long as its fingerprint.
  if (trustWarnings.length > 0) value.warnings = trustWarnings;
  // Only cache when no file changed while we read them.
  if (cache && cache.key === cache.currentKey()) {
    try {
      writePrivateFileAtomic(cache.file, JSON.stringify({ key: cache.key, value }));
    } catch {}
    cache.remember(value);
  }
  const all = [...trustWarnings, ...warnings];
  return all.length > 0 ? { ...value, warnings: all } : value;
}

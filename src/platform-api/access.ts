import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { ApiAccessError } from './errors.js';
import { API_DEFAULTS, type ApiConfig } from '../config/schemas/api-schema.js';
import type { Env } from '../paths.js';

/** Where the URLs and the key of the platform API come from, resolved once at the edge. */
export interface ApiAccess {
  baseUrl: string;
  appUrl: string;
  apiKey: string;
  /** Where the key was found (never the key itself). */
  keySource: 'HOOKD_API_KEY' | 'FACTORY_API_KEY' | 'keyFile';
  keyFile?: string | undefined;
  timeoutMs: number;
  retries: number;
}

function expandHome(path: string, env: Env): string {
  if (path === '~' || path.startsWith('~/')) return `${env.HOME || homedir()}${path.slice(1)}`;
  return isAbsolute(path) ? path : resolve(path);
}

/** Reads a key file, refusing one that group or others can access (like ssh does). */
export function readKeyFile(path: string, platform: NodeJS.Platform = process.platform): string {
  let mode: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new ApiAccessError(`API key file ${path} is not a regular file`);
    mode = st.mode;
  } catch (error) {
    if (error instanceof ApiAccessError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new ApiAccessError(
      `cannot read the API key file ${path} (${code ?? (error as Error).message})`,
      'check api.keyFile in the config, or set HOOKD_API_KEY',
    );
  }
  if (platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new ApiAccessError(
      `API key file ${path} is accessible by group or others (mode ${(mode & 0o777).toString(8).padStart(4, '0')}); refusing to use it`,
      `restrict it to its owner: chmod 600 ${path}`,
    );
  }
  const key = readFileSync(path, 'utf8').trim();
  if (!key)
    throw new ApiAccessError(`API key file ${path} is empty`, 'put the key on the first line of the file');
  return key;
}

/**
 * URLs: HOOKD_API_URL / HOOKD_APP_URL, then config api.baseUrl / api.appUrl, then the real hosts.
 * Key: HOOKD_API_KEY, then FACTORY_API_KEY, then the file named by api.keyFile.
 */
export function resolveApiAccess(env: Env, config: ApiConfig | undefined): ApiAccess {
  const baseUrl = env.HOOKD_API_URL || config?.baseUrl || API_DEFAULTS.baseUrl;
  const appUrl = env.HOOKD_APP_URL || config?.appUrl || API_DEFAULTS.appUrl;
  const common = {
    baseUrl,
    appUrl,
    timeoutMs: config?.timeoutMs ?? API_DEFAULTS.timeoutMs,
    retries: config?.retries ?? API_DEFAULTS.retries,
  };
  for (const name of ['HOOKD_API_KEY', 'FACTORY_API_KEY'] as const) {
    const value = env[name]?.trim();
    if (value) return { ...common, apiKey: value, keySource: name };
  }
  if (config?.keyFile) {
    const keyFile = expandHome(config.keyFile, env);
    return { ...common, apiKey: readKeyFile(keyFile), keySource: 'keyFile', keyFile };
  }
  throw new ApiAccessError(
    'no API key: HOOKD_API_KEY and FACTORY_API_KEY are unset and the config has no api.keyFile',
    'create a key in the API-keys settings page of the web app, then export HOOKD_API_KEY=... or set api.keyFile',
  );
}

import { loadConfig, type LoadedConfig } from '../config/load.js';
import { validator } from '../config/resolve.js';
import type { ConfigIssue } from '../config/issues.js';
import type { Env } from '../paths.js';
import { result, type CheckResult } from './types.js';

export interface ConfigCheck {
  result: CheckResult;
  /** The config as hooks would use it (invalid files ignored); undefined when it could not be loaded at all. */
  loaded?: LoadedConfig;
}

function issueLine(issue: ConfigIssue): string {
  const value = issue.value !== undefined ? ` (value: ${JSON.stringify(issue.value)?.slice(0, 80)})` : '';
  const fix = issue.fix ? `; fix: ${issue.fix}` : '';
  return `${issue.file}: ${issue.path}: ${issue.message}${value}${fix}`;
}

/** Loads and validates the user and project configs afresh (no cache), reporting every issue with its path. */
export function checkConfig(env: Env, projectDir: string): ConfigCheck {
  const title = 'hookd config';
  let loaded: LoadedConfig;
  try {
    loaded = loadConfig({ env, projectDir, validator: () => validator, useCache: false });
  } catch (error) {
    return {
      result: result(
        'config',
        title,
        'fail',
        `cannot load the config: ${(error as Error).message}`,
        'check that the config files are readable (hookd config shows where they are)',
      ),
    };
  }
  const issues = loaded.sources.flatMap((s) => s.issues);
  const present = loaded.sources.filter((s) => s.exists);
  if (issues.length > 0) {
    const ignored = loaded.sources.filter((s) => !s.ok).map((s) => s.file);
    return {
      loaded,
      result: result(
        'config',
        title,
        'fail',
        [`${ignored.join(', ')} ignored (hooks run as if it did not exist):`, ...issues.map(issueLine)].join(
          '\n',
        ),
        'fix each issue above (`hookd validate` shows them too); hookd uses a file again once it is valid',
      ),
    };
  }
  const detail =
    present.length === 0
      ? `no config file (${loaded.sources.map((s) => s.file).join(', ')}); built-in defaults apply`
      : `valid: ${present.map((s) => `${s.file} (${s.level})`).join(', ')}`;
  return { loaded, result: result('config', title, 'ok', detail) };
}

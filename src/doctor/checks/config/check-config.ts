import { dirname } from 'node:path';
import { loadConfig, type LoadedConfig } from '../../../config/load.js';
import { untrustedFix, untrustedText } from '../../../config/trust.js';
import { validator } from '../../../config/resolve.js';
import type { ConfigIssue } from '../../../config/issues.js';
import type { Env } from '../../../paths.js';
import { result, type CheckResult } from '../../types.js';

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
  const warnings = (loaded.warnings ?? []).map((w) => w.message);
  const untrusted = loaded.sources.filter((s) => s.exists && s.trust && s.trust.state !== 'trusted');
  const trustLines = untrusted.map(
    (s) =>
      `${s.file} is ${untrustedText(s.trust!)}${s.trust!.lapsed ? ' (trust lapsed: its commands no longer run)' : ''}: hooks run as if it did not exist`,
  );
  const trustFix = untrusted.map((s) => untrustedFix(s.trust!, dirname(dirname(s.file))));
  if (issues.length > 0) {
    const invalid = loaded.sources.filter((s) => !s.ok);
    const ignored = invalid.filter((s) => !s.lastGood).map((s) => s.file);
    const lines = invalid
      .filter((s) => s.lastGood)
      .map(
        (s) =>
          `${s.file} is invalid: hooks run the last config that validated (saved ${s.lastGood!.savedAt}) until it is fixed:`,
      );
    if (ignored.length > 0)
      lines.unshift(`${ignored.join(', ')} ignored (hooks run as if it did not exist):`);
    return {
      loaded,
      result: result(
        'config',
        title,
        'fail',
        [...lines, ...issues.map(issueLine), ...trustLines, ...warnings].join('\n'),
        [
          'fix each issue above (`hookd validate` shows them too); hookd uses a file again once it is valid',
          ...(trustFix.length > 0
            ? [`to apply a project file, review it, then: ${trustFix.join('; ')}`]
            : []),
        ].join('; '),
      ),
    };
  }
  if (untrusted.length > 0 || warnings.length > 0) {
    return {
      loaded,
      result: result(
        'config',
        title,
        'warn',
        [...trustLines, ...warnings].join('\n'),
        trustFix.length > 0
          ? `review the file, then trust it: ${trustFix.join('; ')}`
          : 'see the lines above: `hookd trust <dir>` rewrites a damaged trust file; a refused cache is rebuilt by itself',
      ),
    };
  }
  const detail =
    present.length === 0
      ? `no config file (${loaded.sources.map((s) => s.file).join(', ')}); built-in defaults apply`
      : `valid: ${present.map((s) => `${s.file} (${s.level}${s.trust ? ', trusted' : ''})`).join(', ')}`;
  return { loaded, result: result('config', title, 'ok', detail) };
}

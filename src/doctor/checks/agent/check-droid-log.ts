import { stat } from 'node:fs/promises';
import { formatDuration } from '../../../terminal/output.js';
import { basename } from 'node:path';
import { DROID_HOOKS_JSON } from '../../../install/agent-files.js';
import { readHooksFile } from '../../../install/effective-hooks.js';
import {
  scanDroidLogs,
  INVALID_HOOKS_FILE_MARKER,
  INVALID_HOOKS_MARKER,
  type InvalidHooksLine,
} from './droid-log.js';
import { result, worstStatus, type CheckResult, type CheckStatus } from '../../types.js';

const UNNAMED = '(settings file not named in the log)';

/** Whether a settings file Droid rejected is valid now, and when it last changed. */
async function currentState(file: string): Promise<{ exists: boolean; valid: boolean; mtimeMs?: number }> {
  const kind = basename(file) === DROID_HOOKS_JSON ? 'hooks-json' : 'settings';
  const read = await readHooksFile({ agent: 'droid', layer: 'user', kind, file });
  if (!read.exists) return { exists: false, valid: false };
  if (read.readError || !read.snapshot) return { exists: true, valid: false };
  try {
    return {
      exists: true,
      valid: read.report?.ok === true,
      mtimeMs: (await stat(read.snapshot.target)).mtimeMs,
    };
  } catch {
    return { exists: true, valid: false };
  }
}

function when(at: number | undefined, now: number): string {
  return at === undefined
    ? 'the log has no timestamps'
    : `last at ${new Date(at).toISOString()} (${formatDuration(Math.max(0, now - at))} ago)`;
}

/**
 * Has Droid logged `Invalid hooks in settings.json, ignoring`? Each settings file it names is looked
 * at again: one that changed since and validates now counts as fixed.
 */
export async function checkDroidLog(logDir: string, now: number): Promise<CheckResult> {
  const id = 'droid-log';
  const title = 'Droid log: rejected hooks';
  const scan = await scanDroidLogs(logDir);
  if (!scan) return result(id, title, 'skip', `no Droid log folder at ${logDir}`);
  if (scan.lines.length === 0)
    return result(
      id,
      title,
      'ok',
      `no "${INVALID_HOOKS_MARKER}" nor "${INVALID_HOOKS_FILE_MARKER}" in ${scan.files.length} log file(s) in ${logDir}`,
    );
  const byFile = new Map<string, InvalidHooksLine[]>();
  for (const line of scan.lines) {
    const key = line.settingsFile ?? UNNAMED;
    byFile.set(key, [...(byFile.get(key) ?? []), line]);
  }
  const lines: string[] = [];
  const statuses: CheckStatus[] = [];
  for (const [file, found] of byFile) {
    const stamped = found.filter((l) => l.at !== undefined);
    const last = stamped.length > 0 ? Math.max(...stamped.map((l) => l.at!)) : undefined;
    const head = `${file}: rejected ${found.length} time(s), ${when(last, now)}, in ${found.at(-1)!.logFile}`;
    const state = file === UNNAMED ? undefined : await currentState(file);
    if (state && !state.exists) {
      statuses.push('ok');
      lines.push(`${head}; the file no longer exists`);
    } else if (state?.valid && last !== undefined && state.mtimeMs !== undefined && state.mtimeMs > last) {
      statuses.push('ok');
      lines.push(
        `${head}; fixed since: changed later and valid now (Droid sessions started before still ignore it)`,
      );
    } else {
      statuses.push('fail');
      lines.push(`${head}; Droid ran none of its hooks`);
    }
  }
  const status = worstStatus(statuses);
  return result(
    id,
    title,
    status,
    lines.join('\n'),
    status === 'fail'
      ? 'fix the entries the settings checks list for that file, then start a new Droid session'
      : undefined,
  );
}

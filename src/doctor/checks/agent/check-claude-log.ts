import { stat } from 'node:fs/promises';
import { formatDuration } from '../../../terminal/output.js';
import { CLAUDE_SKIPPED_LINE, validateAgentHooks } from '../../../install/agent-hooks.js';
import { readSettingsFile } from '../../../settings-io/settings-file.js';
import { scanLogFolder } from './droid-log.js';
import { result, worstStatus, type CheckResult, type CheckStatus } from '../../types.js';

/** Newest debug logs looked at: Claude Code writes one per session with --debug. */
const MAX_FILES = 50;

/** Claude Code's words when the skipped entry disables the whole settings file. */
const WHOLE_FILE = 'nothing it sits in is applied';

export interface SkippedSetting {
  logFile: string;
  at?: number;
  settingsFile?: string;
  /** hookd's notation of the line's dotted path: `hooks.PreToolUse[1].hooks[0]`. */
  path?: string;
  message: string;
  wholeFile: boolean;
}

/**
 * Reads `<ISO time> [ERROR] Invalid setting skipped without dialog (automated session): <file>: <dotted
 * path>: <message>`, as Claude Code 2.1.330 writes it to `~/.claude/debug/<session>.txt` (--debug).
 */
export function parseSkippedSetting(line: string, logFile: string): SkippedSetting {
  const out: SkippedSetting = { logFile, message: line.trim(), wholeFile: line.includes(WHOLE_FILE) };
  const at = Date.parse(line.slice(0, line.indexOf(' ')));
  if (Number.isFinite(at)) out.at = at;
  const rest = /\(automated session\): (.+?\.json): ([^:]+): (.*)$/.exec(line);
  if (rest) {
    out.settingsFile = rest[1]!;
    out.path = rest[2]!.replace(/\.(\d+)(?=\.|$)/g, '[$1]');
    out.message = rest[3]!;
  }
  return out;
}

async function validNowAndChangedAfter(file: string, at: number | undefined): Promise<boolean> {
  try {
    const snapshot = await readSettingsFile(file);
    if (!snapshot.exists) return true;
    const report = validateAgentHooks(snapshot.data.hooks, 'claude');
    const mtimeMs = (await stat(snapshot.target)).mtimeMs;
    return report.problems.length === 0 && at !== undefined && mtimeMs > at;
  } catch {
    return false;
  }
}

/**
 * Has Claude Code skipped settings (`Invalid setting skipped` in its debug logs)? Headless sessions say
 * it nowhere else. A PreToolUse or PermissionRequest entry it cannot load disables the whole settings
 * file (fail); other entries are skipped alone (warn). A file changed since and valid now counts as fixed.
 */
export async function checkClaudeLog(debugDir: string, now: number): Promise<CheckResult> {
  const id = 'claude-log';
  const title = 'Claude Code debug log: skipped settings';
  const scan = await scanLogFolder(debugDir, {
    ext: '.txt',
    marker: CLAUDE_SKIPPED_LINE,
    parse: parseSkippedSetting,
    maxFiles: MAX_FILES,
  });
  if (!scan)
    return result(
      id,
      title,
      'skip',
      `no Claude Code debug logs at ${debugDir} (sessions run with --debug write them)`,
    );
  if (scan.lines.length === 0)
    return result(
      id,
      title,
      'ok',
      `no "${CLAUDE_SKIPPED_LINE}" in ${scan.files.length} debug log(s) in ${debugDir}`,
    );
  const byEntry = new Map<string, SkippedSetting[]>();
  for (const line of scan.lines) {
    const key = `${line.settingsFile ?? '(unnamed file)'}: ${line.path ?? '?'}`;
    byEntry.set(key, [...(byEntry.get(key) ?? []), line]);
  }
  const statuses: CheckStatus[] = [];
  const lines: string[] = [];
  for (const [key, found] of byEntry) {
    const last = found.at(-1)!;
    const stamp =
      last.at === undefined
        ? ''
        : `, last at ${new Date(last.at).toISOString()} (${formatDuration(Math.max(0, now - last.at))} ago)`;
    const head = `${key}: ${last.message} (${found.length} time(s)${stamp}, in ${last.logFile})`;
    if (last.settingsFile && (await validNowAndChangedAfter(last.settingsFile, last.at))) {
      statuses.push('ok');
      lines.push(`${head}; fixed since: the file changed later and is valid now`);
    } else if (found.some((l) => l.wholeFile)) {
      statuses.push('fail');
      lines.push(`${head}; Claude Code ignored this whole settings file, hookd's hooks included`);
    } else {
      statuses.push('warn');
      lines.push(`${head}; Claude Code skipped this entry alone`);
    }
  }
  const status = worstStatus(statuses);
  return result(
    id,
    title,
    status,
    [`"${CLAUDE_SKIPPED_LINE}" in Claude Code's debug logs:`, ...lines].join('\n'),
    status === 'ok'
      ? undefined
      : 'fix or remove the entries named (the settings checks list them too), then start a new Claude Code session',
  );
}

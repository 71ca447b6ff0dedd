import { basename } from 'node:path';
import { redactText } from '../logging/redact.js';
import { isObject, str } from '../util/json-values.js';
import { clipText } from '../util/text/clip-text.js';
import { safeLines, safeText } from '../util/text/safe-text.js';
import type { AskSummary } from './types.js';

/** Longest command shown to an approver, in characters. */
export const SUMMARY_COMMAND_MAX = 600;
/** Longest diff shown to an approver, in characters. */
export const SUMMARY_DIFF_MAX = 1200;

const AGENT_NAMES: Record<string, string> = { claude: 'Claude Code', droid: 'Droid' };

/** Cuts text to `max` characters, saying how many were cut. */
function cut(text: string, max: number): string {
  return clipText(text, max, (more) => ` (${more} more characters)`);
}

function clean(text: string, max: number, home?: string): string {
  return cut(safeLines(redactText(text, home ? { homePaths: true, home } : undefined)), max);
}

/** A few lines of "-old / +new" for an edit, when the call carries both. */
function shortDiff(input: Record<string, unknown>): string | undefined {
  const before = str(input.old_string);
  const after = str(input.new_string) ?? str(input.content);
  if (after === undefined) return undefined;
  const lines = [
    ...(before ?? '')
      .split('\n')
      .filter((line) => before !== undefined && line !== '')
      .map((l) => `-${l}`),
    ...after.split('\n').map((line) => `+${line}`),
  ];
  return lines.slice(0, 30).join('\n');
}

/**
 * What the approver sees: exactly what would run (the command, the file, a short diff), secrets redacted,
 * control characters escaped, every part bounded.
 */
export function summarizeCall(
  agent: string,
  tool: string,
  input: unknown,
  project: string,
  home?: string,
): AskSummary {
  const fields = isObject(input) ? input : {};
  const where = project ? basename(project) : 'a project';
  const summary: AskSummary = {
    title: cut(safeText(`${AGENT_NAMES[agent] ?? agent} wants to use ${tool} in ${where}`), 200),
    tool: cut(safeText(tool), 100),
  };
  const command = str(fields.command);
  if (command !== undefined) summary.command = clean(command, SUMMARY_COMMAND_MAX, home);
  const file = str(fields.file_path) ?? str(fields.path) ?? str(fields.notebook_path);
  if (file !== undefined) summary.filePath = clean(file, 400, home);
  const diff = shortDiff(fields);
  if (diff !== undefined) summary.diff = clean(diff, SUMMARY_DIFF_MAX, home);
  if (command === undefined && file === undefined && diff === undefined)
    summary.command = clean(JSON.stringify(fields), SUMMARY_COMMAND_MAX, home);
  return summary;
}

import { homedir } from 'node:os';
import { join } from 'node:path';
import { readRegularFile } from '../util/private-fs.js';
import { isObject, str } from '../util/json-values.js';

/**
 * Claude Code's `permissions.ask` rules: a call that matches one means "ask me at the keyboard", yet a
 * PermissionRequest hook's allow answers it (Claude lets it through). So a remote answer for such a call
 * may only deny. Matching errs on the side of "matches": a wrong match costs a remote allow, never safety.
 */

/** Largest settings file read. */
const MAX_SETTINGS_BYTES = 1024 * 1024;

/** The settings files whose `permissions.ask` Claude Code applies to a project: user, project, local. */
export function claudeSettingsFiles(env: Record<string, string | undefined>, project: string): string[] {
  const home = env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude');
  const files = [join(home, 'settings.json')];
  if (project)
    files.push(join(project, '.claude', 'settings.json'), join(project, '.claude', 'settings.local.json'));
  return files;
}

/** The `permissions.ask` rules of the files that exist and read as JSON. */
export function readAskRules(files: readonly string[]): string[] {
  const rules: string[] = [];
  for (const file of files) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readRegularFile(file, MAX_SETTINGS_BYTES).toString('utf8'));
    } catch {
      continue;
    }
    const ask = isObject(parsed) && isObject(parsed.permissions) ? parsed.permissions.ask : undefined;
    if (Array.isArray(ask)) for (const rule of ask) if (typeof rule === 'string') rules.push(rule);
  }
  return rules;
}

/** The parts of a shell command that Claude checks one by one (split at ;, &&, ||, |, newlines). */
function subcommands(command: string): string[] {
  return command
    .split(/&&|\|\||[;|\n]/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/** Whether one rule (`Tool` or `Tool(spec)`) covers this call. */
export function ruleMatches(rule: string, tool: string, input: unknown): boolean {
  const match = /^\s*([^()\s]+)\s*(?:\((.*)\))?\s*$/s.exec(rule);
  if (!match) return true;
  const [, ruleTool, spec] = match;
  if (ruleTool !== tool) return false;
  if (spec === undefined || spec === '' || spec === '*') return true;
  const command = isObject(input) ? str(input.command) : undefined;
  // A spec of a tool that is not a shell, or a call without a command: taken as covered.
  if (command === undefined) return true;
  const prefix = spec.endsWith(':*') ? spec.slice(0, -2) : spec.endsWith('*') ? spec.slice(0, -1) : undefined;
  const parts = [command.trim(), ...subcommands(command)];
  if (prefix === undefined) return parts.some((part) => part === spec.trim());
  return parts.some((part) => part.startsWith(prefix.trim()));
}

/**
 * Whether a remote answer to this PermissionRequest may only deny: the call matches a `permissions.ask`
 * rule, or the request carries no `permission_suggestions` (how Claude Code sends an ask-rule request).
 */
export function claudeDenyOnly(
  payload: Record<string, unknown>,
  rules: readonly string[],
): { denyOnly: boolean; why?: string } {
  const tool = str(payload.tool_name) ?? '';
  const rule = rules.find((r) => ruleMatches(r, tool, payload.tool_input));
  if (rule !== undefined) return { denyOnly: true, why: `matches the ask rule ${JSON.stringify(rule)}` };
  if (!Array.isArray(payload.permission_suggestions))
    return { denyOnly: true, why: 'the request carries no permission suggestions (an ask rule)' };
  return { denyOnly: false };
}

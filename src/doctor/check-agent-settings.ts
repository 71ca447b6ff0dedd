import { CLAUDE_SKIPPED_LINE, type AgentHooksProblem } from '../install/agent-hooks.js';
import { AGENT_PROFILES, type Agent } from '../install/agents.js';
import type { Env } from '../paths.js';
import { agentName, hookdHooksOf, type HookdHook, type SettingsFileState } from './agent-settings.js';
import { missingProgram, needsNodeOnPath } from './hookd-program.js';
import { result, type CheckResult } from './types.js';

function problemLine(file: string, p: AgentHooksProblem): string {
  const value = p.value !== undefined ? ` (value: ${JSON.stringify(p.value)?.slice(0, 80)})` : '';
  return `${file}: ${p.path}: ${p.severity}: ${p.message}${value}; fix: ${p.fix}`;
}

/** Is this settings file readable, and are its hooks ones the agent accepts? */
export function checkSettingsFile(state: SettingsFileState): CheckResult {
  const id = `${state.agent}-settings-${state.scope}`;
  const title = `${agentName(state.agent)} settings (${state.scope})`;
  if (!state.exists) return result(id, title, 'skip', `${state.file} not present`);
  if (state.readError) {
    return result(
      id,
      title,
      'fail',
      `${state.readError.message}; ${agentName(state.agent)} cannot read it either, so none of its hooks run`,
      state.readError.hint ?? `fix ${state.file} by hand`,
    );
  }
  const problems = state.report?.problems ?? [];
  const errors = problems.filter((p) => p.severity === 'error');
  const lines = problems.map((p) => problemLine(state.file, p));
  if (errors.length > 0) {
    return result(
      id,
      title,
      'fail',
      [
        state.agent === 'claude'
          ? `${state.file}: Claude Code skips this whole settings file (every hook and setting in it) for a PreToolUse/PermissionRequest entry it cannot load; headless, it says so only in its debug log ("${CLAUDE_SKIPPED_LINE}"):`
          : `${state.file}: ${agentName(state.agent)} rejects its hooks and ignores every hook in this file:`,
        ...lines,
      ].join('\n'),
      `fix (or remove) the ${errors.length === 1 ? 'entry' : 'entries'} listed above in ${state.file}`,
    );
  }
  if (state.agent === 'droid' && state.data?.hooksDisabled === true) {
    return result(
      id,
      title,
      'warn',
      `${state.file}: hooksDisabled is true, so Droid runs no hooks at all`,
      `remove "hooksDisabled": true from ${state.file}`,
    );
  }
  const hooks = state.data?.hooks;
  const events = hooks && typeof hooks === 'object' ? Object.keys(hooks).length : 0;
  if (problems.length > 0) {
    return result(
      id,
      title,
      'warn',
      [`${state.file}: accepted, but some hooks do not work as written:`, ...lines].join('\n'),
      'fix the entries listed above',
    );
  }
  return result(
    id,
    title,
    'ok',
    `${state.file}: valid (${events} event${events === 1 ? '' : 's'} with hooks)`,
  );
}

/** A tool-name matcher on a tool event, as install writes it for tool-matched hooks (checked by check-wiring). */
function isToolMatcher(event: string, matcher: unknown): boolean {
  return (
    (event === 'PreToolUse' || event === 'PostToolUse') &&
    typeof matcher === 'string' &&
    /^[A-Za-z0-9_]+(\|[A-Za-z0-9_]+)*$/.test(matcher)
  );
}

function isCatchAll(matcher: unknown): boolean {
  return matcher === undefined || matcher === '' || matcher === '*';
}

/**
 * Is hookd wired into this agent for every event, through a hookd whose program exists? Looks at the
 * user and project settings together (the agent merges them).
 */
export function checkAgentWiring(agent: Agent, states: readonly SettingsFileState[], env: Env): CheckResult {
  const profile = AGENT_PROFILES[agent];
  const id = `${agent}-hooks`;
  const title = `${profile.displayName} runs hookd`;
  const install = `hookd install --agent ${agent}`;
  const hooks: HookdHook[] = states.flatMap(hookdHooksOf);
  if (hooks.length === 0) {
    const rejected = states.filter((s) => s.exists && (s.readError || !s.report?.ok)).map((s) => s.file);
    const why =
      rejected.length > 0
        ? `hookd's hooks, if any, are in a file ${profile.displayName} rejects (${rejected.join(', ')})`
        : `no settings file wires hookd (${states.map((s) => s.file).join(', ')})`;
    // Droid is hookd's main agent: not wired there is worth a warning; Claude Code is optional.
    const status = agent === 'droid' || rejected.length > 0 ? 'warn' : 'skip';
    return result(id, title, status, why, install);
  }
  const broken = new Map<string, string[]>();
  for (const hook of hooks) {
    const problem = missingProgram(hook.command, env);
    if (problem) broken.set(problem, [...(broken.get(problem) ?? []), `${hook.file}: ${hook.path}`]);
  }
  // Which events should be wired is the config's business: check `<agent>-wiring` (check-wiring.ts).
  const wired = new Set(hooks.map((h) => h.event));
  // A matcher hookd's own install chose (the config's tool matchers) is checked by `<agent>-wiring`.
  const limited = hooks.filter((h) => !isCatchAll(h.matcher) && !isToolMatcher(h.event, h.matcher));
  const twice = profile.defaultEvents.filter(
    (e) => new Set(hooks.filter((h) => h.event === e).map((h) => h.command)).size > 1,
  );
  const lines: string[] = [];
  for (const [problem, where] of broken) lines.push(`hookd command broken: ${problem} (${where.join(', ')})`);
  for (const h of limited)
    lines.push(`${h.file}: ${h.path}: only runs for matcher ${JSON.stringify(h.matcher)}`);
  if (twice.length > 0) lines.push(`two different hookd commands run for: ${twice.join(', ')}`);
  const pathBound = [...new Set(hooks.map((h) => h.command).filter(needsNodeOnPath))];
  for (const command of pathBound)
    lines.push(
      `${command}: starts node through the agent's PATH (#!/usr/bin/env node); an agent started without node on its PATH skips every hook`,
    );
  if (broken.size > 0) {
    return result(
      id,
      title,
      'fail',
      lines.join('\n'),
      `run \`${install}\` again from the hookd you want to use, with the node you want it to run on (it writes both absolute paths in place)`,
    );
  }
  if (lines.length > 0) return result(id, title, 'warn', lines.join('\n'), `run \`${install}\``);
  const files = [...new Set(hooks.map((h) => h.file))].join(', ');
  const programs = [...new Set(hooks.map((h) => h.command))].join(', ');
  return result(
    id,
    title,
    'ok',
    `${wired.size} event${wired.size === 1 ? '' : 's'} wired (${files}): ${programs}`,
  );
}

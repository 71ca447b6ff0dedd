import { validateAgentHooks, type AgentHooksReport } from '../install/agent-hooks.js';
import { AGENT_PROFILES, locateSettingsFile, type Agent, type Scope } from '../install/agents.js';
import { isHookdCommand } from '../install/hookd-command.js';
import { readSettingsFile } from '../install/settings-file.js';
import { CliError } from '../errors.js';
import type { Env } from '../paths.js';
import { isObject } from '../util/json-values.js';

/** An agent settings file as the doctor sees it: read once, shared by the file and wiring checks. */
export interface SettingsFileState {
  agent: Agent;
  scope: Scope;
  file: string;
  exists: boolean;
  /** Set when the file exists but cannot be used (unreadable, not JSON, not an object). */
  readError?: { message: string; hint?: string };
  data?: Record<string, unknown>;
  report?: AgentHooksReport;
}

/** One hookd hook found in a settings file. */
export interface HookdHook {
  file: string;
  event: string;
  /** `hooks.Stop[0].hooks[1]` */
  path: string;
  command: string;
  matcher?: unknown;
}

export async function inspectSettingsFile(
  agent: Agent,
  scope: Scope,
  env: Env,
  projectDir: string,
): Promise<SettingsFileState> {
  const { file } = locateSettingsFile({ agent, scope, env, projectDir });
  try {
    const snapshot = await readSettingsFile(file);
    if (!snapshot.exists) return { agent, scope, file, exists: false };
    return {
      agent,
      scope,
      file,
      exists: true,
      data: snapshot.data,
      report: validateAgentHooks(snapshot.data.hooks, agent),
    };
  } catch (error) {
    const hint = error instanceof CliError ? error.hint : undefined;
    return {
      agent,
      scope,
      file,
      exists: true,
      readError: { message: (error as Error).message, ...(hint ? { hint } : {}) },
    };
  }
}

/** hookd's own hooks in a settings file the agent accepts (a rejected file runs none of its hooks). */
export function hookdHooksOf(state: SettingsFileState): HookdHook[] {
  if (!state.data || !state.report?.ok) return [];
  const hooks = state.data.hooks;
  if (!isObject(hooks)) return [];
  const found: HookdHook[] = [];
  for (const [event, entries] of Object.entries(hooks)) {
    if (!Array.isArray(entries)) continue;
    entries.forEach((entry, e) => {
      if (!isObject(entry) || !Array.isArray(entry.hooks)) return;
      entry.hooks.forEach((hook, h) => {
        if (!isObject(hook) || !isHookdCommand(hook.command)) return;
        found.push({
          file: state.file,
          event,
          path: `hooks.${event}[${e}].hooks[${h}]`,
          command: hook.command as string,
          ...('matcher' in entry ? { matcher: entry.matcher } : {}),
        });
      });
    });
  }
  return found;
}

export function agentName(agent: Agent): string {
  return AGENT_PROFILES[agent].displayName;
}

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

/** One hook object of a settings file the agent accepts, with where it is. */
export interface HookAt {
  event: string;
  /** `hooks.Stop[0].hooks[1]` */
  path: string;
  entry: Record<string, unknown>;
  hook: unknown;
}

/** Every hook object of a settings file the agent accepts (a rejected file runs none of its hooks). */
export function hooksIn(state: SettingsFileState): HookAt[] {
  if (!state.data || !state.report?.ok) return [];
  const hooks = state.data.hooks;
  if (!isObject(hooks)) return [];
  const found: HookAt[] = [];
  for (const [event, entries] of Object.entries(hooks)) {
    if (!Array.isArray(entries)) continue;
    entries.forEach((entry, e) => {
      if (!isObject(entry) || !Array.isArray(entry.hooks)) return;
      entry.hooks.forEach((hook, h) =>
        found.push({ event, path: `hooks.${event}[${e}].hooks[${h}]`, entry, hook }),
      );
    });
  }
  return found;
}

/** hookd's own command hooks in a settings file the agent accepts. */
export function hookdHooksOf(state: SettingsFileState): HookdHook[] {
  return hooksIn(state).flatMap(({ event, path, entry, hook }) =>
    isObject(hook) && isHookdCommand(hook.command)
      ? [
          {
            file: state.file,
            event,
            path,
            command: hook.command as string,
            ...('matcher' in entry ? { matcher: entry.matcher } : {}),
          },
        ]
      : [],
  );
}

export function agentName(agent: Agent): string {
  return AGENT_PROFILES[agent].displayName;
}

import { ADAPTERS } from '../../../agents/adapters/registry.js';
import { dirname } from 'node:path';
import {
  agentHooksFiles,
  claudeManagedDir,
  claudeManagedDropIns,
  type Layer,
} from '../../../install/agent-files.js';
import { AGENT_PROFILES, type Agent } from '../../../install/agents.js';
import { readHooksFile, type HookAt, type HooksFileRead } from '../../../install/effective-hooks.js';
import { hookdHooksAt } from '../../../install/hookd-layers.js';
import { shellQuote } from '../../../install/hookd-command.js';
import { isObject } from '../../../util/json-values.js';
import type { Env } from '../../../paths.js';

/** One file of the agent's hooks as the doctor sees it: read once, shared by every check. */
export type SettingsFileState = HooksFileRead;

/** One hookd hook the agent runs. */
export interface HookdHook {
  file: string;
  layer: Layer;
  event: string;
  /** `hooks.Stop[0].hooks[1]` */
  path: string;
  command: string;
  matcher?: unknown;
}

export interface InspectOptions {
  /** Claude Code's managed settings folder (default: the platform's). */
  claudeManagedDir?: string;
}

/**
 * Every file whose hooks the agent reads (agentHooksFiles), read: Droid's user and project
 * settings.json and hooks.json; Claude Code's user, project, local and managed settings.
 */
export async function inspectAgentFiles(
  agent: Agent,
  env: Env,
  projectDir: string,
  options: InspectOptions = {},
): Promise<SettingsFileState[]> {
  const managed = options.claudeManagedDir ?? claudeManagedDir();
  const files = agentHooksFiles(agent, {
    env,
    projectDir,
    claudeManagedDir: managed,
    claudeManagedDropIns: ADAPTERS[agent].settings.managedDir ? claudeManagedDropIns(managed) : [],
  });
  return Promise.all(files.map(readHooksFile));
}

function toHookdHook(h: HookAt): HookdHook {
  return {
    file: h.file,
    layer: h.layer,
    event: h.event,
    path: h.path,
    command: isObject(h.hook) && typeof h.hook.command === 'string' ? h.hook.command : '',
    ...('matcher' in h.entry ? { matcher: h.entry.matcher } : {}),
  };
}

/** hookd's command hooks the agent runs (a hook another file shadows does not run). */
export function runningHookdHooks(states: readonly SettingsFileState[]): HookdHook[] {
  return hookdHooksAt(states)
    .filter((h) => !h.shadowedBy && isObject(h.hook) && typeof h.hook.command === 'string')
    .map(toHookdHook);
}

export function agentName(agent: Agent): string {
  return AGENT_PROFILES[agent].displayName;
}

/**
 * The `hookd install` that wires hookd where it is wired now: the user scope when hookd runs from it
 * (or nowhere), else the project scope, else the local file; `--transport node` when every hookd
 * entry there takes the Node path.
 */
export function installCommandFor(
  agent: Agent,
  states: readonly SettingsFileState[],
  options: { node?: boolean } = {},
): string {
  const layers = new Set(hookdHooksAt(states).map((h) => h.layer));
  const base = `hookd install --agent ${agent}`;
  const node = options.node ? ' --transport node' : '';
  if (layers.size === 0 || layers.has('user')) return `${base}${node}`;
  // The project's settings file is always `<project>/.factory/settings.json` or `.claude/settings.json`.
  const project = states.find((s) => s.layer === 'project' && s.kind === 'settings');
  if (layers.has('project') && project)
    return `${base} --scope project --project ${shellQuote(dirname(dirname(project.file)))}`;
  const local = states.find((s) => s.layer === 'local');
  if (layers.has('local') && local) return `${base} --file ${shellQuote(local.file)}${node}`;
  return `${base}${node}`;
}

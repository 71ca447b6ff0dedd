import { UsageError } from '../errors.js';
import type { Env } from '../paths.js';
import { validateAgentHooks, type AgentHooksProblem } from './agent-hooks.js';
import { AGENT_PROFILES, locateSettingsFile, type Agent, type Scope } from './agents.js';
import {
  applyJsonEdit,
  assertAgentAccepts,
  assertWritableHooks,
  planJsonEdit,
  type FileChange,
} from './edit-settings.js';
import { buildHookdCommand } from './hookd-command.js';
import { mergeHookdEntries, removeHookdEntries, type AgentHooks, type EventAction } from './merge-hooks.js';
import { readSettingsFile } from './settings-file.js';

/** Where and for which agent: shared by install, uninstall and import. */
export interface SettingsTarget {
  agent: Agent;
  scope: Scope;
  /** Project folder for scope "project" (default: the current directory). */
  projectDir?: string;
  /** An explicit settings file, instead of the scope's. */
  file?: string;
  env?: Env;
  dryRun?: boolean;
  now?: () => Date;
}

export interface InstallOptions extends SettingsTarget {
  /** Absolute path of the hookd program to wire in (the CLI passes its own). */
  hookdPath: string;
  /** Events to wire (default: the agent's default set). */
  events?: readonly string[];
  /** Seconds written as the agent-side timeout of each hookd entry. */
  timeoutSec?: number;
  /** The node written into a user-scope command (default: the node running this install). */
  nodePath?: string;
}

export interface InstallResult extends FileChange {
  agent: Agent;
  scope: Scope;
  dryRun: boolean;
  command: string;
  events: { event: string; action: EventAction }[];
  /** Problems the agent tolerates but that do not do what they look like (never ours). */
  warnings: AgentHooksProblem[];
}

export interface UninstallResult extends FileChange {
  agent: Agent;
  scope: Scope;
  dryRun: boolean;
  removed: { event: string; count: number }[];
  warnings: AgentHooksProblem[];
}

/** The events to wire: checked against the agent's known events, duplicates dropped, order kept. */
export function resolveEvents(agent: Agent, events: readonly string[] | undefined): string[] {
  const profile = AGENT_PROFILES[agent];
  if (!events || events.length === 0) return [...profile.defaultEvents];
  const unknown = events.filter((e) => !profile.knownEvents.includes(e));
  if (unknown.length > 0) {
    throw new UsageError(
      `unknown ${profile.displayName} event${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`,
      `Events are case-sensitive; use some of: ${profile.knownEvents.join(', ')}`,
    );
  }
  return [...new Set(events)];
}

export function resolveTimeoutSec(agent: Agent, timeoutSec: number | undefined): number {
  const profile = AGENT_PROFILES[agent];
  if (timeoutSec === undefined) return profile.defaultTimeoutSec;
  if (!Number.isFinite(timeoutSec) || timeoutSec <= 0 || timeoutSec > profile.maxTimeoutSec) {
    throw new UsageError(
      `--timeout ${timeoutSec} is out of range for ${profile.displayName}`,
      `Use a number of seconds above 0 and at most ${profile.maxTimeoutSec} (default ${profile.defaultTimeoutSec}).`,
    );
  }
  return timeoutSec;
}

export function hooksOf(data: Record<string, unknown>): AgentHooks | undefined {
  return data.hooks as AgentHooks | undefined;
}

/** What install and import check and read first: flags, the hookd command, the agent's settings. */
export async function prepareInstall(options: InstallOptions) {
  const location = locateSettingsFile(options);
  const events = resolveEvents(options.agent, options.events);
  const timeoutSec = resolveTimeoutSec(options.agent, options.timeoutSec);
  const command = buildHookdCommand(options.hookdPath, {
    ...(options.nodePath ? { nodePath: options.nodePath } : {}),
    agent: options.agent,
    portable: options.scope === 'project',
  });
  const snapshot = await readSettingsFile(location.file);
  assertAgentAccepts(snapshot, options.agent);
  return { location, events, timeoutSec, command, snapshot };
}

/**
 * Merges hookd's entry for every chosen event into the agent's settings file. Every other key and
 * hook is kept; a second run changes nothing; a file the agent already rejects is refused with the
 * broken entries named; the result is validated before it is written; the original is backed up.
 */
export async function installHookd(options: InstallOptions): Promise<InstallResult> {
  const { location, events, timeoutSec, command, snapshot } = await prepareInstall(options);
  const merged = mergeHookdEntries(hooksOf(snapshot.data), { events, command, timeoutSec });
  const warnings = assertWritableHooks(location.file, merged.hooks, options.agent);
  const plan = planJsonEdit(snapshot, 'hooks', merged.hooks);
  const dryRun = options.dryRun ?? false;
  const now = (options.now ?? (() => new Date()))();
  const change = dryRun ? stripText(plan) : await applyJsonEdit(snapshot, plan, now);
  return {
    ...change,
    agent: options.agent,
    scope: options.scope,
    dryRun,
    command,
    events: merged.actions,
    warnings,
  };
}

/** Removes exactly hookd's hook objects from the agent's settings file (and nothing else). */
export async function uninstallHookd(options: SettingsTarget): Promise<UninstallResult> {
  const location = locateSettingsFile(options);
  const snapshot = await readSettingsFile(location.file);
  const before = hooksOf(snapshot.data);
  const { hooks, removed } = removeHookdEntries(before);
  // Removing hookd's hooks from a file the agent already rejects cannot make it worse: go on, and
  // report what stays broken.
  const alreadyBroken = !validateAgentHooks(before, options.agent).ok;
  const warnings = alreadyBroken
    ? validateAgentHooks(hooks, options.agent).problems
    : assertWritableHooks(location.file, hooks, options.agent);
  const plan =
    removed.length > 0 ? planJsonEdit(snapshot, 'hooks', hooks) : planJsonEdit(snapshot, 'hooks', before);
  const dryRun = options.dryRun ?? false;
  const now = (options.now ?? (() => new Date()))();
  const change = dryRun ? stripText(plan) : await applyJsonEdit(snapshot, plan, now);
  return { ...change, agent: options.agent, scope: options.scope, dryRun, removed, warnings };
}

export function stripText(plan: FileChange & { text: string }): FileChange {
  const { text: _text, ...change } = plan;
  return change;
}

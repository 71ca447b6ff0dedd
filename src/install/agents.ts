import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { AGENT_IDS, type AgentId } from '../agents/ids.js';
import { ADAPTERS } from '../agents/registry.js';
import type { Env } from '../paths.js';

/** The agents whose settings file hookd can wire itself into: every agent of the registry. */
export const AGENTS = AGENT_IDS;
export type Agent = AgentId;

export const SCOPES = ['user', 'project'] as const;
export type Scope = (typeof SCOPES)[number];

/** What hookd knows about one agent's settings file and its hooks. */
export interface AgentProfile {
  agent: Agent;
  displayName: string;
  /** Folder of the settings file, under HOME (user) or the project dir (project). */
  settingsDirName: string;
  /** Events install wires by default. */
  defaultEvents: readonly string[];
  /** Events the agent is known to fire; others are accepted but warned about. */
  knownEvents: readonly string[];
  /** Seconds written as each hookd entry's `timeout` unless --timeout says otherwise. */
  defaultTimeoutSec: number;
  maxTimeoutSec: number;
}

/** Each agent's profile, read from its adapter (src/agents/). */
export const AGENT_PROFILES: Readonly<Record<Agent, AgentProfile>> = Object.fromEntries(
  AGENTS.map((agent): [Agent, AgentProfile] => {
    const adapter = ADAPTERS[agent];
    return [
      agent,
      {
        agent,
        displayName: adapter.displayName,
        settingsDirName: adapter.settings.dirName,
        defaultEvents: adapter.install.defaultEvents,
        knownEvents: adapter.events,
        defaultTimeoutSec: adapter.install.timeouts.installDefault,
        maxTimeoutSec: adapter.install.timeouts.max,
      },
    ];
  }),
) as Record<Agent, AgentProfile>;

export function isAgent(value: string): value is Agent {
  return (AGENTS as readonly string[]).includes(value);
}

export interface SettingsLocation {
  agent: Agent;
  scope: Scope;
  /** Absolute path of the agent's settings.json. */
  file: string;
}

/**
 * Where the agent's settings file for a scope lives: `settings.json` in the agent's folder (its adapter's
 * `settings.dirName`: `.factory`, `.claude`) under the home folder or the project. An explicit file wins.
 */
export function locateSettingsFile(options: {
  agent: Agent;
  scope: Scope;
  env?: Env;
  projectDir?: string;
  file?: string;
}): SettingsLocation {
  const profile = AGENT_PROFILES[options.agent];
  const env = options.env ?? process.env;
  let file: string;
  if (options.file) file = resolve(options.file);
  else if (options.scope === 'user')
    file = join(env.HOME || homedir(), profile.settingsDirName, 'settings.json');
  else file = join(resolve(options.projectDir ?? process.cwd()), profile.settingsDirName, 'settings.json');
  return { agent: options.agent, scope: options.scope, file };
}

import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { CLAUDE_EVENTS, DROID_EVENTS } from '../events/names.js';
import type { Env } from '../paths.js';

/** The agents whose settings file hookd can wire itself into. */
export const AGENTS = ['droid', 'claude'] as const;
export type Agent = (typeof AGENTS)[number];

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

/**
 * The Claude Code events hookd wires by default: the nine it shares with Droid, plus the ones that say
 * a turn failed (StopFailure) or the agent waits for a person (PermissionRequest, about 6 s before the
 * Notification). Any of the 33 events of Claude Code 2.1.330 may be named with --events.
 */
const CLAUDE_DEFAULT_EVENTS = [...DROID_EVENTS, 'PermissionRequest', 'StopFailure'] as const;

export const AGENT_PROFILES: Readonly<Record<Agent, AgentProfile>> = {
  droid: {
    agent: 'droid',
    displayName: 'Droid',
    settingsDirName: '.factory',
    defaultEvents: DROID_EVENTS,
    knownEvents: DROID_EVENTS,
    // hookd answers within its own 55 s event budget; Droid's default is 60 s.
    defaultTimeoutSec: 60,
    maxTimeoutSec: 3600,
  },
  claude: {
    agent: 'claude',
    displayName: 'Claude Code',
    settingsDirName: '.claude',
    defaultEvents: CLAUDE_DEFAULT_EVENTS,
    knownEvents: CLAUDE_EVENTS,
    // Claude Code's own default is 600 s, but it gives SessionEnd hooks only 1.5 s unless an entry sets a
    // timeout (it then waits for the largest SessionEnd timeout, capped at 60 s): 60 s on every entry lets
    // hookd finish everywhere, and hookd answers within its 55 s event budget.
    defaultTimeoutSec: 60,
    maxTimeoutSec: 600,
  },
};

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
 * Where the agent's settings file for a scope lives: `~/.factory/settings.json` or
 * `<project>/.factory/settings.json` for Droid, `~/.claude/settings.json` or
 * `<project>/.claude/settings.json` for Claude Code. An explicit file wins.
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

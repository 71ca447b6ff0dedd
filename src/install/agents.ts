import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { AGENT_IDS, type AgentId } from '../agents/ids.js';
import { ADAPTERS } from '../agents/adapters/registry.js';
import { COPILOT_HOOKS_FILE, copilotHooksFile } from '../agents/adapters/copilot.js';
import { geminiCanonical, geminiNative } from '../events/gemini-facts.js';
import { UsageError } from '../errors.js';
import type { Env } from '../paths.js';

/** The agents doctor, status and explain survey: every one hookd knows. */
export const AGENTS = AGENT_IDS;
/** The agents whose settings file hookd can wire itself into: install, uninstall, import. */
export const INSTALL_AGENTS = AGENT_IDS;
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
  /** The file's name in that folder (default settings.json). */
  fileName?: string;
  /** The variable naming the user-scope folder instead of ~/<settingsDirName> (Codex: CODEX_HOME). */
  homeVariable?: string;
  /** The scopes the agent's hooks were verified in (default both). */
  scopes?: readonly Scope[];
  /** The unit of the entry's `timeout` in this file (default seconds). */
  timeoutUnit?: 'seconds' | 'milliseconds';
  /** The agent's name for one of hookd's event names (Gemini: PreToolUse is BeforeTool). */
  nativeEvent?: (event: string) => string;
  /** hookd's name (the config's) for one of the agent's event names: the inverse of nativeEvent. */
  configEvent?: (event: string) => string;
  /** A cap the agent puts on some events' timeouts whatever the entry says, in seconds. */
  capSec?: (event: string) => number | undefined;
  /** What install tells the user to do next (Codex: review and trust the hooks). */
  installNote?: string;
  /** doctor says nothing of the agent when it was never run here (no folder, no file) and hookd is not wired. */
  quietWhenAbsent?: boolean;
  /** The matcher of an entry for every call, where the agent refuses '' (Copilot CLI skips that entry). */
  catchAllMatcher?: string;
  /** Where the file is when not `<folder>/<settingsDirName>/<fileName>` (Copilot: a hooks folder per scope). */
  fileAt?: (scope: Scope, env: Env, projectDir: string) => string;
  /** The folder of hooks files in the agent's own dialect that `hookd import` reads (Copilot's hooks folder). */
  ownDialectDir?: (scope: Scope, env: Env, projectDir: string) => string;
}

/** What install needs beyond the adapter's data, per agent. */
const INSTALL_EXTRAS: Partial<Record<Agent, Partial<AgentProfile>>> = {
  codex: {
    fileName: 'hooks.json',
    homeVariable: 'CODEX_HOME',
    // Codex CLI 0.171.0 was observed reading $CODEX_HOME/hooks.json only.
    scopes: ['user'],
    // Codex gives SessionEnd and Interrupt a few seconds whatever the entry says.
    capSec: (event) => (event === 'SessionEnd' || event === 'Interrupt' ? 3 : undefined),
    // hookd never trusts hooks for you: Codex skips untrusted hooks without a word.
    installNote:
      'Codex CLI runs no hook until you trust it, and says nothing about the ones it skips: start `codex`, open `/hooks`, review the hookd entries and trust them (again after each change to them); `hookd doctor` says whether they are trusted',
    quietWhenAbsent: true,
  },
  gemini: {
    timeoutUnit: 'milliseconds',
    nativeEvent: geminiNative,
    configEvent: geminiCanonical,
    quietWhenAbsent: true,
  },
  copilot: {
    fileName: COPILOT_HOOKS_FILE,
    catchAllMatcher: '*',
    fileAt: (scope, env, projectDir) => copilotHooksFile(scope, env, env.HOME || homedir(), projectDir),
    ownDialectDir: (scope, env, projectDir) =>
      dirname(copilotHooksFile(scope, env, env.HOME || homedir(), projectDir)),
    installNote:
      'Copilot CLI runs the hooks of a project (.github/hooks) only in a folder you trust: answer its trust prompt, or pass --trust-folder; the user-scope file (~/.copilot/hooks) needs no trust',
    quietWhenAbsent: true,
  },
};

/** Each agent's profile, read from its adapter (src/agents/); install's times are in seconds. */
export const AGENT_PROFILES: Readonly<Record<Agent, AgentProfile>> = Object.fromEntries(
  INSTALL_AGENTS.map((agent): [Agent, AgentProfile] => {
    const adapter = ADAPTERS[agent];
    const timeouts = adapter.install.timeouts;
    const seconds = (value: number) => (timeouts.unit === 'ms' ? value / 1000 : value);
    return [
      agent,
      {
        agent,
        displayName: adapter.displayName,
        settingsDirName: adapter.settings.dirName,
        defaultEvents: adapter.install.defaultEvents,
        knownEvents: adapter.events,
        defaultTimeoutSec: seconds(timeouts.installDefault),
        maxTimeoutSec: seconds(timeouts.max),
        ...INSTALL_EXTRAS[agent],
      },
    ];
  }),
) as Record<Agent, AgentProfile>;

/** The `timeout` written on a hookd entry of this event, in the unit of the agent's file. */
export function entryTimeout(agent: Agent, event: string, timeoutSec: number): number {
  const profile = AGENT_PROFILES[agent];
  const cap = profile.capSec?.(event);
  const sec = cap !== undefined ? Math.min(cap, timeoutSec) : timeoutSec;
  return profile.timeoutUnit === 'milliseconds' ? sec * 1000 : sec;
}

export function isAgent(value: string): value is Agent {
  return (INSTALL_AGENTS as readonly string[]).includes(value);
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
  const name = profile.fileName ?? 'settings.json';
  if (!options.file && profile.scopes && !profile.scopes.includes(options.scope))
    throw new UsageError(
      `--scope ${options.scope}: hookd wires ${profile.displayName} at ${profile.scopes.join(', ')} scope only`,
      `${profile.displayName} was verified reading its hooks from ~/${profile.settingsDirName}/${name}; use --scope user (or --file).`,
    );
  const home = profile.homeVariable ? env[profile.homeVariable] : undefined;
  let file: string;
  if (options.file) file = resolve(options.file);
  else if (profile.fileAt)
    file = profile.fileAt(options.scope, env, resolve(options.projectDir ?? process.cwd()));
  else if (options.scope === 'user')
    file = home ? join(resolve(home), name) : join(env.HOME || homedir(), profile.settingsDirName, name);
  else file = join(resolve(options.projectDir ?? process.cwd()), profile.settingsDirName, name);
  return { agent: options.agent, scope: options.scope, file };
}

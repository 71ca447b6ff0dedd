import { CliError, EXIT, UsageError } from '../errors.js';
import type { HookdConfig } from '../config/schema.js';
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
import { FAST_CLIENT_VERSIONS, FAST_PROTOCOL, FAST_SOCKET } from '../daemon/fast-server.js';
import { runtimeDir } from '../paths.js';
import { socketPathProblem } from '../util/unix-socket.js';
import {
  buildHookdCommand,
  buildNativeClientCommand,
  commandForEvent,
  otherHookdOnPath,
  type FastClient,
} from './hookd-command.js';
import {
  mergeHookdWiring,
  removeHookdEntries,
  type AgentHooks,
  type EventAction,
  type WantedHook,
} from './merge-hooks.js';
import { readSettingsFile } from './settings-file.js';
import { chooseNativeClient } from './native-client.js';
import type { Transport } from './transport.js';
import { eventsToWire, type WiredEvent, type WiringReason } from './wiring.js';

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
  /**
   * How the agent reaches hookd (default node). fast needs the native client to run here (else node,
   * with a note saying why and what it costs).
   */
  transport?: Transport;
  /**
   * The effective hookd config: without `events`, only the events it needs are wired (eventsToWire) and
   * hookd's entries of other events are removed. Without it (and without events): the agent's default set.
   */
  config?: HookdConfig;
  /**
   * Which fast client (default auto): the native one (dist/hookd-client) when it was built and its probe
   * answers here, else the Node path; `native` makes one that cannot run an error.
   */
  client?: 'native' | 'auto';
  /** Wire the agent's default set of events whatever the config needs (today's behaviour). */
  allEvents?: boolean;
}

/** How one wired event reaches hookd, and why it is wired. */
export interface EventPath {
  event: string;
  transport: Transport;
  matcher: string;
  reasons: WiringReason[];
}

export interface InstallResult extends FileChange {
  agent: Agent;
  scope: Scope;
  dryRun: boolean;
  command: string;
  /** The transport the command uses: node or fast. */
  transport: Transport;
  /** The fast client the command runs, when it is the fast client's. */
  client?: FastClient;
  events: { event: string; action: EventAction }[];
  /** Every event hookd is wired for by this install, with its transport. */
  paths: EventPath[];
  /** Things to know (a fallback to node and why, the listener off). */
  notes: string[];
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

function computesWiring(options: InstallOptions): boolean {
  return !options.events?.length && !options.allEvents && options.config !== undefined;
}

/** The events to wire, with matcher and reasons: --events, else what the config needs, else the defaults. */
function wiredEvents(options: InstallOptions, events: readonly string[]): WiredEvent[] {
  const needed = options.config ? eventsToWire(options.config, options.agent) : undefined;
  if (needed && computesWiring(options)) return needed;
  // --events or --all-events: those events, each with the config's reasons; without a config, every
  // event is taken to run commands.
  const byEvent = new Map((needed ?? []).map((w) => [w.event, w]));
  return events.map((event) => ({
    event,
    matcher: '',
    reasons: byEvent.get(event)?.reasons ?? [],
    commands: needed ? (byEvent.get(event)?.commands ?? false) : true,
  }));
}

/** What the Node path costs per event, for the note that says it is wired instead of the fast client. */
const NODE_PATH_COST =
  'each event then starts Node (about 80 ms an event; `--events` narrows which events are wired)';

/**
 * The command transport (node or fast), its fast client and its command: the native client where it
 * runs, else the Node path, with a note saying why.
 */
function commandTransport(
  options: InstallOptions,
  nodeCommand: string,
  notes: string[],
): { transport: 'node' | 'fast'; client?: FastClient; command: string } {
  if (options.transport === undefined || options.transport === 'node')
    return { transport: 'node', command: nodeCommand };
  if (options.scope === 'project') {
    notes.push('project scope: the node command (a shared file names no path of this machine)');
    return { transport: 'node', command: nodeCommand };
  }
  if (options.config && !options.config.daemon.fastListener)
    notes.push(
      'daemon.fastListener is off: the fast client takes the Node path for every event until it is on (then restart the daemon)',
    );
  const tooLong = socketPathProblem(runtimeDir(options.env ?? process.env), FAST_SOCKET);
  if (tooLong) notes.push(`${tooLong}: until then the fast client takes the Node path for every event`);
  const nodePath = options.nodePath ?? process.execPath;
  const range = { protocol: FAST_PROTOCOL, ...FAST_CLIENT_VERSIONS };
  const { path: native, problem } = chooseNativeClient(options.hookdPath, range, options.env);
  if (!problem)
    return {
      transport: 'fast',
      client: 'native',
      command: buildNativeClientCommand(native, options.agent, nodePath, options.hookdPath),
    };
  if (options.client === 'native')
    throw new CliError(
      `--client native: ${problem.text}`,
      EXIT.FAILURE,
      'Install hookd with the package of your platform (docs/development.md, "Packages"), build it with a C compiler (npm run build in a clone), or use --transport node.',
    );
  notes.push(
    `the native fast client is not used: ${problem.text}; the Node path is wired: ${NODE_PATH_COST}`,
  );
  return { transport: 'node', command: nodeCommand };
}

/**
 * Which `hookd` a shell (and a project-scope entry) runs by name, when it is not the one installing: an
 * older install, another copy, or an unrelated program named hookd.
 */
function otherHookdNote(options: InstallOptions): string | undefined {
  const other = otherHookdOnPath(options.hookdPath, options.env ?? process.env);
  if (!other) return undefined;
  const which = other.target === other.path ? other.path : `${other.path} (${other.target})`;
  const effect =
    options.scope === 'project'
      ? "this project's entries run that one"
      : 'the entries written here run this one; `hookd` typed in a shell runs that one';
  return `the first \`hookd\` on PATH is ${which}, not this hookd (${options.hookdPath}): ${effect}`;
}

/**
 * Wires hookd into the agent's settings file: the events the config needs (or --events, or the agent's
 * default set), each through the chosen transport. Every other key and hook is kept; hookd's own entries
 * are moved to the new transport in place; a second run changes nothing; a file the agent already
 * rejects is refused with the broken entries named; the result is validated before it is written; the
 * original is backed up.
 */
export async function installHookd(options: InstallOptions): Promise<InstallResult> {
  const { location, events, timeoutSec, command: nodeCommand, snapshot } = await prepareInstall(options);
  const notes: string[] = [];
  const wired = wiredEvents(options, events);
  const { transport: commandVia, client, command } = commandTransport(options, nodeCommand, notes);
  const onPath = otherHookdNote(options);
  if (onPath) notes.push(onPath);
  const paths: EventPath[] = wired.map((w) => ({
    event: w.event,
    transport: commandVia,
    matcher: w.matcher,
    reasons: w.reasons,
  }));
  // Each event's entry names its event: hookd knows which event it is even when its input is unreadable.
  const wanted: WantedHook[] = wired.map((w) => ({
    event: w.event,
    matcher: w.matcher,
    hook: { type: 'command', command: commandForEvent(command, w.event), timeout: timeoutSec },
  }));
  const merged = mergeHookdWiring(hooksOf(snapshot.data), wanted, {
    removeUnwanted: computesWiring(options),
  });
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
    transport: commandVia,
    ...(client ? { client } : {}),
    events: merged.actions,
    paths,
    notes,
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

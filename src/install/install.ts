import { ADAPTERS } from '../agents/adapters/registry.js';
import { CliError, EXIT, UsageError } from '../errors.js';
import type { HookdConfig } from '../config/schemas/schema.js';
import type { Env } from '../paths.js';
import { validateAgentHooks } from './agent-hooks.js';
import { agentHooksFiles, claudeManagedDropIns, claudeManagedDir, type Layer } from './agent-files.js';
import { AGENT_PROFILES, entryTimeout, locateSettingsFile, type Agent, type Scope } from './agents.js';
import type { FileChange } from './edit-settings.js';
import { hooksObjectOf, readHooksFile, validateHooksObject, type HooksFileRead } from './effective-hooks.js';
import { FAST_CLIENT_VERSIONS, FAST_PROTOCOL, FAST_SOCKET } from '../link/wire.js';
import { runtimeDir } from '../paths.js';
import { socketPathProblem } from '../util/unix-socket.js';
import {
  buildHookdCommand,
  buildNativeClientCommand,
  commandForEvent,
  otherHookdOnPath,
  type FastClient,
} from './hookd-command.js';
import { doubleWirings, hookdLayers, uninstallCommandFor, type HookdInFile } from './hookd-layers.js';
import {
  mergeHookdWiring,
  removeHookdEntries,
  type AgentHooks,
  type EventAction,
  type WantedHook,
} from './merge-hooks.js';
import {
  applyLevel,
  planLevel,
  readSettingsLevel,
  settingsHooks,
  summarize,
  type FileProblem,
  type LevelHooks,
  type SettingsLevel,
} from './settings-level.js';
import { hadHooksKeyBeforeInstall } from './install-backups.js';
import { leftByUninstall, type LeftWired } from './uninstall-left.js';
import { chooseNativeClient } from './native-client.js';
import { hideReceiverToken, planOtelEnv, withoutOtelEnv } from './otel-env.js';
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
  /** Claude Code's managed settings folder, read to show where hookd is wired (default: the platform's). */
  claudeManagedDir?: string;
}

export interface InstallOptions extends SettingsTarget {
  /** Absolute path of the hookd program to wire in (the CLI passes its own). */
  hookdPath: string;
  /** Events to wire (default: every event that can carry a guard or a notification, see wiredEvents). */
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
  /** The effective hookd config: the reasons each event is wired, and events beyond the default set it needs. */
  config?: HookdConfig;
  /**
   * Which fast client (default auto): the native one (dist/hookd-client) when it was built and its probe
   * answers here, else the Node path; `native` makes one that cannot run an error.
   */
  client?: 'native' | 'auto';
  /** Wire every event the agent fires (Droid 9, Claude Code 33). */
  allEvents?: boolean;
  /** Also point the agent's own OpenTelemetry at hookd's receiver (docs/telemetry.md). */
  otel?: boolean;
}

/** How one wired event reaches hookd, and why it is wired. */
export interface EventPath {
  event: string;
  transport: Transport;
  matcher: string;
  reasons: WiringReason[];
}

/** hookd's entries in one layer of the agent, after this command. */
export type LayerEntries = HookdInFile;

export interface InstallResult extends FileChange {
  agent: Agent;
  scope: Scope;
  dryRun: boolean;
  command: string;
  /** The transport the command uses: node or fast. */
  transport: Transport;
  /** The fast client the command runs, when it is the fast client's. */
  client?: FastClient;
  /** Each file written (or, in a dry run, to write): the settings file, then Droid's hooks.json. */
  files: FileChange[];
  /** What happened to each event, and in which file its hookd entry is. */
  events: { event: string; action: EventAction; file: string }[];
  /** Every event hookd is wired for by this install, with its transport. */
  paths: EventPath[];
  /** Which layers of the agent hold hookd's entries once this is written (user, project, local, managed). */
  layers: LayerEntries[];
  /** Things to know (a fallback to node and why, what the Node path costs, hookd wired twice). */
  notes: string[];
  /** Problems the agent tolerates but that do not do what they look like (never ours). */
  warnings: FileProblem[];
  /** With --otel: the `env` keys written so the agent exports to hookd's receiver (none: left alone). */
  otel?: { keys: string[] };
}

export interface UninstallResult extends FileChange, LeftWired {
  agent: Agent;
  scope: Scope;
  dryRun: boolean;
  files: FileChange[];
  removed: { event: string; count: number; file: string }[];
  /** The `env` keys `install --otel` had added, removed. */
  otelRemoved: string[];
  warnings: FileProblem[];
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

/** What install and import check and read first: flags, the hookd command, the agent's files. */
export async function prepareInstall(options: InstallOptions) {
  const location = locateSettingsFile(options);
  const events = resolveEvents(options.agent, options.events);
  const timeoutSec = resolveTimeoutSec(options.agent, options.timeoutSec);
  const command = buildHookdCommand(options.hookdPath, {
    ...(options.nodePath ? { nodePath: options.nodePath } : {}),
    agent: options.agent,
    portable: options.scope === 'project',
  });
  const level = await readSettingsLevel(options.agent, location.file);
  return { location, events, timeoutSec, command, level, snapshot: level.settings };
}

/** The default (no --events, no --all-events): wired to match, hookd's other events removed. */
function isDefaultWiring(options: InstallOptions): boolean {
  return !options.events?.length && !options.allEvents;
}

/**
 * The events to wire, each with the reasons the config gives it: `--events` as named; `--all-events`
 * every event the agent fires; by default every event that can carry a guard or a notification (the
 * agent's default set: Droid's nine, Claude Code's eleven), plus any other the config needs. The config
 * decides at run time what each event does, so a guard added later runs with nothing to re-install.
 * Every entry matches every tool ('').
 */
export function wiredEvents(options: InstallOptions): WiredEvent[] {
  const profile = AGENT_PROFILES[options.agent];
  const needed = options.config ? eventsToWire(options.config, options.agent) : [];
  const byEvent = new Map(needed.map((w) => [w.event, w]));
  let events: readonly string[];
  if (options.events?.length) events = resolveEvents(options.agent, options.events);
  else if (options.allEvents) events = profile.knownEvents;
  else {
    const extra = needed.map((w) => w.event).filter((e) => !profile.defaultEvents.includes(e));
    events = [...profile.defaultEvents, ...profile.knownEvents.filter((e) => extra.includes(e))];
  }
  return events.map((event) => ({
    event,
    matcher: '',
    reasons: byEvent.get(event)?.reasons ?? [],
    commands: options.config ? (byEvent.get(event)?.commands ?? false) : true,
  }));
}

/** What the Node path costs per event, for the note that says it is wired. */
export const NODE_PATH_COST =
  'each wired event starts Node (about 80 ms an event); `--events` narrows which events are wired';

/**
 * The command transport (node or fast), its fast client and its command: the native client where it
 * runs, else the Node path, with a note saying why and what it costs.
 */
function commandTransport(
  options: InstallOptions,
  nodeCommand: string,
  notes: string[],
): { transport: 'node' | 'fast'; client?: FastClient; command: string } {
  if (options.transport === undefined || options.transport === 'node') {
    notes.push(`the Node path is wired: ${NODE_PATH_COST}`);
    return { transport: 'node', command: nodeCommand };
  }
  if (options.scope === 'project') {
    notes.push(
      `project scope: the Node path (a shared file names no path of this machine): ${NODE_PATH_COST}`,
    );
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

/** Every file of the agent, read from disk, except the level's own, whose new hooks are given. */
async function agentReads(
  options: SettingsTarget,
  level: SettingsLevel,
  next: LevelHooks,
): Promise<HooksFileRead[]> {
  const managed = options.claudeManagedDir ?? claudeManagedDir();
  const files = agentHooksFiles(options.agent, {
    env: options.env ?? process.env,
    projectDir: options.projectDir ?? process.cwd(),
    claudeManagedDir: managed,
    claudeManagedDropIns: ADAPTERS[options.agent].settings.managedDir ? claudeManagedDropIns(managed) : [],
  });
  const own = [level.settings.file, ...(level.hooksJson ? [level.hooksJson.file] : [])];
  const layerOf = (file: string): Layer =>
    files.find((f) => f.file === file)?.layer ?? (options.scope === 'project' ? 'project' : 'user');
  const reads = await Promise.all(files.filter((f) => !own.includes(f.file)).map(readHooksFile));
  const ownReads: HooksFileRead[] = [];
  const synth = (file: string, kind: HooksFileRead['kind'], data: Record<string, unknown>) => {
    const hooks = hooksObjectOf(kind, data);
    ownReads.push({
      agent: options.agent,
      layer: layerOf(file),
      kind,
      file,
      exists: true,
      data,
      hooks,
      report: validateHooksObject(kind, hooks, options.agent),
    });
  };
  const settingsData = { ...level.settings.data };
  if (next.settings === undefined) delete settingsData.hooks;
  else settingsData.hooks = next.settings;
  synth(level.settings.file, 'settings', settingsData);
  if (level.hooksJson) synth(level.hooksJson.file, 'hooks-json', next.hooksJson ?? level.hooksJson.data);
  // In the agent's order: the level's files take the place of the ones read from disk.
  const all = [...reads, ...ownReads];
  const order = (r: HooksFileRead) => {
    const i = files.findIndex((f) => f.file === r.file);
    return i < 0 ? files.length : i;
  };
  return all.sort((a, b) => order(a) - order(b));
}

/** Notes on hookd wired in more than one layer (each of its commands then runs twice). */
function layerNotes(agent: Agent, reads: readonly HooksFileRead[], mine: readonly string[]): string[] {
  const notes: string[] = [];
  const twice = doubleWirings(agent, reads);
  const others = new Map<string, { layer: Layer; events: string[] }>();
  for (const d of twice)
    for (const h of d.hooks)
      if (!mine.includes(h.file)) {
        const o = others.get(h.file) ?? { layer: h.layer, events: [] };
        o.events.push(d.event);
        others.set(h.file, o);
      }
  for (const [file, { layer, events }] of others) {
    if (reads.some((r) => r.file === file && r.kind === 'settings-toml')) {
      notes.push(
        `hookd is also wired in ${file}: ${AGENT_PROFILES[agent].displayName} runs both, so hookd runs twice for ${events.join(', ')}; delete hookd's \`[[hooks.<Event>]]\` tables from ${file} by hand (hookd does not edit it)`,
      );
      continue;
    }
    const fix = uninstallCommandFor(agent, layer, file);
    notes.push(
      `hookd is also wired in ${file} (${layer}): ${AGENT_PROFILES[agent].displayName} runs both, so hookd runs twice for ${events.join(', ')}; ${fix ? `\`${fix}\` removes that one` : 'only its administrator can remove it'}`,
    );
  }
  return notes;
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
 * Wires hookd into the agent's settings: every event that can carry a guard or a notification (or
 * --events, or --all-events), each through the chosen transport. For Droid, an event that the hooks.json
 * of the same folder names gets hookd's entry there (Droid runs that list instead of settings.json's);
 * every other event's goes into settings.json. Every other key and hook is kept; hookd's own entries are
 * moved to the new transport in place; a second run changes nothing; a file the agent already rejects
 * is refused with the broken entries named; the result is validated before it is written; each original
 * is backed up.
 */
export async function installHookd(options: InstallOptions): Promise<InstallResult> {
  const { events: _events, timeoutSec, command: nodeCommand, level } = await prepareInstall(options);
  const notes: string[] = [...level.notes];
  const wired = wiredEvents(options);
  const { transport: commandVia, client, command } = commandTransport(options, nodeCommand, notes);
  const onPath = otherHookdNote(options);
  if (onPath) notes.push(onPath);
  const nextStep = AGENT_PROFILES[options.agent].installNote;
  if (nextStep) notes.push(nextStep);
  const paths: EventPath[] = wired.map((w) => ({
    event: w.event,
    transport: commandVia,
    matcher: w.matcher,
    reasons: w.reasons,
  }));
  // Each event's entry names its event: hookd knows which event it is even when its input is unreadable.
  const catchAll = AGENT_PROFILES[options.agent].catchAllMatcher;
  const wanted: WantedHook[] = wired.map((w) => ({
    event: w.event,
    matcher: w.matcher === '' && catchAll ? catchAll : w.matcher,
    hook: {
      type: 'command',
      command: commandForEvent(command, w.event),
      timeout: entryTimeout(options.agent, w.event, timeoutSec),
    },
  }));
  const dryRun = options.dryRun ?? false;
  const otel = options.otel
    ? await planOtelEnv({
        agent: options.agent,
        current: level.settings.data.env,
        file: level.settings.file,
        env: options.env ?? process.env,
        projectDir: options.projectDir ?? process.cwd(),
        config: options.config,
        managedDir: options.claudeManagedDir,
        dryRun,
        shared: options.scope === 'project' && options.file === undefined,
      })
    : undefined;
  if (otel) notes.push(...otel.notes);
  const next = {
    ...wireLevel(level, wanted, isDefaultWiring(options)),
    ...(otel?.change ? { env: { value: otel.env, secret: true } } : {}),
  };
  const plan = planLevel(level, next);
  const now = (options.now ?? (() => new Date()))();
  const files = hideTokens(await applyLevel(level, plan, dryRun, now));
  const reads = await agentReads(options, level, next);
  notes.push(
    ...layerNotes(
      options.agent,
      reads,
      files.map((f) => f.file),
    ),
  );
  return {
    ...summarize(files),
    agent: options.agent,
    scope: options.scope,
    dryRun,
    command,
    transport: commandVia,
    ...(client ? { client } : {}),
    files,
    events: next.actions,
    paths,
    layers: hookdLayers(reads),
    notes,
    warnings: plan.warnings,
    ...(otel ? { otel: { keys: otel.keys } } : {}),
  };
}

/** File changes as shown: the receiver's token never appears in a diff. */
function hideTokens(changes: FileChange[]): FileChange[] {
  return changes.map((c) => ({ ...c, diff: hideReceiverToken(c.diff) }));
}

/**
 * hookd's wanted entries placed in a level's files: an event the hooks.json names in hooks.json (a
 * hookd entry left in settings.json for it never runs and is removed), every other in settings.json.
 * With `removeUnwanted`, hookd's entries of other events are removed from both; an event hooks.json
 * names stays named, emptied or not.
 */
export function wireLevel(
  level: SettingsLevel,
  wanted: readonly WantedHook[],
  removeUnwanted: boolean,
): LevelHooks & { actions: InstallResult['events'] } {
  const inJson = wanted.filter((w) => level.named.has(w.event));
  const inSettings = wanted.filter((w) => !level.named.has(w.event));
  const s = mergeHookdWiring(settingsHooks(level.settings), inSettings, {
    removeUnwanted,
    alsoRemove: inJson.map((w) => w.event),
  });
  const j = level.hooksJson
    ? mergeHookdWiring(level.hooksJson.data, inJson, { removeUnwanted, keepEmptyEvents: true })
    : undefined;
  const moved = new Set(inJson.map((w) => w.event));
  const actions = [
    ...s.actions
      .filter((a) => !(a.action === 'removed' && moved.has(a.event)))
      .map((a) => ({ ...a, file: level.settings.file })),
    ...(j?.actions ?? []).map((a) => ({ ...a, file: level.hooksJson!.file })),
  ];
  // A settings file that had no hooks keeps having none when nothing is wired there.
  const settings =
    Object.keys(s.hooks).length === 0 && settingsHooks(level.settings) === undefined ? undefined : s.hooks;
  return { settings, ...(j ? { hooksJson: j.hooks } : {}), actions };
}

/**
 * What stays of a settings file's hooks that uninstall left empty: `{}` when the file had a `hooks` key
 * before hookd was installed (so the round trip gives the file back as it was), else no key at all.
 */
async function emptiedHooks(file: string): Promise<AgentHooks | undefined> {
  return (await hadHooksKeyBeforeInstall(file)) ? {} : undefined;
}

/** Removes exactly hookd's hook objects from the agent's settings file and Droid's hooks.json beside it. */
export async function uninstallHookd(options: SettingsTarget): Promise<UninstallResult> {
  const location = locateSettingsFile(options);
  // Removing hookd's hooks from a file the agent already rejects cannot make it worse: go on, and
  // report what stays broken.
  const level = await readSettingsLevel(options.agent, location.file, { lenient: true });
  const before = settingsHooks(level.settings);
  const fromSettings = removeHookdEntries(before);
  const fromJson = level.hooksJson
    ? removeHookdEntries(level.hooksJson.data, { keepEmptyEvents: true })
    : undefined;
  const otel = withoutOtelEnv(level.settings.data.env);
  const next: LevelHooks = {
    settings:
      fromSettings.removed.length > 0 ? (fromSettings.hooks ?? (await emptiedHooks(location.file))) : before,
    ...(fromJson ? { hooksJson: fromJson.hooks ?? {} } : {}),
    ...(otel.removed.length > 0 || otel.env !== level.settings.data.env
      ? { env: { value: otel.env, secret: false } }
      : {}),
  };
  const plan = planLevel(level, next, { settingsBroken: !validateAgentHooks(before, options.agent).ok });
  const dryRun = options.dryRun ?? false;
  const now = (options.now ?? (() => new Date()))();
  const files = hideTokens(await applyLevel(level, plan, dryRun, now));
  const removed = [
    ...fromSettings.removed.map((r) => ({ ...r, file: level.settings.file })),
    ...(fromJson?.removed ?? []).map((r) => ({ ...r, file: level.hooksJson!.file })),
  ];
  const left = leftByUninstall(options.agent, await agentReads(options, level, next));
  return {
    ...summarize(files),
    agent: options.agent,
    scope: options.scope,
    dryRun,
    files,
    removed,
    otelRemoved: otel.removed,
    warnings: plan.warnings,
    ...left,
  };
}

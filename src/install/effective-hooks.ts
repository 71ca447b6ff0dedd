import { CliError } from '../errors.js';
import { isObject } from '../util/json-values.js';
import { validateAgentHooks, type AgentHooksReport } from './agent-hooks.js';
import type { AgentHooksFile, Layer } from './agent-files.js';
import { AGENT_PROFILES, type Agent } from './agents.js';
import { readSettingsFile, type SettingsFileSnapshot } from '../settings-io/settings-file.js';
import { readTomlFile } from '../settings-io/toml-file.js';

/** One hooks file as read: its text and parsed hooks, or why it cannot be used. */
export interface HooksFileRead extends AgentHooksFile {
  exists: boolean;
  snapshot?: SettingsFileSnapshot;
  /** Set when the file exists but cannot be used (unreadable, not JSON, not an object). */
  readError?: { message: string; hint?: string };
  /** The whole file: a settings file's keys beside `hooks` matter too (switches). */
  data?: Record<string, unknown>;
  /** The hooks object: a settings file's `hooks`, a hooks.json's root. */
  hooks?: unknown;
  /** How the agent takes the hooks object; not ok: the agent ignores every hook of the file. */
  report?: AgentHooksReport;
}

/**
 * Where the hooks object of a file is: a settings file's `hooks`, or a hooks.json's root. A TOML
 * config's `hooks` table without its `state` table (Codex's trust records, not an event).
 */
export function hooksObjectOf(kind: AgentHooksFile['kind'], data: Record<string, unknown>): unknown {
  if (kind === 'hooks-json') return data;
  if (kind === 'settings-toml' && isObject(data.hooks)) {
    const { state: _state, ...events } = data.hooks;
    return events;
  }
  return data.hooks;
}

/** Validates a file's hooks object the agent's way; a hooks.json's paths start at its root. */
export function validateHooksObject(
  kind: AgentHooksFile['kind'],
  hooks: unknown,
  agent: Agent,
): AgentHooksReport {
  return validateAgentHooks(hooks, agent, kind === 'hooks-json' ? { root: [] } : {});
}

/** Reads one hooks file; never throws (a file that cannot be used says why). */
export async function readHooksFile(f: AgentHooksFile): Promise<HooksFileRead> {
  try {
    if (f.kind === 'settings-toml') {
      const toml = readTomlFile(f.file);
      if (!toml) return { ...f, exists: false };
      const hooks = hooksObjectOf(f.kind, toml.data);
      return {
        ...f,
        exists: true,
        data: toml.data,
        hooks,
        report: validateHooksObject(f.kind, hooks, f.agent),
      };
    }
    const snapshot = await readSettingsFile(f.file);
    if (!snapshot.exists) return { ...f, exists: false, snapshot };
    const hooks = hooksObjectOf(f.kind, snapshot.data);
    return {
      ...f,
      exists: true,
      snapshot,
      data: snapshot.data,
      hooks,
      report: validateHooksObject(f.kind, hooks, f.agent),
    };
  } catch (error) {
    const hint = error instanceof CliError ? error.hint : undefined;
    return {
      ...f,
      exists: true,
      readError: { message: (error as Error).message, ...(hint ? { hint } : {}) },
    };
  }
}

/** True when the agent reads this file's hooks: it exists, parses, and the agent accepts its hooks. */
export function isAccepted(read: HooksFileRead): boolean {
  return read.exists && !read.readError && read.report?.ok === true;
}

/**
 * The events a Droid hooks.json names (Droid 0.225.2 `mergeHookSettings`: `{...settingsJson,
 * ...hooksJson}` per folder): each replaces the settings.json list of its folder for that event, an
 * empty list included. A hooks.json Droid rejects names nothing (Droid ignores it); keys that are not
 * Droid's events are dropped by Droid and name nothing.
 */
export function namedEvents(read: HooksFileRead | undefined): Set<string> {
  if (!read || read.kind !== 'hooks-json' || !isAccepted(read) || !isObject(read.hooks)) return new Set();
  const known = AGENT_PROFILES[read.agent].knownEvents;
  return new Set(Object.keys(read.hooks).filter((key) => known.includes(key)));
}

/** The hooks.json of the same Droid folder as a settings file. */
export function hooksJsonBeside(
  reads: readonly HooksFileRead[],
  read: HooksFileRead,
): HooksFileRead | undefined {
  return reads.find((r) => r.kind === 'hooks-json' && r.layer === read.layer);
}

/** One hook object of an agent's files, and whether the agent runs it. */
export interface HookAt {
  agent: Agent;
  file: string;
  layer: Layer;
  kind: AgentHooksFile['kind'];
  event: string;
  /** `hooks.Stop[0].hooks[1]` (settings, config.toml) or `Stop[0].hooks[1]` (hooks.json). */
  path: string;
  /** The entry's place in its event's list (config.toml: the n-th `[[hooks.<Event>]]` table, from 0). */
  index: number;
  entry: Record<string, unknown>;
  hook: unknown;
  /** The hooks.json of the same folder names this event, so Droid runs its list instead of this one. */
  shadowedBy?: string;
}

/**
 * Every hook object of the files the agent accepts, in file order, each with the file that shadows it
 * (Droid: an event a folder's hooks.json names replaces that folder's settings.json list). A file the
 * agent rejects runs none of its hooks and is left out.
 */
export function hooksAt(reads: readonly HooksFileRead[]): HookAt[] {
  const found: HookAt[] = [];
  for (const read of reads) {
    if (!isAccepted(read) || !isObject(read.hooks)) continue;
    const named = read.kind === 'settings' ? namedEvents(hooksJsonBeside(reads, read)) : new Set<string>();
    const shadow = read.kind === 'settings' ? hooksJsonBeside(reads, read)?.file : undefined;
    const prefix = read.kind === 'hooks-json' ? '' : 'hooks.';
    for (const [event, entries] of Object.entries(read.hooks)) {
      if (!Array.isArray(entries)) continue;
      entries.forEach((entry, e) => {
        if (!isObject(entry) || !Array.isArray(entry.hooks)) return;
        entry.hooks.forEach((hook, h) =>
          found.push({
            agent: read.agent,
            file: read.file,
            layer: read.layer,
            kind: read.kind,
            event,
            path: `${prefix}${event}[${e}].hooks[${h}]`,
            index: e,
            entry,
            hook,
            ...(named.has(event) && shadow ? { shadowedBy: shadow } : {}),
          }),
        );
      });
    }
  }
  return found;
}

/** A setting that switches hooks off, and the file it is in. */
export interface HooksSwitch {
  /** `hooksDisabled` (Droid), `disableAllHooks`, `allowManagedHooksOnly` (Claude Code). */
  key: string;
  file: string;
  layer: Layer;
  /** Which layers' hooks it switches off. */
  off: readonly Layer[];
}

/** Files from the highest precedence down: project before user (Droid); managed, local, project, user (Claude Code). */
function byPrecedence(reads: readonly HooksFileRead[]): HooksFileRead[] {
  const rank: Record<Layer, number> = { managed: 0, local: 1, project: 2, user: 3 };
  // Within a Droid folder hooks.json wins over settings.json.
  const kindRank = (r: HooksFileRead) => (r.kind === 'hooks-json' ? 0 : 1);
  return [...reads].sort((a, b) => rank[a.layer] - rank[b.layer] || kindRank(a) - kindRank(b));
}

/**
 * The settings that switch the agent's hooks off, as the agent resolves them: Droid's `hooksDisabled`
 * (inside the hooks object; the highest level that sets it wins, a folder's hooks.json over its
 * settings.json); Claude Code's `disableAllHooks` (the highest layer that sets it wins) and the managed
 * `allowManagedHooksOnly` (the hooks of every other layer are not loaded).
 */
export function hooksSwitches(agent: Agent, reads: readonly HooksFileRead[]): HooksSwitch[] {
  const usable = byPrecedence(reads).filter((r) => r.exists && !r.readError && r.data);
  const all: Layer[] = ['user', 'project', 'local', 'managed'];
  if (agent === 'droid') {
    const setting = usable.find(
      (r) => isAccepted(r) && isObject(r.hooks) && typeof r.hooks.hooksDisabled === 'boolean',
    );
    return setting && (setting.hooks as Record<string, unknown>).hooksDisabled === true
      ? [{ key: 'hooksDisabled', file: setting.file, layer: setting.layer, off: all }]
      : [];
  }
  const switches: HooksSwitch[] = [];
  const disable = usable.find((r) => typeof r.data!.disableAllHooks === 'boolean');
  if (disable && disable.data!.disableAllHooks === true)
    switches.push({ key: 'disableAllHooks', file: disable.file, layer: disable.layer, off: all });
  const managedOnly = usable.find((r) => r.layer === 'managed' && r.data!.allowManagedHooksOnly === true);
  if (managedOnly)
    switches.push({
      key: 'allowManagedHooksOnly',
      file: managedOnly.file,
      layer: 'managed',
      off: ['user', 'project', 'local'],
    });
  return switches;
}

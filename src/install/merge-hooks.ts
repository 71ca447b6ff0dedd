import { commandForEvent } from './hookd-command.js';
import { isHookdHook, transportOf } from './transport.js';
import { isObject } from '../util/json-values.js';

/** An agent's hooks object as read from its settings file; shapes are checked by validateAgentHooks. */
export type AgentHooks = Record<string, unknown>;

export type EventAction = 'added' | 'updated' | 'unchanged' | 'removed';

export interface MergeResult {
  hooks: AgentHooks;
  actions: { event: string; action: EventAction }[];
}

/** The hook objects of an entry, when it has a hooks array. */
function hooksOf(entry: unknown): unknown[] | undefined {
  return isObject(entry) && Array.isArray(entry.hooks) ? entry.hooks : undefined;
}

/**
 * Maps every hookd hook of an event's entries (undefined drops it); entries without hookd hooks are
 * kept as they are, and an entry left without hooks is dropped.
 */
function mapHookdHooks(
  entries: readonly unknown[],
  map: (hook: Record<string, unknown>) => Record<string, unknown> | undefined,
): unknown[] {
  const out: unknown[] = [];
  for (const entry of entries) {
    const list = hooksOf(entry);
    if (!list || !list.some(isHookdHook)) {
      out.push(entry);
      continue;
    }
    const kept = list.flatMap((hook) => {
      if (!isHookdHook(hook)) return [hook];
      const mapped = map(hook as Record<string, unknown>);
      return mapped ? [mapped] : [];
    });
    if (kept.length > 0) out.push({ ...(entry as Record<string, unknown>), hooks: kept });
  }
  return out;
}

/** hookd's hook object for one event, and the matcher of the entry it goes in. */
export interface WantedHook {
  event: string;
  hook: Record<string, unknown>;
  /** The entry's matcher (default ''). */
  matcher?: string;
}

/** The entry of one event that holds only hookd's hook gets the wanted matcher; a shared entry keeps its own. */
function setMatcher(entries: unknown[], matcher: string): boolean {
  for (const [i, entry] of entries.entries()) {
    const list = hooksOf(entry);
    if (!list || !list.some(isHookdHook)) continue;
    const e = entry as Record<string, unknown>;
    if (list.length !== 1 || (e.matcher ?? '') === matcher) return false;
    entries[i] = { ...e, matcher };
    return true;
  }
  return false;
}

export interface MergeOptions {
  /** Remove hookd's hooks of every event not wanted (as uninstall does). */
  removeUnwanted?: boolean;
  /** Remove hookd's hooks of these events too (when not wanted here: they are wired in another file). */
  alsoRemove?: readonly string[];
  /**
   * Keep an event whose last entry is removed, as [] (Droid's hooks.json: the event it names replaces
   * settings.json's list, so dropping the key would bring back hooks the user had replaced).
   */
  keepEmptyEvents?: boolean;
}

/**
 * Wires hookd's hooks: one per wanted event, every other entry and key kept as it is. An event that
 * already has a hookd hook (any transport) keeps its place: that hook becomes the wanted one (in place,
 * so a transport switch moves nothing), its entry's matcher is set when the entry is hookd's alone, and
 * further hookd hooks in the event are dropped so hookd runs once per event. With `removeUnwanted`,
 * hookd's hooks of events not wanted are removed (as uninstall does).
 */
export function mergeHookdWiring(
  input: AgentHooks | undefined,
  wanted: readonly WantedHook[],
  options: MergeOptions = {},
): MergeResult {
  let hooks: AgentHooks = structuredClone(input ?? {});
  const actions: MergeResult['actions'] = [];
  const keep = new Set(wanted.map((w) => w.event));
  const also = new Set(options.alsoRemove ?? []);
  if (options.removeUnwanted || also.size > 0) {
    const others = Object.fromEntries(
      Object.entries(hooks).filter(
        ([event]) => !keep.has(event) && (options.removeUnwanted || also.has(event)),
      ),
    );
    const { hooks: cleaned, removed } = removeHookdEntries(others, options);
    for (const { event } of removed) {
      actions.push({ event, action: 'removed' });
      if (cleaned && Array.isArray(cleaned[event])) hooks[event] = cleaned[event];
      else delete hooks[event];
    }
    if (Object.keys(hooks).length === 0 && input !== undefined && wanted.length === 0) hooks = {};
  }
  for (const { event, hook: want, matcher = '' } of wanted) {
    const current = hooks[event];
    if (!Array.isArray(current)) {
      hooks[event] = [{ matcher, hooks: [want] }];
      actions.push({ event, action: 'added' });
      continue;
    }
    let found = false;
    let changed = false;
    const entries = mapHookdHooks(current, (hook) => {
      if (found) {
        changed = true;
        return undefined;
      }
      found = true;
      const next = transportOf(hook) === transportOf(want) ? { ...hook, ...want } : want;
      if (JSON.stringify(next) !== JSON.stringify(hook)) changed = true;
      return next;
    });
    if (!found) {
      entries.push({ matcher, hooks: [want] });
      actions.push({ event, action: 'added' });
    } else {
      if (setMatcher(entries, matcher)) changed = true;
      actions.push({ event, action: changed ? 'updated' : 'unchanged' });
    }
    hooks[event] = entries;
  }
  return { hooks, actions };
}

/**
 * Adds (or brings up to date) one hookd command entry per event (matcher ''), as mergeHookdWiring does;
 * hookd's hooks of other events are left alone.
 */
export function mergeHookdEntries(
  input: AgentHooks | undefined,
  options: { events: readonly string[]; command: string; timeoutSec: number },
): MergeResult {
  return mergeHookdWiring(
    input,
    options.events.map((event) => ({
      event,
      hook: {
        type: 'command',
        command: commandForEvent(options.command, event),
        timeout: options.timeoutSec,
      },
    })),
  );
}

export interface RemoveResult {
  /** Undefined when removing hookd's entries left the hooks object empty. */
  hooks: AgentHooks | undefined;
  removed: { event: string; count: number }[];
}

/**
 * Removes exactly hookd's hook objects. An entry left without hooks by the removal is dropped, an event
 * left without entries is dropped, and a hooks object left empty is reported as undefined; entries
 * that were already empty stay.
 */
export function removeHookdEntries(
  input: AgentHooks | undefined,
  options: { keepEmptyEvents?: boolean } = {},
): RemoveResult {
  if (!input) return { hooks: input, removed: [] };
  const hooks: AgentHooks = structuredClone(input);
  const removed: RemoveResult['removed'] = [];
  for (const [event, current] of Object.entries(hooks)) {
    // A key that assignment would not create as itself (a file's "__proto__") is left as it is.
    if (!Array.isArray(current) || event === '__proto__') continue;
    let count = 0;
    const entries = mapHookdHooks(current, () => {
      count++;
      return undefined;
    });
    if (count === 0) continue;
    removed.push({ event, count });
    if (entries.length > 0 || options.keepEmptyEvents) hooks[event] = entries;
    else delete hooks[event];
  }
  if (removed.length > 0 && Object.keys(hooks).length === 0 && !options.keepEmptyEvents)
    return { hooks: undefined, removed };
  return { hooks, removed };
}

/** One agent entry with only its non-hookd hooks, as `hookd import` moves it. */
export interface ForeignEntry {
  event: string;
  index: number;
  entry: Record<string, unknown>;
}

/** Every entry's non-hookd hooks, in file order; entries that are not objects with a hooks array are skipped. */
export function listForeignEntries(hooks: AgentHooks | undefined): ForeignEntry[] {
  const out: ForeignEntry[] = [];
  for (const [event, entries] of Object.entries(hooks ?? {})) {
    if (!Array.isArray(entries)) continue;
    entries.forEach((entry, index) => {
      const list = hooksOf(entry);
      if (!list) return;
      const foreign = list.filter((hook) => !isHookdHook(hook));
      if (foreign.length > 0)
        out.push({ event, index, entry: { ...(entry as Record<string, unknown>), hooks: foreign } });
    });
  }
  return out;
}

/**
 * Removes the given entries' taken hooks (entries left without hooks are dropped); hookd's hooks and the
 * hooks not taken (e.g. Claude Code's `http` hooks) stay. An event left empty stays, as [], in its place:
 * hookd's entry usually goes there next (see dropEmptiedEvents).
 */
export function removeForeignEntries(input: AgentHooks, taken: readonly ForeignEntry[]): AgentHooks {
  const hooks: AgentHooks = structuredClone(input);
  for (const [event, current] of Object.entries(hooks)) {
    if (!Array.isArray(current)) continue;
    const byIndex = new Map(taken.filter((t) => t.event === event).map((t) => [t.index, t.entry]));
    if (byIndex.size === 0) continue;
    const entries: unknown[] = [];
    current.forEach((entry, index) => {
      const took = byIndex.get(index);
      if (!took) return void entries.push(entry);
      const gone = new Set(((took.hooks as unknown[]) ?? []).map((h) => JSON.stringify(h)));
      const kept = (hooksOf(entry) ?? []).filter(
        (hook) => isHookdHook(hook) || !gone.has(JSON.stringify(hook)),
      );
      if (kept.length > 0) entries.push({ ...(entry as Record<string, unknown>), hooks: kept });
    });
    hooks[event] = entries;
  }
  return hooks;
}

/** Drops the events that are empty now but were not before, so an import leaves no [] behind. */
export function dropEmptiedEvents(before: AgentHooks, after: AgentHooks): AgentHooks {
  const out: AgentHooks = {};
  for (const [event, entries] of Object.entries(after)) {
    const emptied = Array.isArray(entries) && entries.length === 0;
    const wasEmpty = Array.isArray(before[event]) && (before[event] as unknown[]).length === 0;
    if (!emptied || wasEmpty) out[event] = entries;
  }
  return out;
}

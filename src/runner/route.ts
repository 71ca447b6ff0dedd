import type { HookCommand, HookdConfig, HookEntry } from '../config/schemas/schema.js';
import type { ConfigLevel } from '../config/merge.js';
import type { HookEvent } from '../events/types.js';
import { matcherTarget } from '../events/names.js';
import { matcherRules } from '../agents/hook-rules.js';
import { isAgentId } from '../agents/ids.js';
import { matchesPattern } from './matcher.js';
// From its own chunk in the hook bundle: only an entry with `kinds` loads the agents' tool tables.
import { matchKinds, mismatchText, type Mismatch, type MismatchParts } from './kind-match.js';
import type { ToolKind } from '../agents/types.js';
import { ownValue } from '../util/own.js';

/** A command selected for an event, with everything needed to run and report it. */
export interface PlannedCommand {
  /** Position in config order across all entries of the event (decisions are taken in this order). */
  index: number;
  name: string;
  spec: HookCommand;
  timeoutMs: number;
  /**
   * Which config level the command came from: the user's own file, or a project file the user trusted.
   * A project command may add behaviour but must never override a user command's decision.
   */
  origin: ConfigLevel;
  /** The canonical tool kind the entry's `kinds` matched, when it has `kinds`. */
  kind?: ToolKind;
}

/** Where each entry of the config came from (LoadedConfig provides it); absent = all from the user. */
export interface EntryLevels {
  entryLevels?: Record<string, readonly ConfigLevel[]>;
  /** A trusted project file's settings.commandTimeoutSec, for its own commands only. */
  projectCommandTimeoutSec?: number;
}

export interface SkippedEntry {
  entry: number;
  reason: string;
}

function toolCommand(event: HookEvent): unknown {
  const input = event.payload.tool_input;
  return input && typeof input === 'object' ? (input as Record<string, unknown>).command : undefined;
}

/**
 * How fields the event lacks are read: as the agent reads them (no value: a matcher does not match), or,
 * for input hookd could not read whole, as unknown (`absentMatches`: the entry may apply).
 */
export interface MatchOptions {
  absentMatches?: boolean;
}

/**
 * Whether an entry matches the event (with the tool kind its `kinds` matched), or why not: the why is
 * put into words by `mismatchText` only when someone reads it (explain), off the hook's own path.
 */
export function entryMatch(
  entry: HookEntry,
  event: HookEvent,
  options: MatchOptions = {},
): { mismatch: Mismatch } | { kind?: ToolKind } {
  const mismatch = (...why: MismatchParts) => ({ mismatch: why });
  // An entry for other agents: an event of an agent without an adapter (unknown, or only recognised,
  // such as Cursor) still runs it: a guard must not go missing.
  const agent = isAgentId(event.agent) ? event.agent : 'unknown';
  if (agent !== 'unknown') {
    if (entry.agent !== undefined && entry.agent !== agent) return mismatch('agent', entry.agent, '', agent);
    if (entry.agents !== undefined && !entry.agents.includes(agent))
      return mismatch('agents', entry.agents, '', agent);
  }
  const p = event.payload;
  const unknown = (value: unknown) => options.absentMatches === true && value === undefined;
  // `matcher` is the agent's own key: read the way the agent that sent the event reads it (its rules are
  // read only for an entry that has one: another agent's load from a chunk, src/agents/hook-rules.ts).
  if (entry.matcher !== undefined) {
    const target = matcherTarget(event.agent, event.name, p);
    const rule = {
      agent: event.agent,
      wideList: matcherRules(event.agent).wideListEvents?.includes(event.name),
    };
    if (target && !unknown(target.value) && !matchesPattern(entry.matcher, target.value, rule))
      return mismatch('matcher', entry.matcher, target.field, target.value);
  }
  const checks: [keyof HookEntry, string, unknown][] = [
    ['tool', 'tool_name', p.tool_name],
    ['source', 'source', p.source],
    ['trigger', 'trigger', p.trigger],
    ['notification_type', 'notification_type', p.notification_type],
    ['reason', 'reason', p.reason],
    ['commandRegex', 'tool_input.command', toolCommand(event)],
  ];
  for (const [key, label, value] of checks) {
    const pattern = entry[key] as string | undefined;
    if (pattern !== undefined && !unknown(value) && !matchesPattern(pattern, value)) {
      return mismatch(key, pattern, label, value);
    }
  }
  if (entry.kinds === undefined || unknown(p.tool_name)) return {};
  return matchKinds(entry.kinds, agent, p.tool_name);
}

export function commandLabel(spec: HookCommand): string {
  if (spec.name) return spec.name;
  const first = spec.command.trim().split(/\s+/).slice(0, 3).join(' ');
  return first.length > 60 ? `${first.slice(0, 57)}...` : first;
}

/**
 * Selects the commands to run for an event, in config order: matching entries, enabled commands,
 * identical commands once (as the agent does; the first occurrence's options win, and user entries
 * come first, so a project entry never changes a user command's blocking, enabled or timeout).
 */
export function planCommands(
  event: HookEvent,
  config: HookdConfig,
  levels: EntryLevels = {},
  match: MatchOptions = {},
): { commands: PlannedCommand[]; skipped: SkippedEntry[]; disabled: string[] } {
  const entries = Object.hasOwn(config.hooks, event.name) ? config.hooks[event.name]! : [];
  const entryLevels =
    levels.entryLevels && Object.hasOwn(levels.entryLevels, event.name)
      ? levels.entryLevels[event.name]
      : undefined;
  const commands: PlannedCommand[] = [];
  const skipped: SkippedEntry[] = [];
  const disabled: string[] = [];
  const seen = new Set<string>();
  const userDisabled = new Set<string>();
  entries.forEach((entry, entryIndex) => {
    const matched = entryMatch(entry, event, match);
    if ('mismatch' in matched) {
      const why = matched.mismatch;
      // Put into words when read (explain, emit): the hook itself never reads it.
      skipped.push({
        entry: entryIndex,
        get reason() {
          return mismatchText(why);
        },
      });
      return;
    }
    const origin = entryLevels?.[entryIndex] ?? 'user';
    for (const spec of entry.hooks) {
      const key = `${spec.command}\0${spec.cwd ?? ''}\0${JSON.stringify(spec.env ?? {})}`;
      // A command the user switched off stays off: a project entry cannot switch it back on.
      if (spec.enabled === false || (origin === 'project' && userDisabled.has(key))) {
        disabled.push(commandLabel(spec));
        if (origin === 'user') userDisabled.add(key);
        continue;
      }
      if (seen.has(key)) continue;
      seen.add(key);
      const timeoutSec =
        spec.timeout ??
        (origin === 'project' ? levels.projectCommandTimeoutSec : undefined) ??
        config.settings.commandTimeoutSec;
      commands.push({
        index: commands.length,
        name: commandLabel(spec),
        spec,
        timeoutMs: Math.round(timeoutSec * 1000),
        origin,
        ...(matched.kind !== undefined ? { kind: matched.kind } : {}),
      });
    }
  });
  return { commands, skipped, disabled };
}

/** The time all commands of this event may take together. */
export function eventBudgetMs(event: HookEvent, config: HookdConfig): number {
  const byEvent = ownValue(config.settings.eventBudgetSecByEvent, event.name);
  return Math.round((byEvent ?? config.settings.eventBudgetSec) * 1000);
}

import { basename } from 'node:path';
import type { AgentKind, HookPayload } from './types.js';
import { ownValue } from '../util/own.js';
import { CLAUDE_EVENTS } from '../agents/claude-protocol.js';
import { DROID_EVENTS } from '../agents/droid-protocol.js';
import { matcherRules } from '../agents/hook-rules.js';

/** The events of Droid and Claude Code (docs/agents/); unknown events pass through hookd untouched. */
export { CLAUDE_EVENTS, DROID_EVENTS };

export type DroidEventName = (typeof DROID_EVENTS)[number];

/**
 * What an event name hookd takes from outside the payload looks like (`hookd hook --event PreToolUse`,
 * or the name found in input it could not read): letters, digits and `_`, starting with a letter, at
 * most 64 characters. Every event of both agents is such a name.
 */
const EVENT_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

export function isEventName(value: unknown): value is string {
  return typeof value === 'string' && EVENT_NAME.test(value);
}

/**
 * The event a watcher on the platform API raises in the daemon (docs/watch.md): no agent sends it; notify
 * rules match it like any event (`on: PlatformWatch`, `notificationType` for the watcher's kind).
 */
export const PLATFORM_WATCH_EVENT = 'PlatformWatch';

/**
 * Events where exit 2 makes the agent go on instead of stopping (the next one says `stop_hook_active`):
 * hookd never answers them with exit 2 for a failure of its own, which would loop.
 */
export const GO_ON_EVENTS: ReadonlySet<string> = new Set(['Stop', 'SubagentStop']);

export function isDroidEvent(name: string): name is DroidEventName {
  return (DROID_EVENTS as readonly string[]).includes(name);
}

/** Where an event's `matcher` applies: the field's name and the value it is tested against. */
export interface MatcherTarget {
  field: string;
  value: unknown;
}

/**
 * The value an entry's `matcher` is tested against for this agent's event, or undefined when the event
 * has no matcher (the matcher is then ignored, as the agents do).
 */
export function matcherTarget(
  agent: AgentKind,
  name: string,
  payload: HookPayload,
): MatcherTarget | undefined {
  const rules = matcherRules(agent);
  const field = ownValue(rules.fieldByEvent, name);
  if (!field) return undefined;
  const value = payload[field];
  if (rules.baseNameEvents?.includes(name) && typeof value === 'string')
    return { field, value: basename(value) };
  return { field, value };
}

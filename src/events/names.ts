import { basename } from 'node:path';
import type { AgentKind, HookPayload } from './types.js';
import { ownValue } from '../util/own.js';

/** The nine events the Droid CLI fires (hook-protocol.md). Others pass through untouched. */
export const DROID_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'Notification',
  'Stop',
  'SubagentStop',
  'PreCompact',
  'SessionEnd',
] as const;

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

/**
 * The 33 events Claude Code 2.1.330 knows (its settings schema's "Valid events" list, in its order).
 * Later versions may add more: unknown events pass through hookd untouched.
 */
export const CLAUDE_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PostToolBatch',
  'Notification',
  'UserPromptSubmit',
  'UserPromptExpansion',
  'SessionStart',
  'SessionEnd',
  'Stop',
  'StopFailure',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PostCompact',
  'PreModelSwitch',
  'PostModelSwitch',
  'PermissionRequest',
  'PermissionDenied',
  'Setup',
  'TeammateIdle',
  'TaskCreated',
  'TaskCompleted',
  'Elicitation',
  'ElicitationResult',
  'ConfigChange',
  'WorktreeCreate',
  'WorktreeRemove',
  'InstructionsLoaded',
  'CwdChanged',
  'FileChanged',
  'DirectoryAdded',
  'MessageDisplay',
] as const;

/**
 * The payload field an entry's `matcher` is tested against, per event. Droid tests the tool name,
 * SessionStart `source` and PreCompact `trigger`; Claude Code also matches Notification's
 * `notification_type` and SessionEnd's `reason`, and so does hookd.
 */
export const MATCHER_FIELD: Readonly<Record<string, string>> = {
  PreToolUse: 'tool_name',
  PostToolUse: 'tool_name',
  PermissionRequest: 'tool_name',
  SessionStart: 'source',
  PreCompact: 'trigger',
  Notification: 'notification_type',
  SessionEnd: 'reason',
};

/**
 * Claude Code 2.1.330's matcher field per event (read from the binary's own switch). Events not listed
 * (UserPromptSubmit, Stop, PostToolBatch, CwdChanged, WorktreeCreate, ...) ignore the matcher.
 * FileChanged matches the changed file's base name; the model switches the target model.
 */
export const CLAUDE_MATCHER_FIELD: Readonly<Record<string, string>> = {
  PreToolUse: 'tool_name',
  PostToolUse: 'tool_name',
  PostToolUseFailure: 'tool_name',
  PermissionRequest: 'tool_name',
  PermissionDenied: 'tool_name',
  UserPromptExpansion: 'command_name',
  SessionStart: 'source',
  Setup: 'trigger',
  PreCompact: 'trigger',
  PostCompact: 'trigger',
  PreModelSwitch: 'to_model',
  PostModelSwitch: 'to_model',
  Notification: 'notification_type',
  SessionEnd: 'reason',
  StopFailure: 'error',
  SubagentStart: 'agent_type',
  SubagentStop: 'agent_type',
  Elicitation: 'mcp_server_name',
  ElicitationResult: 'mcp_server_name',
  ConfigChange: 'source',
  DirectoryAdded: 'source',
  InstructionsLoaded: 'load_reason',
  FileChanged: 'file_path',
};

/**
 * Claude Code reads a matcher of these events as a list of names when it is made only of letters,
 * digits, `_`, `|`, `,`, space and `-`; for the other events only letters, digits, `_` and `|` make a list.
 */
const CLAUDE_WIDE_LIST_EVENTS = new Set([
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionRequest',
  'PermissionDenied',
  'UserPromptExpansion',
  'SessionStart',
  'SessionEnd',
  'Setup',
  'PreCompact',
  'PostCompact',
  'PreModelSwitch',
  'PostModelSwitch',
  'Notification',
  'SubagentStart',
  'SubagentStop',
  'Elicitation',
  'ElicitationResult',
  'ConfigChange',
  'InstructionsLoaded',
  'DirectoryAdded',
]);

export function claudeWideListEvent(name: string): boolean {
  return CLAUDE_WIDE_LIST_EVENTS.has(name);
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
  const field = ownValue(agent === 'claude' ? CLAUDE_MATCHER_FIELD : MATCHER_FIELD, name);
  if (!field) return undefined;
  const value = payload[field];
  if (agent === 'claude' && name === 'FileChanged' && typeof value === 'string')
    return { field, value: basename(value) };
  return { field, value };
}

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

export function isDroidEvent(name: string): name is DroidEventName {
  return (DROID_EVENTS as readonly string[]).includes(name);
}

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

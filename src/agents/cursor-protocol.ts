import type { DetectSignal, RecognisedProtocol } from './types.js';

/*
 * Cursor, recognised from its documented hook payload (cursor.com/docs/hooks and "Third Party Hooks";
 * not observed: its binary does not run here). Cursor runs the hooks of Claude Code's settings files
 * under its own event names and sends its own fields: `conversation_id`, `generation_id`,
 * `workspace_roots`, `cursor_version`, `model`, `user_email`. hookd has no adapter for it
 * (docs/agents/README.md): its events keep the rules of an agent hookd cannot tell.
 */

/** Fields no other agent sends: a proof from the event itself. */
export const CURSOR_DETECT: readonly DetectSignal[] = [
  { rank: 0.5, fields: ['cursor_version', 'workspace_roots'] },
];

/**
 * Cursor's lifecycle events that have a Claude Code counterpart; the others (beforeShellExecution,
 * afterFileEdit, ...) keep their own names.
 */
export const CURSOR_EVENT_NAMES: Readonly<Record<string, string>> = {
  sessionStart: 'SessionStart',
  sessionEnd: 'SessionEnd',
  beforeSubmitPrompt: 'UserPromptSubmit',
  preToolUse: 'PreToolUse',
  postToolUse: 'PostToolUse',
  postToolUseFailure: 'PostToolUseFailure',
  subagentStart: 'SubagentStart',
  subagentStop: 'SubagentStop',
  preCompact: 'PreCompact',
  stop: 'Stop',
};

export const CURSOR_SESSION_ID_FIELD = 'conversation_id';

/**
 * The events Cursor documents a `permission` answer for (`{"permission": "allow" | "deny" | "ask",
 * "user_message", "agent_message"}`), in hookd's names: preToolUse is PreToolUse, the others keep
 * Cursor's.
 */
export const CURSOR_PERMISSION_EVENTS: readonly string[] = [
  'PreToolUse',
  'beforeShellExecution',
  'beforeMCPExecution',
  'beforeReadFile',
];

/**
 * The events whose documented answer can ask (`"permission": "ask"`: Cursor puts the call to the user);
 * its preToolUse and beforeReadFile answers only allow or deny.
 */
export const CURSOR_ASK_EVENTS: readonly string[] = ['beforeShellExecution', 'beforeMCPExecution'];

/** What hookd knows of Cursor (data only; each part is its own export, so a bundle takes what it uses). */
export const CURSOR_PROTOCOL: RecognisedProtocol = {
  detect: CURSOR_DETECT,
  eventNames: CURSOR_EVENT_NAMES,
  sessionIdField: CURSOR_SESSION_ID_FIELD,
};

import type { CanonicalEvent } from '../types.js';

/**
 * The canonical meaning of the nine events of the hook dialect Droid and Claude Code share (and other
 * agents speak nearly as is); an adapter spreads this and adds its own.
 */
export const SHARED_CANONICAL_EVENTS: Readonly<Record<string, CanonicalEvent>> = {
  SessionStart: 'session-start',
  UserPromptSubmit: 'prompt',
  PreToolUse: 'before-tool',
  PostToolUse: 'after-tool',
  Notification: 'notification',
  Stop: 'stop',
  SubagentStop: 'subagent-stop',
  PreCompact: 'before-compact',
  SessionEnd: 'session-end',
};

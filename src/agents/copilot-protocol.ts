import { CLAUDE_REPLY } from './claude-protocol.js';
import type { AgentProtocol, DetectSignal, MatcherRules, ReplyRules, ToolTable } from './types.js';

/**
 * The events GitHub Copilot CLI 1.0.102 accepts under Claude Code's names (docs/agents/copilot.md). A
 * hooks file keyed by these names gets Claude Code's payloads (`hook_event_name`, `session_id`,
 * `tool_name`, `tool_input`), which is how hookd wires it. Its own camelCase names (`preToolUse`,
 * `agentStop`, ...) get payloads of another shape (`sessionId`, `toolArgs`) and are not wired by hookd.
 * PermissionRequest is left out: Copilot sends it in the camelCase shape under either name (and for
 * every tool call, even when all tools are allowed).
 */
export const COPILOT_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'Notification',
  'Stop',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'ErrorOccurred',
  'SessionEnd',
] as const;

/**
 * Copilot matches an entry's matcher against the tool name (its shell tool reaches hooks as `Bash`), as
 * a whole: `*` or a RegExp that matches all of it (`Read|Bash` and `.*` match Bash; `Ba` does not). An
 * empty matcher is refused, and its entry skipped. Of hookd's rules, a list of names, else a RegExp,
 * agrees with every case observed.
 */
export const COPILOT_MATCHER: MatcherRules = {
  syntax: 'name-list-or-regexp',
  fieldByEvent: {
    PreToolUse: 'tool_name',
    PostToolUse: 'tool_name',
    PostToolUseFailure: 'tool_name',
  },
};

/**
 * `hookSpecificOutput.permissionDecision: "deny"` blocks a tool call and the model reads "Denied by
 * preToolUse hook: <reason>". Exit 2 blocks too, but the model reads only "hook exited with code 2":
 * hookd answers every PreToolUse deny as JSON (`blockReason: 'json'`) so that the reason arrives.
 */
export const COPILOT_REPLY: ReplyRules = { ...CLAUDE_REPLY, blockReason: 'json' };

/** A Copilot CLI session's event log: `~/.copilot/session-state/<session id>/events.jsonl`. */
export const COPILOT_EVENTS_LOG = /\/session-state\/[0-9a-f-]{36}\/events\.jsonl$/;

// Copilot sets COPILOT_CLI=1 in a hook's environment, and CLAUDE_PROJECT_DIR too (so it must outrank
// Claude's signs); an enclosing Droid session's variables go first. Its Stop carries its event log.
export const COPILOT_DETECT: readonly DetectSignal[] = [
  { rank: 0.5, transcriptMarker: '/session-state/', transcriptPattern: COPILOT_EVENTS_LOG },
  { rank: 2.5, env: ['COPILOT_CLI'] },
];

export const COPILOT_PROJECT_DIR_ENV: readonly string[] = ['COPILOT_PROJECT_DIR'];

/**
 * Copilot's tools as its Claude-dialect hooks name them (docs/agents/copilot.md). Observed: the model's
 * `bash`, `view`, `glob`, `rg`, `create` and `edit` reach hooks as `Bash`, `Read`, `Glob`, `Grep`,
 * `Write` and `Edit`. (Copilot offers `create` and `edit` to Claude models; to GPT models it offers
 * `apply_patch` instead.)
 */
export const COPILOT_TOOLS: ToolTable = {
  tools: { Bash: 'shell', Edit: 'edit', Write: 'write', Read: 'read', Glob: 'read', Grep: 'read' },
  mcpToolPrefix: 'mcp__',
};

/** What the hook path needs of Copilot CLI (data only). */
export const COPILOT_PROTOCOL: AgentProtocol = {
  id: 'copilot',
  events: COPILOT_EVENTS,
  matcher: COPILOT_MATCHER,
  reply: COPILOT_REPLY,
  detect: COPILOT_DETECT,
  projectDirEnv: COPILOT_PROJECT_DIR_ENV,
};

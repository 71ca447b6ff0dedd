import type { AgentProtocol, DetectSignal, MatcherRules, ReplyRules, ToolTable } from './types.js';

/**
 * The events Codex CLI 0.171.0 accepts in its hooks file (what `codex app-server` lists as `hooks/list`),
 * in its order. It speaks Claude Code's dialect: the same names and payload fields, plus `turn_id` and
 * `model`, and an `Interrupt` event of its own (docs/agents/codex.md).
 */
export const CODEX_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'PreCompact',
  'PostCompact',
  'SubagentStart',
  'SubagentStop',
  'Stop',
  'Interrupt',
  'SessionEnd',
] as const;

/** Codex matches an entry's matcher against the tool name, Claude Code's way (its shell tool is `Bash`). */
export const CODEX_MATCHER: MatcherRules = {
  syntax: 'exact-or-regexp',
  fieldByEvent: {
    PreToolUse: 'tool_name',
    PostToolUse: 'tool_name',
    PermissionRequest: 'tool_name',
    SessionStart: 'source',
    PreCompact: 'trigger',
    PostCompact: 'trigger',
    SessionEnd: 'reason',
  },
};

/**
 * Exit 2 with the reason on stderr, or `hookSpecificOutput.permissionDecision: "deny"`, blocks a tool
 * call; the model reads "Command blocked by PreToolUse hook: <reason>". A PreToolUse answer cannot say
 * "ask": hookd answers with the nearest safe one, a deny that says so.
 */
export const CODEX_REPLY: ReplyRules = {
  jsonStdout: 'raw',
  verdict: 'strongest',
  exit1ShowsStderr: false,
  ask: { nearest: 'deny', who: 'Codex CLI hooks' },
  stdoutJsonOnly: false,
  contextEvents: ['SessionStart', 'UserPromptSubmit'],
  goOnEvents: ['Stop', 'SubagentStop'],
};

/** A Codex rollout file: `<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl`. */
export const CODEX_ROLLOUT = /\/sessions\/\d{4}\/\d\d\/\d\d\/rollout-[^/]+\.jsonl$/;

// Codex sets no variable of its own in a hook's environment: its rollout transcript is the sign. It
// ranks before Droid's variables, which an enclosing Droid session leaves in the environment.
export const CODEX_DETECT: readonly DetectSignal[] = [
  {
    rank: 0.5,
    transcriptMarker: '/rollout-',
    transcriptPattern: CODEX_ROLLOUT,
  },
];

export const CODEX_PROJECT_DIR_ENV: readonly string[] = [];

/**
 * Codex's tools as its hooks name them (docs/agents/codex.md): the shell tool (`exec_command` to the
 * model) reaches hooks as `Bash`; a file change as `apply_patch`, the patch text in `tool_input.command`.
 */
export const CODEX_TOOLS: ToolTable = {
  tools: { Bash: 'shell', apply_patch: 'edit' },
  mcpToolPrefix: 'mcp__',
};

/** What the hook path needs of Codex CLI (data only). */
export const CODEX_PROTOCOL: AgentProtocol = {
  id: 'codex',
  events: CODEX_EVENTS,
  matcher: CODEX_MATCHER,
  reply: CODEX_REPLY,
  detect: CODEX_DETECT,
  // Codex names no project: the session's cwd is its project.
  projectDirEnv: CODEX_PROJECT_DIR_ENV,
};

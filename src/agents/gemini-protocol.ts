import type { AgentProtocol, DetectSignal, MatcherRules, ReplyRules, ToolTable } from './types.js';

/** Gemini CLI 0.61.0's hook events, in the order one turn fires them (docs/agents/gemini.md). */
export const GEMINI_EVENTS = [
  'SessionStart',
  'BeforeAgent',
  'PreCompress',
  'BeforeModel',
  'BeforeToolSelection',
  'AfterModel',
  'BeforeTool',
  'AfterTool',
  'AfterAgent',
  'Notification',
  'SessionEnd',
] as const;

/**
 * Gemini's event name -> hookd's name for it in the config: the Claude Code counterpart. AfterAgent ends
 * a turn like Stop (a block there makes the agent go on, as Stop's does); BeforeAgent carries the prompt
 * like UserPromptSubmit. Events without a counterpart keep their own names.
 */
export const GEMINI_CONFIG_NAMES: Readonly<Record<string, string>> = {
  BeforeTool: 'PreToolUse',
  AfterTool: 'PostToolUse',
  BeforeAgent: 'UserPromptSubmit',
  AfterAgent: 'Stop',
  PreCompress: 'PreCompact',
};

/** Gemini matches an entry's matcher against the tool name (`run_shell_command`, `replace`, ...). */
export const GEMINI_MATCHER: MatcherRules = {
  syntax: 'exact-or-regexp',
  fieldByEvent: {
    BeforeTool: 'tool_name',
    AfterTool: 'tool_name',
    PreToolUse: 'tool_name',
    PostToolUse: 'tool_name',
  },
};

/**
 * Exit 2 (reason on stderr) or `{"decision": "deny", "reason": ...}` blocks; the model reads
 * `{"error": "Tool execution blocked: <reason>"}`. Any stdout that is not a JSON object is shown to the
 * user as a "Hook system message": hookd writes nothing but JSON there, context as
 * `hookSpecificOutput.additionalContext`.
 */
export const GEMINI_REPLY: ReplyRules = {
  jsonStdout: 'trimmed',
  verdict: 'strongest',
  exit1ShowsStderr: false,
  ask: { nearest: 'deny', who: 'Gemini CLI hooks' },
  stdoutJsonOnly: true,
  // In the names hookd's event carries (GEMINI_CONFIG_NAMES): BeforeAgent and AfterAgent.
  contextEvents: ['SessionStart', 'UserPromptSubmit'],
  goOnEvents: ['Stop'],
};

/** A Gemini CLI chat file: `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`. */
export const GEMINI_CHAT = /\/tmp\/[^/]+\/chats\/session-[^/]+\.jsonl$/;

// Gemini sets GEMINI_SESSION_ID to the payload's session_id (and CLAUDE_PROJECT_DIR too, so this must
// outrank Claude's signs); a chat file under ~/.gemini/tmp is the sign without it.
export const GEMINI_DETECT: readonly DetectSignal[] = [
  { rank: 0, sessionEnv: 'GEMINI_SESSION_ID' },
  {
    rank: 0.5,
    transcriptMarker: '/chats/session-',
    transcriptPattern: GEMINI_CHAT,
  },
];

export const GEMINI_PROJECT_DIR_ENV: readonly string[] = ['GEMINI_PROJECT_DIR'];

/**
 * Gemini CLI's tools as its hooks name them (docs/agents/gemini.md): run_shell_command as recorded, the
 * others as Gemini's own tools reference (0.61.0) names them, `search_file_content` being the older name
 * of `grep_search` and `invoke_agent` the tool that starts a sub-agent.
 */
export const GEMINI_TOOLS: ToolTable = {
  tools: {
    run_shell_command: 'shell',
    replace: 'edit',
    write_file: 'write',
    read_file: 'read',
    read_many_files: 'read',
    list_directory: 'read',
    glob: 'read',
    grep_search: 'read',
    search_file_content: 'read',
    web_fetch: 'fetch',
    google_web_search: 'fetch',
    invoke_agent: 'task',
  },
  mcpToolPrefix: 'mcp_',
};

/** What the hook path needs of Gemini CLI (data only). */
export const GEMINI_PROTOCOL: AgentProtocol = {
  id: 'gemini',
  events: GEMINI_EVENTS,
  matcher: GEMINI_MATCHER,
  reply: GEMINI_REPLY,
  detect: GEMINI_DETECT,
  projectDirEnv: GEMINI_PROJECT_DIR_ENV,
};

import type { AgentProtocol, DetectSignal, MatcherRules, ReplyRules, ToolTable } from './types.js';

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
 * Claude Code 2.1.330's matcher field per event (read from the binary's switch); events not listed
 * (UserPromptSubmit, Stop, PostToolBatch, CwdChanged, WorktreeCreate, ...) ignore the matcher.
 * FileChanged matches the changed file's base name.
 */
export const CLAUDE_MATCHER: MatcherRules = {
  syntax: 'name-list-or-regexp',
  fieldByEvent: {
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
  },
  // A matcher of these events is a list when made of letters, digits, `_`, `|`, `,`, space and `-`;
  // for the other events only letters, digits, `_` and `|` make a list.
  wideListEvents: [
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
  ],
  baseNameEvents: ['FileChanged'],
};

export const CLAUDE_REPLY: ReplyRules = {
  jsonStdout: 'raw',
  verdict: 'strongest',
  exit1ShowsStderr: false,
  ask: 'supported',
  stdoutJsonOnly: false,
  contextEvents: ['SessionStart', 'UserPromptSubmit'],
  goOnEvents: ['Stop', 'SubagentStop'],
};

// Claude Code sets CLAUDE_CODE_SESSION_ID to the payload's session_id (an enclosing session cannot fake
// it); CLAUDE_PROJECT_DIR is also set by Droid, so it counts only after Droid's own signs.
export const CLAUDE_DETECT: readonly DetectSignal[] = [
  { rank: 0, sessionEnv: 'CLAUDE_CODE_SESSION_ID' },
  { rank: 3, env: ['CLAUDE_PROJECT_DIR'], fields: ['tool_use_id', 'last_assistant_message'] },
  { rank: 4, transcriptMarker: '/.claude/' },
];

export const CLAUDE_PROJECT_DIR_ENV: readonly string[] = ['CLAUDE_PROJECT_DIR'];

/** Claude Code's tools as its hooks name them (docs/agents/claude.md). */
export const CLAUDE_TOOLS: ToolTable = {
  tools: {
    Bash: 'shell',
    Edit: 'edit',
    MultiEdit: 'edit',
    NotebookEdit: 'edit',
    Write: 'write',
    Read: 'read',
    Grep: 'read',
    Glob: 'read',
    WebFetch: 'fetch',
    WebSearch: 'fetch',
    Agent: 'task',
    Task: 'task',
  },
  mcpToolPrefix: 'mcp__',
};

/** What the hook path needs of Claude Code (data only; each part is its own export). */
export const CLAUDE_PROTOCOL: AgentProtocol = {
  id: 'claude',
  events: CLAUDE_EVENTS,
  matcher: CLAUDE_MATCHER,
  reply: CLAUDE_REPLY,
  detect: CLAUDE_DETECT,
  projectDirEnv: CLAUDE_PROJECT_DIR_ENV,
};

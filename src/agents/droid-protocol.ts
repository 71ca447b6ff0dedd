import type { AgentProtocol, DetectSignal, MatcherRules, ReplyRules, ToolTable } from './types.js';

/** The nine events the Droid CLI fires (docs/agents/droid.md). Others pass through untouched. */
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

/**
 * Droid tests the tool name, SessionStart's `source` and PreCompact's `trigger`; hookd also matches
 * Notification's `notification_type` and SessionEnd's `reason`, as Claude Code does.
 */
export const DROID_MATCHER: MatcherRules = {
  syntax: 'exact-or-regexp',
  fieldByEvent: {
    PreToolUse: 'tool_name',
    PostToolUse: 'tool_name',
    PermissionRequest: 'tool_name',
    SessionStart: 'source',
    PreCompact: 'trigger',
    Notification: 'notification_type',
    SessionEnd: 'reason',
  },
};

export const DROID_REPLY: ReplyRules = {
  jsonStdout: 'trimmed',
  verdict: 'first',
  exit1ShowsStderr: true,
  ask: 'supported',
  stdoutJsonOnly: false,
  contextEvents: ['SessionStart', 'UserPromptSubmit'],
  goOnEvents: ['Stop', 'SubagentStop'],
};

// Droid sets FACTORY_PROJECT_DIR (and CLAUDE_PROJECT_DIR for Claude-style hooks); its transcripts live
// under ~/.factory.
export const DROID_DETECT: readonly DetectSignal[] = [
  { rank: 1, env: ['FACTORY_PROJECT_DIR', 'DROID_PROJECT_DIR'] },
  { rank: 2, transcriptMarker: '/.factory/' },
];

export const DROID_PROJECT_DIR_ENV: readonly string[] = [
  'FACTORY_PROJECT_DIR',
  'DROID_PROJECT_DIR',
  'CLAUDE_PROJECT_DIR',
];

/** Droid's tools as its hooks name them (docs/agents/droid.md). */
export const DROID_TOOLS: ToolTable = {
  tools: {
    Execute: 'shell',
    Edit: 'edit',
    ApplyPatch: 'edit',
    Create: 'write',
    Read: 'read',
    LS: 'read',
    Grep: 'read',
    Glob: 'read',
    FetchUrl: 'fetch',
    WebSearch: 'fetch',
    Task: 'task',
  },
  mcpToolPrefix: 'mcp__',
};

/** What the hook path needs of Droid (data only; each part is its own export, so a bundle takes what it uses). */
export const DROID_PROTOCOL: AgentProtocol = {
  id: 'droid',
  events: DROID_EVENTS,
  matcher: DROID_MATCHER,
  reply: DROID_REPLY,
  detect: DROID_DETECT,
  projectDirEnv: DROID_PROJECT_DIR_ENV,
};

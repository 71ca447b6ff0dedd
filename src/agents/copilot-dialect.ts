import { isObject, type Json } from '../util/json-values.js';

/*
 * Copilot CLI's own hook dialect (docs/agents/copilot.md, "Two dialects"), as Copilot CLI 1.0.102 sends
 * it to a hooks file keyed by its camelCase event names (`{"version": 1, "hooks": {"preToolUse": [...]}}`):
 * `sessionId`, `toolName` (the model's name: `bash`, `create`), `toolArgs`, `toolResult` (`resultType`,
 * `textResultForLlm`), `transcriptPath`, `stopReason`, `initialPrompt`, a Unix ms `timestamp`, and no
 * event name at all. hookd reads such a payload as the event Copilot sends in Claude Code's dialect:
 * the same names, fields and tool names, added to hookd's own copy of the payload (its commands still
 * get Copilot's bytes on stdin). Part of the `dist/agents.cjs` chunk (agent-rules.ts).
 */

/** Copilot's camelCase event names and hookd's (Claude Code's) name for each. */
export const COPILOT_OWN_EVENT_NAMES: Readonly<Record<string, string>> = {
  sessionStart: 'SessionStart',
  userPromptSubmitted: 'UserPromptSubmit',
  preToolUse: 'PreToolUse',
  postToolUse: 'PostToolUse',
  postToolUseFailure: 'PostToolUseFailure',
  permissionRequest: 'PermissionRequest',
  notification: 'Notification',
  agentStop: 'Stop',
  subagentStart: 'SubagentStart',
  subagentStop: 'SubagentStop',
  preCompact: 'PreCompact',
  errorOccurred: 'ErrorOccurred',
  sessionEnd: 'SessionEnd',
};

/** The model's tool names and what Copilot's Claude-dialect hooks call them (observed). */
const TOOL_NAMES: Readonly<Record<string, string>> = {
  bash: 'Bash',
  view: 'Read',
  glob: 'Glob',
  rg: 'Grep',
  create: 'Write',
  edit: 'Edit',
};

/** camelCase field, and its name in Claude Code's dialect. */
const FIELDS: readonly (readonly [string, string])[] = [
  ['sessionId', 'session_id'],
  ['toolArgs', 'tool_input'],
  ['toolInput', 'tool_input'],
  ['transcriptPath', 'transcript_path'],
  ['stopReason', 'stop_reason'],
  ['initialPrompt', 'initial_prompt'],
];

/**
 * Copilot's name for the event a camelCase payload is, told by its fields (observed: no payload names its
 * event, except permissionRequest's `hookName`). Undefined when the fields fit none.
 */
function ownEventOf(payload: Json): string | undefined {
  if (typeof payload.hookName === 'string') return payload.hookName;
  if ('toolName' in payload) return 'toolResult' in payload ? 'postToolUse' : 'preToolUse';
  if ('transformedPrompt' in payload) return 'userPromptTransformed';
  if ('prompt' in payload) return 'userPromptSubmitted';
  if ('stopReason' in payload) return 'agentStop';
  if ('initialPrompt' in payload || 'source' in payload) return 'sessionStart';
  if ('error' in payload) return 'errorOccurred';
  if ('reason' in payload) return 'sessionEnd';
  return undefined;
}

/**
 * Adds Claude Code's fields to a payload in Copilot's own dialect (never replacing one it has) and
 * returns Copilot's name for its event, told by its fields.
 */
export function copilotOwnDialect(payload: Json): string | undefined {
  for (const [from, to] of FIELDS) if (from in payload && !(to in payload)) payload[to] = payload[from];
  if (typeof payload.toolName === 'string' && !('tool_name' in payload))
    payload.tool_name = Object.hasOwn(TOOL_NAMES, payload.toolName)
      ? TOOL_NAMES[payload.toolName]
      : payload.toolName;
  const result = payload.toolResult;
  if (isObject(result) && !('tool_result' in payload))
    payload.tool_result = {
      ...('resultType' in result ? { result_type: result.resultType } : {}),
      ...('textResultForLlm' in result ? { text_result_for_llm: result.textResultForLlm } : {}),
    };
  return ownEventOf(payload);
}

/**
 * A PreToolUse answer as Copilot reads it from a hook of its own dialect (observed): a top-level
 * `permissionDecision` with its `permissionDecisionReason`. Claude Code's `hookSpecificOutput` is
 * ignored there, and exit 2 blocks without the reason, so either becomes the top-level form.
 */
export function copilotOwnDialectAnswer(stdout: string, stderr: string, exitCode: number, by: string) {
  if (exitCode === 2) {
    const reason = stderr.trim() || `blocked by ${by}`;
    return { permissionDecision: 'deny', permissionDecisionReason: reason };
  }
  let answer: unknown;
  try {
    answer = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  if (!isObject(answer) || !isObject(answer.hookSpecificOutput)) return undefined;
  const { permissionDecision, permissionDecisionReason } = answer.hookSpecificOutput;
  if (typeof permissionDecision !== 'string') return undefined;
  return {
    permissionDecision,
    ...(typeof permissionDecisionReason === 'string' ? { permissionDecisionReason } : {}),
  };
}

/**
 * What hookd knows of the Codex CLI's hooks (observed with Codex CLI 0.171.0 offline: docs/agents/codex.md).
 * Data only, no imports: the hook path may use it.
 *
 * Codex speaks Claude Code's dialect: the same event names, the same payload fields (`session_id`,
 * `transcript_path`, `cwd`, `hook_event_name`, `tool_name`, `tool_input`, `tool_use_id`), the shell tool
 * named `Bash`, exit 2 or `hookSpecificOutput.permissionDecision: "deny"` to block. Its own additions are
 * `turn_id` and `model` on most events, and an `Interrupt` event.
 */

/** The events Codex CLI 0.171.0 accepts in its hooks file (its `hooks/list`), in its order. */
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

/**
 * The events `hookd install --agent codex` wires by default: the ones that carry a guard, a notification
 * or the ledger (the others may be named with --events).
 */
export const CODEX_DEFAULT_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'Stop',
  'Interrupt',
  'SessionEnd',
] as const;

/** Events Codex gives only a few seconds whatever the entry's timeout says (teardown). */
export const CODEX_SHORT_EVENTS: ReadonlySet<string> = new Set(['SessionEnd', 'Interrupt']);

/** The timeout, in seconds, hookd writes on those entries: Codex's cap. */
export const CODEX_SHORT_TIMEOUT_SEC = 3;

/**
 * Whether a payload is Codex's: its transcript is a rollout file under a Codex home's `sessions/`
 * (`<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl`). Codex sets no variable of its
 * own in a hook's environment, so the payload is all there is.
 */
export function isCodexPayload(payload: Record<string, unknown>): boolean {
  const path = payload.transcript_path;
  return typeof path === 'string' && /\/sessions\/\d{4}\/\d\d\/\d\d\/rollout-[^/]+\.jsonl$/.test(path);
}

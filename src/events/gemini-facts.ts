/**
 * What hookd knows of Gemini CLI's hooks (observed with Gemini CLI 0.61.0 offline: docs/agents/gemini.md).
 * Data only, no imports: the hook path may use it.
 *
 * Gemini names its events its own way; hookd gives each the name of its Claude Code counterpart
 * (`BeforeTool` is a `PreToolUse`), so one config, one set of notification rules and one ledger serve
 * every agent. The payload keeps Gemini's own name in `hook_event_name`.
 */

/** Gemini CLI 0.61.0's hook events, in the order one turn fires them. */
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
 * Gemini's event name -> hookd's name for it. AfterAgent ends a turn like Stop (a block there makes the
 * agent go on, as Stop's does); BeforeAgent carries the prompt like UserPromptSubmit. Events without a
 * counterpart (BeforeModel, AfterModel, BeforeToolSelection) keep their own names.
 */
export const GEMINI_CANONICAL: Readonly<Record<string, string>> = {
  BeforeTool: 'PreToolUse',
  AfterTool: 'PostToolUse',
  BeforeAgent: 'UserPromptSubmit',
  AfterAgent: 'Stop',
  PreCompress: 'PreCompact',
};

/** hookd's name for a Gemini event (the canonical one, else its own). */
export function geminiCanonical(name: string): string {
  return Object.hasOwn(GEMINI_CANONICAL, name) ? GEMINI_CANONICAL[name]! : name;
}

/** Gemini's own name for one of hookd's event names (the inverse of GEMINI_CANONICAL). */
export function geminiNative(name: string): string {
  for (const [native, canonical] of Object.entries(GEMINI_CANONICAL)) if (canonical === name) return native;
  return name;
}

/** The events `hookd install --agent gemini` wires by default (Gemini's names). */
export const GEMINI_DEFAULT_EVENTS = [
  'SessionStart',
  'BeforeAgent',
  'BeforeTool',
  'AfterTool',
  'AfterAgent',
  'Notification',
  'SessionEnd',
] as const;

/**
 * Whether a payload is Gemini's: Gemini puts the session id in GEMINI_SESSION_ID, which an enclosing
 * session's environment cannot fake for this payload's session (it sets CLAUDE_PROJECT_DIR too, so that
 * variable alone would take Gemini for Claude Code); without it, its transcript is a chat file under
 * `~/.gemini/tmp/<project>/chats/`.
 */
export function isGeminiPayload(
  payload: Record<string, unknown>,
  env: Record<string, string | undefined>,
): boolean {
  const id = payload.session_id;
  if (typeof id === 'string' && id !== '' && env.GEMINI_SESSION_ID === id) return true;
  const path = payload.transcript_path;
  return typeof path === 'string' && /\/tmp\/[^/]+\/chats\/session-[^/]+\.jsonl$/.test(path);
}

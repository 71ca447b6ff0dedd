import { GEMINI_CONFIG_NAMES } from '../agents/gemini-protocol.js';

/**
 * How the hook path reads a Gemini CLI event (docs/agents/gemini.md; the protocol's data is the adapter's,
 * src/agents/gemini-protocol.ts).
 *
 * Gemini names its events its own way; hookd gives each the name of its Claude Code counterpart
 * (`BeforeTool` is a `PreToolUse`), so one config, one set of notification rules and one ledger serve
 * every agent. The payload keeps Gemini's own name in `hook_event_name`.
 */

/** Gemini's event name -> hookd's name for it (the adapter's GEMINI_CONFIG_NAMES). */
export const GEMINI_CANONICAL: Readonly<Record<string, string>> = GEMINI_CONFIG_NAMES;

/** hookd's name for a Gemini event (the canonical one, else its own). */
export function geminiCanonical(name: string): string {
  return Object.hasOwn(GEMINI_CANONICAL, name) ? GEMINI_CANONICAL[name]! : name;
}

/** Gemini's own name for one of hookd's event names (the inverse of GEMINI_CANONICAL). */
export function geminiNative(name: string): string {
  for (const [native, canonical] of Object.entries(GEMINI_CANONICAL)) if (canonical === name) return native;
  return name;
}

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

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

/**
 * The agents hookd knows, by id: the one list every other list of agents is built from (the event's
 * `agent`, `--agent` choices, the config's `agent` field, install, doctor). Adding an agent starts here
 * (docs/agents/README.md). Data only: the hook path loads this file.
 */
export const AGENT_IDS = ['droid', 'claude', 'codex', 'gemini', 'copilot'] as const;
export type AgentId = (typeof AGENT_IDS)[number];

/**
 * Agents hookd recognises from their events without an adapter of their own: nothing installs into
 * their settings, and their events run with the rules of an agent hookd cannot tell
 * (docs/agents/README.md, "One entry, another agent"). Cursor runs the hooks of Claude Code's settings.
 */
export const RECOGNISED_AGENTS = ['cursor'] as const;
export type RecognisedAgent = (typeof RECOGNISED_AGENTS)[number];

/**
 * Every sender an event can have: the agents hookd knows, those it recognises without an adapter, and
 * `unknown` (the list of them, for schemas, is AGENT_KINDS in src/events/types.ts: off the hook path).
 */
export type AgentKind = AgentId | RecognisedAgent | 'unknown';

/** The agent hookd assumes where one must be named and none is (`hookd install`, `hookd emit`). */
export const DEFAULT_AGENT: AgentId = 'droid';

export function isAgentId(value: unknown): value is AgentId {
  return typeof value === 'string' && (AGENT_IDS as readonly string[]).includes(value);
}

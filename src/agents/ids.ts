/**
 * The agents hookd knows, by id: the one list every other list of agents is built from (the event's
 * `agent`, `--agent` choices, the config's `agent` field, install, doctor). Adding an agent starts here
 * (docs/agents/README.md). Data only: the hook path loads this file.
 */
export const AGENT_IDS = ['droid', 'claude', 'codex', 'gemini', 'copilot'] as const;
export type AgentId = (typeof AGENT_IDS)[number];

/** The agent hookd assumes where one must be named and none is (`hookd install`, `hookd emit`). */
export const DEFAULT_AGENT: AgentId = 'droid';

export function isAgentId(value: unknown): value is AgentId {
  return typeof value === 'string' && (AGENT_IDS as readonly string[]).includes(value);
}

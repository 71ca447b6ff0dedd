import type { AgentId, AgentKind, RecognisedAgent } from './ids.js';
import type { AgentProtocol, DetectSignal, RecognisedProtocol } from './types.js';
import { CURSOR_DETECT, CURSOR_PROTOCOL, CURSOR_SESSION_ID_FIELD } from './cursor-protocol.js';
import { CLAUDE_DETECT, CLAUDE_PROJECT_DIR_ENV, CLAUDE_PROTOCOL } from './claude-protocol.js';
import { DROID_DETECT, DROID_PROJECT_DIR_ENV, DROID_PROTOCOL } from './droid-protocol.js';
import { CODEX_DETECT, CODEX_PROJECT_DIR_ENV, CODEX_PROTOCOL } from './codex-protocol.js';
import { GEMINI_DETECT, GEMINI_PROJECT_DIR_ENV, GEMINI_PROTOCOL } from './gemini-protocol.js';
import { COPILOT_DETECT, COPILOT_PROJECT_DIR_ENV, COPILOT_PROTOCOL } from './copilot-protocol.js';

/**
 * The hook path's view of the agents, by id (the full adapters are in registry.ts, off the hook path).
 * Data only, and one export per part so that a bundle keeps only the parts it reads: `dist/hook.cjs`
 * has a size budget. What it reads on every event is here (DETECTS, PROJECT_DIR_ENV, SESSION_ID_FIELDS,
 * RENAMING_AGENTS): keep it small. The rules it reads only for some events (matchers, replies, event
 * names) are in agent-rules.ts, the `dist/agents.cjs` chunk, read through hook-rules.ts.
 */
export const PROTOCOLS: Readonly<Record<AgentId, AgentProtocol>> = {
  droid: DROID_PROTOCOL,
  claude: CLAUDE_PROTOCOL,
  codex: CODEX_PROTOCOL,
  gemini: GEMINI_PROTOCOL,
  copilot: COPILOT_PROTOCOL,
};

/** How each agent is told from its events (parse.ts tries them all, in rank order). */
export const DETECTS: Readonly<Record<AgentId | RecognisedAgent, readonly DetectSignal[]>> = {
  droid: DROID_DETECT,
  claude: CLAUDE_DETECT,
  codex: CODEX_DETECT,
  gemini: GEMINI_DETECT,
  copilot: COPILOT_DETECT,
  cursor: CURSOR_DETECT,
};

/**
 * The agents whose own event names hookd knows by other names (agent-rules.ts EVENT_NAMES): only their
 * events read the `dist/agents.cjs` chunk for their names (a unit test keeps the two in step).
 */
export const RENAMING_AGENTS: readonly AgentKind[] = ['gemini', 'cursor', 'copilot'];

/**
 * The agents with a hook dialect of their own beside Claude Code's (Copilot CLI's camelCase payloads,
 * told by `sessionId` and no `hook_event_name`): agent-rules.ts ownDialectOf reads them.
 */
export const OWN_DIALECT_AGENTS: readonly AgentKind[] = ['copilot'];

/** The payload field naming the session, for an agent that does not send `session_id`. */
export const SESSION_ID_FIELDS: Readonly<Partial<Record<AgentKind, string>>> = {
  cursor: CURSOR_SESSION_ID_FIELD,
};

/**
 * The variables naming the session's project dir, per agent, in order; an agent hookd cannot tell reads
 * Droid's, which include Claude Code's.
 */
export const PROJECT_DIR_ENV: Readonly<Record<AgentKind, readonly string[]>> = {
  droid: DROID_PROJECT_DIR_ENV,
  claude: CLAUDE_PROJECT_DIR_ENV,
  codex: CODEX_PROJECT_DIR_ENV,
  gemini: GEMINI_PROJECT_DIR_ENV,
  copilot: COPILOT_PROJECT_DIR_ENV,
  cursor: [],
  unknown: DROID_PROJECT_DIR_ENV,
};

/** The agents recognised without an adapter (ids.ts RECOGNISED_AGENTS), by id. */
export const RECOGNISED: Readonly<Record<RecognisedAgent, RecognisedProtocol>> = {
  cursor: CURSOR_PROTOCOL,
};

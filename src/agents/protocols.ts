import type { AgentId, RecognisedAgent } from './ids.js';
import type { AgentProtocol, DetectSignal, MatcherRules, RecognisedProtocol, ReplyRules } from './types.js';
import { CURSOR_PROTOCOL } from './cursor-protocol.js';
import {
  CLAUDE_DETECT,
  CLAUDE_MATCHER,
  CLAUDE_PROJECT_DIR_ENV,
  CLAUDE_PROTOCOL,
  CLAUDE_REPLY,
} from './claude-protocol.js';
import {
  DROID_DETECT,
  DROID_MATCHER,
  DROID_PROJECT_DIR_ENV,
  DROID_PROTOCOL,
  DROID_REPLY,
} from './droid-protocol.js';
import {
  CODEX_DETECT,
  CODEX_MATCHER,
  CODEX_PROJECT_DIR_ENV,
  CODEX_PROTOCOL,
  CODEX_REPLY,
} from './codex-protocol.js';
import {
  GEMINI_DETECT,
  GEMINI_MATCHER,
  GEMINI_PROJECT_DIR_ENV,
  GEMINI_PROTOCOL,
  GEMINI_REPLY,
} from './gemini-protocol.js';
import {
  COPILOT_DETECT,
  COPILOT_MATCHER,
  COPILOT_PROJECT_DIR_ENV,
  COPILOT_PROTOCOL,
  COPILOT_REPLY,
} from './copilot-protocol.js';

/**
 * The hook path's view of the agents, by id (the full adapters are in registry.ts, off the hook path).
 * Data only, and one export per part so that a bundle keeps only the parts it reads: `dist/hook.cjs`
 * has a size budget.
 */
export const PROTOCOLS: Readonly<Record<AgentId, AgentProtocol>> = {
  droid: DROID_PROTOCOL,
  claude: CLAUDE_PROTOCOL,
  codex: CODEX_PROTOCOL,
  gemini: GEMINI_PROTOCOL,
  copilot: COPILOT_PROTOCOL,
};

/**
 * How each agent reads a matcher; for an agent hookd cannot tell (`unknown`), the plain rule: an exact
 * name, then a RegExp, on the fields Droid matches.
 */
export const MATCHERS: Readonly<Record<AgentId | RecognisedAgent | 'unknown', MatcherRules>> = {
  droid: DROID_MATCHER,
  claude: CLAUDE_MATCHER,
  codex: CODEX_MATCHER,
  gemini: GEMINI_MATCHER,
  copilot: COPILOT_MATCHER,
  cursor: DROID_MATCHER,
  unknown: DROID_MATCHER,
};

const UNKNOWN_REPLY: ReplyRules = { ...CLAUDE_REPLY, jsonStdout: 'trimmed' };

/**
 * How each agent takes answers; for an agent hookd cannot tell (`unknown`), the safe mix: JSON on
 * trimmed stdout, the strongest decision wins (a deny is never lost), exit 1 only logged.
 */
export const REPLIES: Readonly<Record<AgentId | RecognisedAgent | 'unknown', ReplyRules>> = {
  droid: DROID_REPLY,
  claude: CLAUDE_REPLY,
  codex: CODEX_REPLY,
  gemini: GEMINI_REPLY,
  copilot: COPILOT_REPLY,
  cursor: UNKNOWN_REPLY,
  unknown: UNKNOWN_REPLY,
};

export const DETECTS: Readonly<Record<AgentId, readonly DetectSignal[]>> = {
  droid: DROID_DETECT,
  claude: CLAUDE_DETECT,
  codex: CODEX_DETECT,
  gemini: GEMINI_DETECT,
  copilot: COPILOT_DETECT,
};

/**
 * The variables naming the session's project dir, per agent, in order; an agent hookd cannot tell reads
 * Droid's, which include Claude Code's.
 */
export const PROJECT_DIR_ENV: Readonly<Record<AgentId | RecognisedAgent | 'unknown', readonly string[]>> = {
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

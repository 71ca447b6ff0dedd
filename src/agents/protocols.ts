import type { AgentId } from './ids.js';
import type { AgentProtocol, DetectSignal, MatcherRules, ReplyRules } from './types.js';
import { CLAUDE_DETECT, CLAUDE_MATCHER, CLAUDE_PROTOCOL, CLAUDE_REPLY } from './claude-protocol.js';
import { CODEX_DETECT, CODEX_MATCHER, CODEX_PROTOCOL, CODEX_REPLY } from './codex-protocol.js';
import { DROID_DETECT, DROID_MATCHER, DROID_PROTOCOL, DROID_REPLY } from './droid-protocol.js';
import { GEMINI_DETECT, GEMINI_MATCHER, GEMINI_PROTOCOL, GEMINI_REPLY } from './gemini-protocol.js';

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
};

export const MATCHERS: Readonly<Record<AgentId, MatcherRules>> = {
  droid: DROID_MATCHER,
  claude: CLAUDE_MATCHER,
  codex: CODEX_MATCHER,
  gemini: GEMINI_MATCHER,
};

export const REPLIES: Readonly<Record<AgentId, ReplyRules>> = {
  droid: DROID_REPLY,
  claude: CLAUDE_REPLY,
  codex: CODEX_REPLY,
  gemini: GEMINI_REPLY,
};

export const DETECTS: Readonly<Record<AgentId, readonly DetectSignal[]>> = {
  droid: DROID_DETECT,
  claude: CLAUDE_DETECT,
  codex: CODEX_DETECT,
  gemini: GEMINI_DETECT,
};

import { DROID_MATCHER, DROID_REPLY } from './droid-protocol.js';
import {
  blockAnswerOf,
  eventNameOf,
  matcherRulesOf,
  ownDialectAnswerOf,
  ownDialectOf,
  refusalOf,
  replyRulesOf,
} from './agent-rules.js';
import type { AgentKind } from './ids.js';
import { OWN_DIALECT_AGENTS, RENAMING_AGENTS } from './protocols.js';
import type { MatcherRules, ReplyRules } from './types.js';

/*
 * The agents' rules as the hook path reads them: Droid's inline (the common event; also the agent of
 * `hookd install`'s default), every other agent's from the `dist/agents.cjs` chunk (agent-rules.ts),
 * loaded the first time an event of that agent needs them. A new agent's data goes to the chunk: the
 * hook bundle does not grow with it.
 */

/** How the agent reads a matcher (protocols.ts MATCHERS). */
export function matcherRules(agent: AgentKind): MatcherRules {
  return agent === 'droid' ? DROID_MATCHER : matcherRulesOf(agent);
}

/** How the agent takes answers (protocols.ts REPLIES). */
export function replyRules(agent: AgentKind): ReplyRules {
  return agent === 'droid' ? DROID_REPLY : replyRulesOf(agent);
}

/** hookd's name for the agent's event (protocols.ts EVENT_NAMES): most agents' names are hookd's own. */
export function eventName(agent: AgentKind, name: string): string {
  return RENAMING_AGENTS.includes(agent) ? eventNameOf(agent, name) : name;
}

/**
 * Copilot's own dialect (protocols.ts OWN_DIALECT_AGENTS): Claude Code's fields added to hookd's copy of
 * the payload, and the agent's name for its event; undefined for a payload in Claude Code's dialect.
 */
export function ownDialect(agent: AgentKind, payload: Record<string, unknown>): string | undefined {
  return OWN_DIALECT_AGENTS.includes(agent) ? ownDialectOf(agent, payload) : undefined;
}

/** A PreToolUse reply as a hook of the agent's own dialect must give it (undefined: as it is). */
export function ownDialectAnswer(
  agent: AgentKind,
  payload: Record<string, unknown>,
  reply: Parameters<typeof ownDialectAnswerOf>[2],
): Record<string, unknown> | undefined {
  return OWN_DIALECT_AGENTS.includes(agent) ? ownDialectAnswerOf(agent, payload, reply) : undefined;
}

/** A block in the agent's own answer (agent-rules.ts blockAnswerOf), for an agent whose rules ask for one. */
export function blockAnswer(
  agent: AgentKind,
  event: string,
  reason: string,
): { stdout: string; exitCode: 0 | 2 } | undefined {
  return blockAnswerOf(agent, event, reason);
}

/**
 * A guard's deny or ask for an agent whose hooks cannot ask everywhere (agent-rules.ts refusalOf): asked
 * only for an agent whose rules say so, so Droid's events never load the chunk.
 */
export function agentRefusal(
  agent: AgentKind,
  event: string,
  decision: string,
  reply: Parameters<typeof refusalOf>[3],
): ReturnType<typeof refusalOf> {
  return replyRules(agent).ask === 'supported' ? undefined : refusalOf(agent, event, decision, reply);
}

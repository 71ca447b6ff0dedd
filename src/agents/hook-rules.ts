import { DROID_MATCHER, DROID_REPLY } from './droid-protocol.js';
import { blockAnswerOf, eventNameOf, matcherRulesOf, replyRulesOf } from './agent-rules.js';
import { RENAMING_AGENTS, type Sender } from './protocols.js';
import type { MatcherRules, ReplyRules } from './types.js';

/*
 * The agents' rules as the hook path reads them: Droid's inline (the common event; also the agent of
 * `hookd install`'s default), every other agent's from the `dist/agents.cjs` chunk (agent-rules.ts),
 * loaded the first time an event of that agent needs them. A new agent's data goes to the chunk: the
 * hook bundle does not grow with it.
 */

/** How the agent reads a matcher (protocols.ts MATCHERS). */
export function matcherRules(agent: Sender): MatcherRules {
  return agent === 'droid' ? DROID_MATCHER : matcherRulesOf(agent);
}

/** How the agent takes answers (protocols.ts REPLIES). */
export function replyRules(agent: Sender): ReplyRules {
  return agent === 'droid' ? DROID_REPLY : replyRulesOf(agent);
}

/** hookd's name for the agent's event (protocols.ts EVENT_NAMES): most agents' names are hookd's own. */
export function eventName(agent: Sender, name: string): string {
  return RENAMING_AGENTS.includes(agent) ? eventNameOf(agent, name) : name;
}

/** A block in the agent's own answer (agent-rules.ts blockAnswerOf), for an agent whose rules ask for one. */
export function blockAnswer(
  agent: Sender,
  event: string,
  reason: string,
): { stdout: string; exitCode: 0 | 2 } | undefined {
  return blockAnswerOf(agent, event, reason);
}

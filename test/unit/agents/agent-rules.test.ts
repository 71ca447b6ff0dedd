import { describe, expect, it } from 'vitest';
import {
  renamingAgents,
  eventNameOf,
  matcherRulesOf,
  replyRulesOf,
} from '../../../src/agents/agent-rules.js';
import { eventName, matcherRules, replyRules } from '../../../src/agents/hook-rules.js';
import { RENAMING_AGENTS } from '../../../src/agents/protocols.js';
import { AGENT_KINDS } from '../../../src/events/types.js';

const SENDERS = AGENT_KINDS;

describe('the agents rules of the hook path', () => {
  it('reads the event names of exactly the agents that have names of their own', () => {
    expect([...RENAMING_AGENTS].sort()).toEqual(renamingAgents().sort());
  });

  it("keeps Droid's inline rules the same as the chunk's, and every sender's event names", () => {
    // Droid's matcher and reply rules are the only ones the bundle holds inline; the others come from the chunk.
    expect(matcherRules('droid')).toEqual(matcherRulesOf('droid'));
    expect(replyRules('droid')).toEqual(replyRulesOf('droid'));
    for (const agent of SENDERS) {
      for (const name of ['BeforeTool', 'preToolUse', 'PreToolUse', 'toString'])
        expect(eventName(agent, name)).toBe(eventNameOf(agent, name));
    }
  });
});

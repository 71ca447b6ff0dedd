import { describe, expect, it } from 'vitest';
import {
  renamingAgents,
  eventNameOf,
  matcherRulesOf,
  replyRulesOf,
} from '../../../src/agents/agent-rules.js';
import { eventName, matcherRules, replyRules } from '../../../src/agents/hook-rules.js';
import { RENAMING_AGENTS, type Sender } from '../../../src/agents/protocols.js';
import { AGENT_IDS, RECOGNISED_AGENTS } from '../../../src/agents/ids.js';

const SENDERS: Sender[] = [...AGENT_IDS, ...RECOGNISED_AGENTS, 'unknown'];

describe('the agents rules of the hook path', () => {
  it('reads the event names of exactly the agents that have names of their own', () => {
    expect([...RENAMING_AGENTS].sort()).toEqual(renamingAgents().sort());
  });

  it('gives every sender the same rules inline as from the chunk', () => {
    for (const agent of SENDERS) {
      expect(matcherRules(agent)).toEqual(matcherRulesOf(agent));
      expect(replyRules(agent)).toEqual(replyRulesOf(agent));
      for (const name of ['BeforeTool', 'preToolUse', 'PreToolUse', 'toString'])
        expect(eventName(agent, name)).toBe(eventNameOf(agent, name));
    }
  });
});

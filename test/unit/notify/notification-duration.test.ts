import { describe, expect, it } from 'vitest';
import { createNoiseState, observeEvent } from '../../../src/notify/noise.js';
import { eventFacts } from '../../../src/notify/rules.js';
import { defaultNotificationText } from '../../../src/notify/default-text.js';
import type { Enrichment } from '../../../src/enrich/types.js';
import type { HookEvent } from '../../../src/events/types.js';

// The demo contradicted itself: a Droid sub-agent's Stop said "Duration 0ms" in a field and
// "159ms" in its body; a SubagentStop showed the parent session's time as the sub-agent's.

const NOW = 1_800_000_000_000;

function event(name: string, payload: Record<string, unknown>): HookEvent {
  return { id: `e-${name}`, receivedAt: NOW, agent: 'droid', name, sessionId: 'sub', payload };
}

function enrichment(session: Partial<Enrichment['session']>): Enrichment {
  return {
    session: { id: 'sub', isSubagent: true, title: 'Worker', ...session },
    sources: ['event'],
    budgetExceeded: false,
  } as unknown as Enrichment;
}

describe('the duration a notification states', () => {
  it("is the same in the text and the fields, and a sub-agent Stop's elapsed_time 0 is unknown", () => {
    const stop = event('Stop', { session_id: 'sub', elapsed_time: 0 });
    const e = enrichment({ durationMs: 159, tokens: { total: 15 } as Enrichment['session']['tokens'] });
    const facts = eventFacts(stop, e as unknown as Record<string, unknown>, createNoiseState(), NOW);
    expect(facts.durationMs).toBe(159);
    expect(defaultNotificationText(stop, e).body).toContain('159ms');
  });

  it('is none for a SubagentStop: the session it belongs to is the parent', () => {
    const noise = createNoiseState();
    observeEvent(noise, event('SessionStart', { session_id: 'sub' }), NOW - 5000);
    const subagentStop = event('SubagentStop', { session_id: 'sub', task_name: 'Tiny' });
    const e = enrichment({ durationMs: 783 });
    expect(eventFacts(subagentStop, e as unknown as Record<string, unknown>, noise, NOW).durationMs).toBe(
      undefined,
    );
  });

  it('says when the tokens include sub-agents, which the ledger lists on their own rows', () => {
    const stop = event('Stop', { session_id: 'main', elapsed_time: 1207 });
    const e = enrichment({
      isSubagent: false,
      tokens: { total: 105 } as Enrichment['session']['tokens'],
      ownTokens: { total: 90 } as Enrichment['session']['tokens'],
    });
    expect(defaultNotificationText(stop, e).body).toBe('1.2s · 105 tokens (15 in sub-agents)');
  });
});

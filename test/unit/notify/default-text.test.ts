import { describe, expect, it } from 'vitest';
import { defaultNotificationText, formatCredits, formatTokens } from '../../../src/notify/default-text.js';
import type { Enrichment, TokenCounts } from '../../../src/enrich/types.js';
import type { HookEvent } from '../../../src/events/types.js';

function event(
  name: string,
  payload: Record<string, unknown> = {},
  agent: HookEvent['agent'] = 'droid',
): HookEvent {
  return {
    id: 'e',
    receivedAt: 0,
    agent,
    name,
    sessionId: 's1',
    payload: { hook_event_name: name, ...payload },
  };
}

const tokens = (total: number): TokenCounts => ({
  input: total,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  thinking: 0,
  total,
});

function enrichment(
  over: Partial<Enrichment> = {},
  session: Partial<Enrichment['session']> = {},
): Enrichment {
  return {
    session: { id: 's1', title: 'Fix the parser', projectName: 'hookd', isSubagent: false, ...session },
    sources: ['event'],
    warnings: [],
    budgetExceeded: false,
    ...over,
  };
}

describe('defaultNotificationText', () => {
  it('Stop: Finished: <title> in <project>, excerpt, duration, tokens and credits', () => {
    const text = defaultNotificationText(
      event('Stop'),
      enrichment(
        { lastMessageExcerpt: 'Parser fixed; 12 tests added.' },
        { turnDurationMs: 252_000, tokens: tokens(12_345), credits: 3.25, branch: 'main' },
      ),
    );
    expect(text).toEqual({
      title: 'Finished: Fix the parser in hookd (main)',
      body: 'Parser fixed; 12 tests added.\n4m12s · 12.3k tokens · 3.25 credits',
    });
  });

  it('Stop with little known still reads well', () => {
    expect(
      defaultNotificationText(event('Stop'), enrichment({}, { title: undefined, projectName: undefined })),
    ).toEqual({ title: 'Finished', body: '' });
    expect(defaultNotificationText(event('Stop'), enrichment({}, { title: undefined })).title).toBe(
      'Finished in hookd',
    );
  });

  it('Stop of a sub-agent session says sub-agent', () => {
    expect(
      defaultNotificationText(event('Stop'), enrichment({}, { isSubagent: true, title: 'Worker: lint' }))
        .title,
    ).toBe('Sub-agent finished: Worker: lint');
  });

  it('SubagentStop names the task; a task error says failed', () => {
    const ok = enrichment({ task: { name: 'Tiny sub task', result: 'done' }, lastMessageExcerpt: 'done' });
    expect(defaultNotificationText(event('SubagentStop'), ok)).toEqual({
      title: 'Sub-agent finished: Tiny sub task',
      body: 'done\nin hookd',
    });
    const failed = enrichment({ task: { name: 'Build', error: 'exit 1' } });
    expect(defaultNotificationText(event('SubagentStop'), failed)).toEqual({
      title: 'Sub-agent failed: Build',
      body: 'exit 1\nin hookd',
    });
  });

  it('Notification: permission with the tool, idle prompt, and others', () => {
    expect(
      defaultNotificationText(
        event(
          'Notification',
          { notification_type: 'permission_prompt', message: 'Claude needs your permission to use Bash' },
          'claude',
        ),
        enrichment({ pendingTool: 'Bash' }),
      ),
    ).toEqual({
      title: 'Needs your permission: Bash',
      body: 'Fix the parser in hookd\nClaude needs your permission to use Bash',
    });
    expect(
      defaultNotificationText(event('Notification', { notification_type: 'permission_prompt' }), enrichment())
        .title,
    ).toBe('Needs your permission: a tool');
    expect(
      defaultNotificationText(
        event('Notification', { notification_type: 'idle_prompt' }),
        enrichment({ lastMessageExcerpt: 'Which file?' }),
      ),
    ).toEqual({ title: 'Waiting for your input', body: 'Fix the parser in hookd\nWhich file?' });
    expect(
      defaultNotificationText(
        event('Notification', {
          notification_type: 'elicitation_dialog',
          title: 'Pick one',
          message: 'A or B?',
        }),
        enrichment(),
      ),
    ).toEqual({ title: 'Pick one', body: 'Fix the parser in hookd\nA or B?' });
  });

  it('SessionEnd: reason, title, project, duration, messages, tokens', () => {
    expect(
      defaultNotificationText(
        event('SessionEnd', { reason: 'prompt_input_exit' }),
        enrichment({}, { durationMs: 3_600_000, messageCount: 40, tokens: tokens(2_500_000) }),
      ),
    ).toEqual({
      title: 'Session ended: prompt_input_exit',
      body: 'Fix the parser in hookd\n1h00m · 2.5M tokens · 40 messages',
    });
  });

  it('other events name the event and the project', () => {
    expect(defaultNotificationText(event('PreCompact'), enrichment())).toEqual({
      title: 'PreCompact in hookd',
      body: 'Fix the parser',
    });
  });
});

describe('formatTokens and formatCredits', () => {
  it('shortens', () => {
    expect(formatTokens(tokens(950))).toBe('950 tokens');
    expect(formatTokens(tokens(1000))).toBe('1k tokens');
    expect(formatTokens(tokens(0))).toBeUndefined();
    expect(formatCredits(0)).toBeUndefined();
    expect(formatCredits(1)).toBe('1 credit');
    expect(formatCredits(0.0123)).toBe('0.012 credits');
    expect(formatCredits(250.4)).toBe('250 credits');
  });
});

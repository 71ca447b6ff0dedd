import { describe, expect, it } from 'vitest';
import {
  messageStateChanged,
  phaseLabel,
  sessionFinished,
  sessionSummaryNotification,
  sessionUpdateNotification,
} from '../../../src/notify/session-message.js';
import type { SessionPhase, SessionState } from '../../../src/notify/session-state.js';

const T0 = 1_800_000_000_000;

function state(phase: SessionPhase, extra: Partial<SessionState> = {}): SessionState {
  return {
    id: 's1',
    agent: 'droid',
    phase,
    transition: 'activity',
    lastEvent: 'Stop',
    since: T0,
    lastEventAt: T0,
    startedAt: T0,
    inTurn: false,
    ...extra,
  };
}

const event = { name: 'Stop', id: 'e1', sessionId: 's1', project: 'demo' };

describe('one message per session: what it says and when', () => {
  it('labels each state, with why it waits or failed', () => {
    expect(phaseLabel({ phase: 'waiting', waitingFor: 'permission', startedAt: 0, since: 0 })).toBe(
      'waiting for you (permission)',
    );
    expect(phaseLabel({ phase: 'failed', failure: 'rate_limit', startedAt: 0, since: 0 })).toBe(
      'failed (rate_limit)',
    );
    expect(phaseLabel({ phase: 'interrupted', startedAt: 0, since: 0 })).toBe('interrupted');
  });

  it('a change is a new phase or a new reason to wait; the summary comes once per finished piece of work', () => {
    expect(messageStateChanged(state('working'), state('working'))).toBe(false);
    expect(
      messageStateChanged(
        state('waiting', { waitingFor: 'idle' }),
        state('waiting', { waitingFor: 'question' }),
      ),
    ).toBe(true);
    expect(sessionFinished(state('working'), state('done'))).toBe(true);
    expect(sessionFinished(state('working'), state('failed'))).toBe(true);
    expect(sessionFinished(state('done'), state('ended'))).toBe(false);
    expect(sessionFinished(state('interrupted'), state('ended'))).toBe(true);
    expect(sessionFinished(state('done'), state('done'))).toBe(false);
  });

  it('an update names the state and the answer; a summary keeps what the enrichment knows', () => {
    const update = sessionUpdateNotification(event, state('working'), T0 + 5, 'PreToolUse');
    expect(update).toMatchObject({ kind: 'update', title: 'demo: working', body: 'Answered (PreToolUse).' });
    const summary = sessionSummaryNotification(
      event,
      state('done'),
      { session: { tokens: { total: 950 }, credits: 'lots' }, lastMessage: 'All done.', filesChanged: 3 },
      T0 + 61_000,
    );
    expect(summary).toMatchObject({ kind: 'summary', title: 'Summary: done', body: 'All done.' });
    // Unknown or malformed facts are left out; the duration falls back to the session's age.
    expect(summary.fields).toEqual([
      { label: 'State', value: 'done' },
      { label: 'Duration', value: '1m01s' },
      { label: 'Files changed', value: '3' },
      { label: 'Tokens', value: '950 tokens' },
    ]);
  });
});

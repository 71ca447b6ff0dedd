import { describe, expect, it } from 'vitest';
import { apiMessageText, sessionFactsFromApi } from '../../../src/enrich/api-data.js';
import { excerpt } from '../../../src/enrich/excerpt.js';
import { addTokenCounts, creditsFrom, tokenCountsFrom } from '../../../src/enrich/tokens.js';
import { causeOf, createWarnOnce } from '../../../src/enrich/warn-once.js';

describe('excerpt', () => {
  it('flattens markdown and whitespace and cuts at a word with an ellipsis', () => {
    expect(excerpt('## Done\n\n**All** tests pass.\n```ts\nx\n```')).toBe('Done All tests pass. x');
    const cut = excerpt('word '.repeat(100), 30);
    expect(cut.length).toBeLessThanOrEqual(30);
    expect(cut.endsWith('word…')).toBe(true);
    expect(excerpt('x'.repeat(50), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});

describe('tokens', () => {
  it('reads agent and API usage objects', () => {
    expect(
      tokenCountsFrom({
        inputTokens: 1,
        outputTokens: 2,
        cacheReadTokens: 3,
        cacheCreationTokens: 4,
        thinkingTokens: 5,
      }),
    ).toEqual({
      input: 1,
      output: 2,
      cacheRead: 3,
      cacheWrite: 4,
      thinking: 5,
      total: 15,
    });
    expect(tokenCountsFrom({ inputTokens: 'x', outputTokens: -1 })?.total).toBe(0);
    expect(tokenCountsFrom(null)).toBeUndefined();
    expect(creditsFrom({ factoryCredits: 1.5 })).toBe(1.5);
    expect(creditsFrom({ serviceCredits: 2 })).toBe(2);
    expect(creditsFrom({})).toBeUndefined();
    expect(addTokenCounts(tokenCountsFrom({ inputTokens: 1 }), undefined)?.total).toBe(1);
    expect(
      addTokenCounts(tokenCountsFrom({ inputTokens: 1 }), tokenCountsFrom({ outputTokens: 2 }))?.total,
    ).toBe(3);
  });
});

describe('API data', () => {
  it('takes a message text and session facts from API shapes', () => {
    expect(
      apiMessageText({
        content: [
          { id: 'a', text: 'one' },
          { id: 'b', text: 'two' },
        ],
      }),
    ).toBe('one\ntwo');
    expect(apiMessageText({ content: [] })).toBeNull();
    expect(apiMessageText('x')).toBeNull();
    expect(
      sessionFactsFromApi({
        title: 'T',
        createdAt: 10,
        updatedAt: 5,
        sessionSettings: { tags: [{ name: 'subagent' }] },
      }),
    ).toMatchObject({
      title: 'T',
      durationMs: undefined,
      isSubagent: true,
    });
  });
});

describe('warn once per cause', () => {
  it('warns on a new cause, stays quiet on the same, warns again after a success', () => {
    const out: string[] = [];
    const w = createWarnOnce((m) => out.push(m));
    expect(w.fail('api', 'http-401', 'a')).toBe(true);
    expect(w.fail('api', 'http-401', 'b')).toBe(false);
    expect(w.fail('other', 'http-401', 'c')).toBe(true);
    expect(w.fail('api', 'http-500', 'd')).toBe(true);
    w.ok('api');
    expect(w.fail('api', 'http-500', 'e')).toBe(true);
    expect(out).toEqual(['a', 'c', 'd', 'e']);
  });

  it('redacts what it warns', () => {
    const out: string[] = [];
    createWarnOnce((m) => out.push(m)).fail('api', 'x', 'Authorization: Bearer abcdef123456789');
    expect(out[0]).toBe('Authorization: Bearer [REDACTED]');
  });

  it('names causes', () => {
    expect(causeOf({ status: 401 })).toBe('http-401');
    expect(causeOf({ statusCode: 503 })).toBe('http-503');
    expect(causeOf(Object.assign(new Error('x'), { name: 'AbortError' }))).toBe('timeout');
    expect(
      causeOf(
        new TypeError('fetch failed', { cause: Object.assign(new Error('c'), { code: 'ECONNREFUSED' }) }),
      ),
    ).toBe('ECONNREFUSED');
    expect(causeOf(new Error('plain'))).toBe('error');
    expect(causeOf('string')).toBe('error');
  });
});

describe('transcript lines', () => {
  it('reads Claude Code transcript lines too (summary title, uuid ids, model)', async () => {
    const { addTranscriptLine, emptySummary } = await import('../../../src/enrich/transcript.js');
    const summary = emptySummary();
    const lines = [
      { type: 'summary', summary: 'Refactor the router', leafUuid: 'x' },
      {
        type: 'user',
        uuid: 'u1',
        timestamp: '2026-01-01T00:00:00Z',
        message: { role: 'user', content: 'go' },
      },
      {
        type: 'assistant',
        uuid: 'a1',
        message: {
          role: 'assistant',
          model: 'claude-x',
          content: [{ type: 'tool_use', name: 'Bash', input: {} }],
        },
      },
      {
        type: 'assistant',
        uuid: 'a2',
        message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
      },
    ];
    for (const line of lines) addTranscriptLine(summary, JSON.stringify(line), 'a2');
    expect(summary.sessionStart?.title).toBe('Refactor the router');
    expect(summary.model).toBe('claude-x');
    expect(summary.toolCalls).toEqual({ Bash: 1 });
    expect(summary.wanted).toEqual({ id: 'a2', role: 'assistant', text: 'Done.', timestampMs: undefined });
    expect(summary.messageLines).toBe(3);
  });
});

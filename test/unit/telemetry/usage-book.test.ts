import { describe, expect, it } from 'vitest';
import { MAX_NAME, MAX_SESSIONS, UsageBook } from '../../../src/telemetry/usage-book.js';

const kv = (attributes: Record<string, string>) =>
  Object.entries(attributes).map(([key, value]) => ({ key, value: { stringValue: value } }));

/** One delta point of Claude Code's token or cost metric. */
function metrics(
  sessionId: string,
  model: string,
  points: { type?: string; cost?: number; value?: number }[],
) {
  const point = (attributes: Record<string, string>, value: number) => ({
    attributes: kv({ 'session.id': sessionId, model, ...attributes }),
    asDouble: value,
  });
  return {
    resourceMetrics: [
      {
        scopeMetrics: [
          {
            metrics: [
              {
                name: 'claude_code.token.usage',
                sum: {
                  aggregationTemporality: 1,
                  dataPoints: points.filter((p) => p.type).map((p) => point({ type: p.type! }, p.value!)),
                },
              },
              {
                name: 'claude_code.cost.usage',
                sum: {
                  aggregationTemporality: 1,
                  dataPoints: points.filter((p) => p.cost !== undefined).map((p) => point({}, p.cost!)),
                },
              },
            ],
          },
        ],
      },
    ],
  };
}

/** Droid 0.225.2's token counters as it exports them: one delta counter per token type, no cost. */
function droidMetrics(sessionId: string, model: string, tokens: Record<string, number>) {
  return {
    resourceMetrics: [
      {
        scopeMetrics: [
          {
            scope: { name: 'cli-customer-metrics' },
            metrics: Object.entries(tokens).map(([type, value]) => ({
              name: `droid.token.${type}`,
              sum: {
                aggregationTemporality: 1,
                isMonotonic: true,
                dataPoints: [
                  { attributes: kv({ 'session.id': sessionId, 'model.id': model }), asDouble: value },
                ],
              },
            })),
          },
        ],
      },
    ],
  };
}

describe('UsageBook', () => {
  it('keeps tokens and cost per model beside the totals', () => {
    const book = new UsageBook(() => 1);
    book.addMetrics(metrics('s1', 'opus', [{ type: 'input', value: 10 }, { cost: 0.5 }]));
    book.addMetrics(metrics('s1', 'haiku', [{ type: 'output', value: 4 }, { cost: 0.25 }]));
    book.addMetrics(metrics('s1', 'opus', [{ type: 'input', value: 5 }]));
    const s = book.get('s1')!;
    expect(s).toMatchObject({ inputTokens: 15, outputTokens: 4, costUsd: 0.75, models: ['opus', 'haiku'] });
    expect(s.perModel).toEqual({
      opus: { inputTokens: 15, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0, costUsd: 0.5 },
      haiku: { inputTokens: 0, outputTokens: 4, cacheReadTokens: 0, cacheCreationTokens: 0, costUsd: 0.25 },
    });
  });

  it("adds Droid's token counters (droid.token.*, model in model.id) and survives a restore", () => {
    const book = new UsageBook(() => 3);
    book.addMetrics(droidMetrics('d1', 'custom:fake', { input: 20, output: 10 }));
    book.addMetrics(droidMetrics('d1', 'custom:fake', { input: 5, cache_read: 7, cache_write: 2 }));
    const again = new UsageBook(() => 4);
    expect(again.restore(JSON.parse(JSON.stringify(book.save())))).toBeUndefined();
    const s = again.get('d1')!;
    expect(s).toMatchObject({
      inputTokens: 25,
      outputTokens: 10,
      cacheReadTokens: 7,
      cacheCreationTokens: 2,
      models: ['custom:fake'],
    });
    expect(s.costUsd).toBeUndefined();
  });

  it('cuts a session id and a model name at 128 characters', () => {
    const book = new UsageBook(() => 1);
    const id = 's'.repeat(10_000);
    book.addMetrics(metrics(id, 'm'.repeat(10_000), [{ type: 'input', value: 1 }]));
    const [s] = book.all();
    expect(s!.sessionId).toBe('s'.repeat(MAX_NAME));
    expect(s!.models).toEqual(['m'.repeat(MAX_NAME)]);
    expect(book.get(id.slice(0, MAX_NAME))!.inputTokens).toBe(1);
  });

  it('forgets the least recently updated session past the bound, not the first seen', () => {
    let now = 0;
    const book = new UsageBook(() => ++now);
    for (let i = 0; i < MAX_SESSIONS; i++)
      book.addMetrics(metrics(`s${i}`, 'm', [{ type: 'input', value: 1 }]));
    // The first session seen is still active: s1 is now the one nobody updated for longest.
    book.addMetrics(metrics('s0', 'm', [{ type: 'input', value: 1 }]));
    book.addMetrics(metrics('new', 'm', [{ type: 'input', value: 1 }]));
    expect(book.all()).toHaveLength(MAX_SESSIONS);
    expect(book.get('s0')!.inputTokens).toBe(2);
    expect(book.get('s1')).toBeUndefined();
    expect(book.get('new')).toBeDefined();
  });

  it('goes on adding after a save and restore (a daemon restart mid-session)', () => {
    const book = new UsageBook(() => 7);
    book.addMetrics(metrics('s1', 'opus', [{ type: 'input', value: 10 }, { cost: 1 }]));
    book.addLogs({
      resourceLogs: [
        {
          scopeLogs: [
            { logRecords: [{ attributes: kv({ 'session.id': 's1', 'event.name': 'api_error' }) }] },
          ],
        },
      ],
    });
    const again = new UsageBook(() => 8);
    expect(again.restore(JSON.parse(JSON.stringify(book.save())))).toBeUndefined();
    again.addMetrics(metrics('s1', 'opus', [{ type: 'input', value: 5 }, { cost: 0.5 }]));
    expect(again.get('s1')).toMatchObject({ inputTokens: 15, costUsd: 1.5, apiErrors: 1, updatedAt: 8 });
  });

  it('refuses a saved book that is not one, and stays empty', () => {
    const book = new UsageBook(() => 1);
    const saved = book.save();
    for (const bad of [
      null,
      { v: 1, sessions: [] },
      {
        ...saved,
        sessions: [{ sessionId: 'x'.repeat(129), updatedAt: 1, apiErrors: 0, toolDecisions: {}, series: [] }],
      },
      {
        ...saved,
        sessions: [{ sessionId: 's', updatedAt: 1, apiErrors: -1, toolDecisions: {}, series: [] }],
      },
      { ...saved, extra: true },
    ]) {
      expect(book.restore(bad)).toMatch(/not a saved usage book/);
      expect(book.all()).toEqual([]);
    }
  });
});

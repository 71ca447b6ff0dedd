import { describe, expect, it } from 'vitest';
import { attributesOf, decodeExport } from '../../../src/telemetry/otlp-decode.js';
import { agentUsageOf, UsageBook } from '../../../src/telemetry/usage-book.js';
import { isObject, type Json } from '../../../src/util/json-values.js';
import { RECORDED_RUNS, recordedOtlp, type RecordedOtlp } from '../../helpers/otlp-fixtures.js';

// What the real Claude Code 2.1.330 and Droid 0.225.2 sent (test/fixtures/otlp/README.md), read with
// hookd's own decoder and usage book: the attributes docs/telemetry.md names, and the totals a session's
// ledger record gets from them.

const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);
const field = (value: unknown, key: string): unknown => (isObject(value) ? value[key] : undefined);

interface Decoded {
  request: RecordedOtlp;
  body: Json;
}

async function decodeRun(run: string): Promise<Decoded[]> {
  const out: Decoded[] = [];
  for (const request of recordedOtlp(run))
    out.push({ request, body: await decodeExport(request.signal, request.body, request.encoding) });
  return out;
}

/** Every metric data point: its metric's name and temporality, its own attributes, its resource's. */
function points(decoded: Decoded[]) {
  return decoded.flatMap(({ body }) =>
    list(field(body, 'resourceMetrics')).flatMap((rm) =>
      list(field(rm, 'scopeMetrics')).flatMap((sm) =>
        list(field(sm, 'metrics')).flatMap((m) => {
          const data = field(m, 'sum') ?? field(m, 'histogram') ?? field(m, 'gauge');
          return list(field(data, 'dataPoints')).map((p) => ({
            metric: String(field(m, 'name')),
            temporality: field(data, 'aggregationTemporality'),
            attributes: attributesOf(field(p, 'attributes')),
            resource: attributesOf(field(field(rm, 'resource'), 'attributes')),
          }));
        }),
      ),
    ),
  );
}

function logRecords(decoded: Decoded[]) {
  return decoded.flatMap(({ body }) =>
    list(field(body, 'resourceLogs')).flatMap((rl) =>
      list(field(rl, 'scopeLogs')).flatMap((sl) =>
        list(field(sl, 'logRecords')).map((r) => ({
          attributes: attributesOf(field(r, 'attributes')),
          resource: attributesOf(field(field(rl, 'resource'), 'attributes')),
        })),
      ),
    ),
  );
}

function book(decoded: Decoded[]): UsageBook {
  const usage = new UsageBook(() => 1_700_000_000_000);
  for (const { request, body } of decoded) {
    if (!isObject(body)) continue;
    if (request.signal === 'metrics') usage.addMetrics(body);
    if (request.signal === 'logs') usage.addLogs(body);
  }
  return usage;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The fixed device id the recording put in place of Claude Code's real one. */
const FAKE_DEVICE_ID = 'f'.repeat(64);

describe.each([
  ['http/protobuf', RECORDED_RUNS.claudeProtobuf],
  ['http/json', RECORDED_RUNS.claudeJson],
])('Claude Code 2.1.330 over %s, as recorded', (_protocol, run) => {
  it('decodes every request, metrics and logs, with the attributes hookd reads', async () => {
    const decoded = await decodeRun(run);
    expect(new Set(decoded.map((d) => d.request.signal))).toEqual(new Set(['metrics', 'logs']));
    const metricPoints = points(decoded);
    const records = logRecords(decoded);
    for (const p of [...metricPoints, ...records]) {
      expect(p.resource).toMatchObject({ 'service.name': 'claude-code', 'service.version': '2.1.330' });
      expect(p.attributes['session.id']).toMatch(UUID);
      expect(p.attributes['user.id']).toBe(FAKE_DEVICE_ID);
    }
    // One session per recording.
    expect(new Set([...metricPoints, ...records].map((p) => p.attributes['session.id'])).size).toBe(1);
    const tokens = metricPoints.filter((p) => p.metric === 'claude_code.token.usage');
    expect(new Set(tokens.map((p) => p.attributes.type))).toEqual(
      new Set(['input', 'output', 'cacheRead', 'cacheCreation']),
    );
    expect(tokens.every((p) => p.attributes.model === 'claude-opus-5-5' && p.temporality === 1)).toBe(true);
    const cost = metricPoints.filter((p) => p.metric === 'claude_code.cost.usage');
    expect(cost.length).toBeGreaterThan(0);
    expect(cost.every((p) => p.attributes.model === 'claude-opus-5-5')).toBe(true);
    const events = records.map((r) => r.attributes['event.name']);
    expect(events).toEqual(expect.arrayContaining(['tool_decision', 'api_request', 'user_prompt']));
    expect(records.find((r) => r.attributes['event.name'] === 'tool_decision')!.attributes).toMatchObject({
      decision: 'accept',
      tool_name: 'Bash',
    });
    // Prompt logging is off (hookd never turns it on): the prompt is not in the data.
    const prompt = records.find((r) => r.attributes['event.name'] === 'user_prompt')!.attributes;
    expect(prompt.prompt).toBe('<REDACTED>');
  });

  it("gives the session's tokens, cost per model and tool decisions", async () => {
    const decoded = await decodeRun(run);
    const sessionId = String(points(decoded)[0]!.attributes['session.id']);
    const usage = book(decoded);
    expect(usage.all().map((t) => t.sessionId)).toEqual([sessionId]);
    const totals = usage.get(sessionId)!;
    expect(totals).toMatchObject({
      inputTokens: 42,
      outputTokens: 16,
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
      models: ['claude-opus-5-5'],
      apiErrors: 0,
      toolDecisions: { accept: 1 },
    });
    expect(totals.costUsd).toBeCloseTo(0.000488, 9);
    const record = agentUsageOf(totals);
    expect(record).toMatchObject({
      source: 'agent-telemetry',
      inputTokens: 42,
      outputTokens: 16,
      models: { 'claude-opus-5-5': { inputTokens: 42, outputTokens: 16 } },
    });
    expect(record.models['claude-opus-5-5']!.costUsd).toBeCloseTo(0.000488, 9);
  });
});

describe('Droid 0.225.2 (OTLP/JSON, token counters on), as recorded', () => {
  it('decodes its metrics and spans, each point with the attributes docs/telemetry.md lists', async () => {
    const decoded = await decodeRun(RECORDED_RUNS.droidJson);
    expect(decoded.map((d) => d.request.signal).sort()).toEqual(['metrics', 'traces']);
    const metricPoints = points(decoded);
    for (const p of metricPoints) {
      expect(p.resource).toMatchObject({ 'service.name': 'cli', 'service.version': '0.225.2' });
      expect(p.attributes).toMatchObject({
        'model.id': 'custom:fake-chat',
        'user.id': 'airgapped-user',
        'user.email': 'unknown',
        'organization.id': 'airgapped-org',
      });
      expect(p.attributes['session.id']).toMatch(UUID);
    }
    expect(new Set(metricPoints.map((p) => p.metric))).toEqual(
      new Set([
        'droid.session.count',
        'droid.hook.invocations',
        'droid.tool.invocations',
        'droid.tool.execution_time',
        'droid.token.input',
        'droid.token.output',
      ]),
    );
    expect(
      metricPoints
        .filter((p) => p.metric === 'droid.hook.invocations')
        .map((p) => p.attributes['hook.event_name']),
    ).toEqual(expect.arrayContaining(['PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd']));
  });

  it("gives the session's tokens for its model, and no cost", async () => {
    const decoded = await decodeRun(RECORDED_RUNS.droidJson);
    const sessionId = String(points(decoded)[0]!.attributes['session.id']);
    const totals = book(decoded).get(sessionId)!;
    expect(totals).toMatchObject({
      inputTokens: 20,
      outputTokens: 10,
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
      models: ['custom:fake-chat'],
    });
    expect(totals.costUsd).toBeUndefined();
    expect(agentUsageOf(totals)).toMatchObject({
      source: 'agent-telemetry',
      costUsd: null,
      models: { 'custom:fake-chat': { inputTokens: 20, outputTokens: 10, costUsd: null } },
    });
  });
});

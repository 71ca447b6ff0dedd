import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import otlpRoot from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import { startDaemon, type Daemon } from '../../../src/daemon/lifecycle/daemon.js';
import { receiverTokenPath } from '../../../src/telemetry/receiver-token.js';
import type { TelemetryConfig } from '../../../src/config/schemas/telemetry-schema.js';
import { OtlpExporter } from '../../../src/telemetry/exporter.js';
import { AgentForwarder } from '../../../src/telemetry/forward.js';
import { AGENT_DROPPED_ATTRIBUTES } from '../../../src/telemetry/agent-redact.js';
import { resolveExportSettings } from '../../../src/telemetry/settings.js';
import { tempEnv } from '../daemon/helpers.js';
import { waitFor } from '../../helpers/wait.js';
import {
  attrs,
  logsOf,
  metricsOf,
  startCollector,
  type CollectorRequest,
  type TestCollector,
} from '../../helpers/otlp-collector.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Encoder = { fromObject(o: object): object; encode(m: object): { finish(): Uint8Array } };
const collectorTypes = (
  otlpRoot as unknown as {
    opentelemetry: { proto: { collector: Record<string, { v1: Record<string, Encoder> }> } };
  }
).opentelemetry.proto.collector;
const protobuf = (group: 'metrics' | 'logs', request: object) => {
  const type =
    group === 'metrics'
      ? collectorTypes.metrics!.v1.ExportMetricsServiceRequest!
      : collectorTypes.logs!.v1.ExportLogsServiceRequest!;
  return type.encode(type.fromObject(request)).finish();
};

const kv = (attributes: Record<string, string>) =>
  Object.entries(attributes).map(([key, value]) => ({ key, value: { stringValue: value } }));

/** Who the user is, as Claude Code 2.1.330 puts it on every metric and event. */
const IDENTITY = {
  'user.email': 'someone@example.com',
  'user.account_uuid': '5d9c1f7e-0000-4000-8000-000000000001',
  'user.account_id': 'user_01ABCDEF',
  'organization.id': '9f1e2d3c-0000-4000-8000-000000000002',
  'user.id': 'd'.repeat(64),
};
const RESOURCE = { attributes: kv({ 'service.name': 'claude-code', 'host.name': 'laptop-of-someone' }) };

/** A token usage metric shaped like Claude Code's; `value` tells the requests apart. */
function claudeMetrics(sessionId: string, value: number) {
  return {
    resourceMetrics: [
      {
        resource: RESOURCE,
        scopeMetrics: [
          {
            scope: { name: 'com.anthropic.claude_code', version: '2.1.330' },
            metrics: [
              {
                name: 'claude_code.token.usage',
                unit: 'tokens',
                sum: {
                  aggregationTemporality: 1,
                  isMonotonic: true,
                  dataPoints: [
                    {
                      attributes: kv({
                        'session.id': sessionId,
                        ...IDENTITY,
                        'terminal.type': 'xterm',
                        type: 'input',
                        model: 'claude-sonnet-4',
                      }),
                      startTimeUnixNano: '1700000000000000000',
                      timeUnixNano: '1700000005000000000',
                      asDouble: value,
                    },
                  ],
                },
              },
            ],
          },
        ],
      },
    ],
  };
}

/** Claude Code's tool_result and user_prompt events, with the details a user may have turned on. */
function claudeLogs(sessionId: string) {
  const record = (event: string, extra: Record<string, string>) => ({
    timeUnixNano: '1700000001000000000',
    observedTimeUnixNano: '1700000001000000000',
    body: { stringValue: `claude_code.${event}` },
    attributes: kv({
      'event.name': event,
      'session.id': sessionId,
      'prompt.id': 'p-1',
      ...IDENTITY,
      ...extra,
    }),
  });
  return {
    resourceLogs: [
      {
        resource: RESOURCE,
        scopeLogs: [
          {
            scope: { name: 'com.anthropic.claude_code.events', version: '2.1.330' },
            logRecords: [
              record('user_prompt', { prompt: 'fix the login bug in auth.ts', prompt_length: '28' }),
              record('tool_result', {
                tool_name: 'Bash',
                success: 'false',
                tool_parameters: '{"bash_command":"curl -H secret https://internal"}',
                tool_input: '{"command":"cat ~/.ssh/id_rsa"}',
                error: 'failed with Authorization: Bearer abcdefghijklmnop1234',
              }),
            ],
          },
        ],
      },
    ],
  };
}

async function setup(
  receiver: Partial<NonNullable<TelemetryConfig['receiver']>>,
  env: Record<string, string> = {},
) {
  const collector = await startCollector();
  cleanups.push(() => collector.close());
  const temp = tempEnv();
  cleanups.push(temp.cleanup);
  const daemonEnv = { ...temp.env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, ...env };
  const daemon = (await startDaemon({
    env: daemonEnv,
    config: { notify: { channels: {}, rules: [] } },
    telemetry: {
      receiver: { enabled: true, port: 0, maxBodyBytes: 256 * 1024, ...receiver } as NonNullable<
        TelemetryConfig['receiver']
      >,
    },
    telemetryTuning: { flushIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 40 },
  })) as Daemon;
  cleanups.push(() => daemon.close());
  const port = daemon.agentTelemetry!.receiver!.port;
  const token = readFileSync(receiverTokenPath(daemonEnv), 'utf8').trim();
  const post = async (path: string, body: Uint8Array | string, json = false) => {
    const answer = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: {
        'content-type': json ? 'application/json' : 'application/x-protobuf',
        authorization: `Bearer ${token}`,
      },
      body,
    });
    expect(answer.status).toBe(200);
  };
  return { collector, daemon, post };
}

/** The collector's requests that came from the agent (not hookd's own telemetry). */
const fromAgent = (collector: TestCollector, path: string): CollectorRequest[] =>
  collector.requests.filter((r) => r.path === path && JSON.stringify(r.body).includes('"claude-code"'));

/** Every attribute key anywhere in an OTLP request. */
function attributeKeys(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) attributeKeys(item, out);
  else if (value && typeof value === 'object')
    for (const [key, field] of Object.entries(value)) {
      if (key === 'attributes' && Array.isArray(field))
        for (const entry of field as { key: string }[]) out.add(entry.key);
      attributeKeys(field, out);
    }
  return out;
}

describe("forwarding the agents' own telemetry to the team's collector", () => {
  it.each([
    ['http/protobuf', false],
    ['http/json', true],
  ])('sends it on redacted by default (export %s)', async (protocol, jsonIn) => {
    const t = await setup({}, { OTEL_EXPORTER_OTLP_PROTOCOL: protocol });
    // One request in each encoding the agents use, whatever the collector speaks.
    await t.post(
      '/v1/metrics',
      jsonIn ? JSON.stringify(claudeMetrics('s-1', 120)) : protobuf('metrics', claudeMetrics('s-1', 120)),
      jsonIn,
    );
    await t.post(
      '/v1/logs',
      jsonIn ? protobuf('logs', claudeLogs('s-1')) : JSON.stringify(claudeLogs('s-1')),
      !jsonIn,
    );
    await waitFor(
      () => fromAgent(t.collector, '/v1/metrics').length > 0 && fromAgent(t.collector, '/v1/logs').length > 0,
      10_000,
      'the agent’s metrics and logs at the collector',
    );
    const metrics = fromAgent(t.collector, '/v1/metrics');
    const logs = fromAgent(t.collector, '/v1/logs');
    expect(metrics[0]!.contentType).toContain(jsonIn ? 'json' : 'protobuf');
    const keys = attributeKeys([...metrics, ...logs].map((r) => r.body));
    for (const dropped of AGENT_DROPPED_ATTRIBUTES) expect(keys.has(dropped)).toBe(false);
    const text = JSON.stringify([...metrics, ...logs].map((r) => r.body));
    for (const value of [...Object.values(IDENTITY), 'laptop-of-someone', 'login bug', 'id_rsa', 'internal'])
      expect(text).not.toContain(value);
    expect(text).not.toContain('abcdefghijklmnop1234');
    // What a dashboard needs is kept: the figures, the session, the model, the event names.
    const usage = metricsOf(metrics).find((m) => m.name === 'claude_code.token.usage') as {
      sum: { dataPoints: { asDouble: number; attributes: unknown }[] };
    };
    expect(usage.sum.dataPoints[0]!.asDouble).toBe(120);
    expect(attrs(usage.sum.dataPoints[0]!.attributes)).toEqual({
      'session.id': 's-1',
      'terminal.type': 'xterm',
      type: 'input',
      model: 'claude-sonnet-4',
    });
    const records = logsOf(logs).map((r) => attrs(r.attributes));
    expect(records.map((a) => a['event.name'])).toEqual(['user_prompt', 'tool_result']);
    expect(records[0]).toMatchObject({ 'session.id': 's-1', 'prompt.id': 'p-1', prompt_length: '28' });
    expect(records[1]).toMatchObject({ tool_name: 'Bash', success: 'false' });
    expect(records[1]!.error).toContain('failed with Authorization');
    // hookd's joins still see everything (the receiver's own use is not redacted).
    expect(t.daemon.agentTelemetry!.book.get('s-1')).toMatchObject({ inputTokens: 120 });
  });

  it('sends it as the agent sent it when forward is "raw"', async () => {
    const t = await setup({ forward: 'raw' });
    await t.post('/v1/logs', protobuf('logs', claudeLogs('s-2')));
    await waitFor(() => fromAgent(t.collector, '/v1/logs').length > 0, 10_000, 'the agent’s logs');
    const records = logsOf(fromAgent(t.collector, '/v1/logs')).map((r) => attrs(r.attributes));
    expect(records[0]).toMatchObject({ ...IDENTITY, prompt: 'fix the login bug in auth.ts' });
    expect(records[1]!.error).toBe('failed with Authorization: Bearer abcdefghijklmnop1234');
  });

  it('sends nothing on when forward is "off"', async () => {
    const t = await setup({ forward: 'off' });
    await t.post('/v1/metrics', protobuf('metrics', claudeMetrics('s-3', 7)));
    await waitFor(() => t.daemon.agentTelemetry!.book.get('s-3') !== undefined, 10_000, 'the usage joined');
    await t.daemon.close();
    expect(fromAgent(t.collector, '/v1/metrics')).toEqual([]);
  });

  it('loses nothing while the collector is down, within the bound', async () => {
    const t = await setup({});
    let refused = 0;
    t.collector.answer = () => (refused++, 503);
    const values = [1, 2, 3, 4, 5, 6, 7, 8];
    for (const value of values.slice(0, 4))
      await t.post('/v1/metrics', protobuf('metrics', claudeMetrics('s-4', value)));
    await waitFor(() => refused >= 3, 10_000, 'failed attempts while the collector is down');
    for (const value of values.slice(4))
      await t.post('/v1/metrics', protobuf('metrics', claudeMetrics('s-4', value)));
    t.collector.answer = () => 200;
    const forwarded = () =>
      metricsOf(fromAgent(t.collector, '/v1/metrics')).flatMap((m) =>
        (m as { sum: { dataPoints: { asDouble: number }[] } }).sum.dataPoints.map((p) => p.asDouble),
      );
    await waitFor(() => forwarded().length >= values.length, 10_000, 'every request forwarded');
    expect(forwarded().sort((a, b) => a - b)).toEqual(values);
  });
});

describe('the forward queue', () => {
  it('drops the oldest past its byte bound when the agent floods a collector that does not answer', async () => {
    const collector = await startCollector();
    cleanups.push(() => collector.close());
    collector.answer = () => 'hold';
    const settings = resolveExportSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }, undefined);
    if (!settings.enabled) throw new Error(settings.reason);
    const one = protobuf('metrics', claudeMetrics('s-5', 1)).length;
    const exporter = new OtlpExporter({
      targets: settings.targets,
      origin: { resource: {}, scope: { name: 'hookd', version: '0' } },
      maxQueue: 1000,
      flushIntervalMs: 5,
      retryBaseMs: 5,
      retryMaxMs: 20,
      // About five requests fit.
      forward: { maxBytes: one * 5, batchBytes: one * 2 },
    });
    cleanups.push(() => exporter.close());
    // A request still held would keep close() waiting for its deadline.
    cleanups.push(() => collector.release(503));
    const forwarder = new AgentForwarder({
      exporter,
      mode: 'redacted',
      logger: pino({ level: 'silent' }),
      now: Date.now,
    });
    forwarder.take('metrics', claudeMetrics('s-5', 0));
    await waitFor(() => collector.held() === 1, 10_000, 'the first request held by the collector');
    for (let value = 1; value <= 40; value++) forwarder.take('metrics', claudeMetrics('s-5', value));
    await waitFor(() => forwarder.counts.forwarded === 41, 10_000, 'every request queued');
    const stats = exporter.forwardStats().metrics!;
    expect(stats.dropped).toBeGreaterThan(20);
    expect(stats.queuedBytes).toBeLessThanOrEqual(one * 5);
    expect(stats.queued + stats.dropped).toBe(41);
    collector.answer = () => 200;
    collector.release(503);
    const kept = () =>
      metricsOf(collector.requests).flatMap((m) =>
        (m as { sum: { dataPoints: { asDouble: number }[] } }).sum.dataPoints.map((p) => p.asDouble),
      );
    await waitFor(() => exporter.forwardStats().metrics!.queued === 0, 10_000, 'the queue sent');
    // The newest are kept; what went first is the oldest.
    expect(kept()).toContain(40);
    expect(kept()).not.toContain(1);
    expect(kept().length).toBe(41 - exporter.forwardStats().metrics!.dropped);
  });
});

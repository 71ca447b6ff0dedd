import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OtlpExporter } from '../../../src/telemetry/exporter.js';
import { resolveExportSettings } from '../../../src/telemetry/settings.js';
import type { LogItem, MetricItem, SpanItem } from '../../../src/telemetry/signals.js';
import { waitFor } from '../../helpers/wait.js';
import {
  attrs,
  logsOf,
  metricsOf,
  spansOf,
  startCollector,
  type TestCollector,
} from '../../helpers/otlp-collector.js';

const origin = { resource: { 'service.name': 'hookd' }, scope: { name: 'hookd', version: '0.0.0' } };
const span = (n: number): SpanItem => ({
  traceId: 'ab'.repeat(16),
  spanId: n.toString(16).padStart(16, '0'),
  name: `span ${n}`,
  kind: 1,
  startMs: 1_700_000_000_000 + n,
  endMs: 1_700_000_000_250 + n,
  attributes: { 'hookd.n': n, 'hookd.text': 'x', 'hookd.ok': true },
});

let collector: TestCollector | undefined;
let exporter: OtlpExporter | undefined;
afterEach(async () => {
  if (collector) collector.answer = () => 200;
  await exporter?.close();
  await collector?.close();
  collector = exporter = undefined;
});

function exporterFor(
  url: string,
  extra: Partial<ConstructorParameters<typeof OtlpExporter>[0]> = {},
  env = {},
) {
  const settings = resolveExportSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: url, ...env }, undefined);
  if (!settings.enabled) throw new Error(settings.reason);
  return new OtlpExporter({
    targets: settings.targets,
    origin,
    maxQueue: 10,
    batchSize: 4,
    flushIntervalMs: 5,
    retryBaseMs: 5,
    retryMaxMs: 20,
    ...extra,
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('OTLP/HTTP export', () => {
  for (const protocol of ['http/protobuf', 'http/json']) {
    it(`sends spans, logs and metrics as ${protocol} that a collector decodes`, async () => {
      collector = await startCollector();
      exporter = exporterFor(
        collector.url,
        {},
        { OTEL_EXPORTER_OTLP_PROTOCOL: protocol, OTEL_EXPORTER_OTLP_HEADERS: 'x-team=a%20b' },
      );
      exporter.record('traces', span(1));
      const log: LogItem = {
        timeMs: 1_700_000_000_000,
        severity: 9,
        severityText: 'INFO',
        body: 'hookd.event',
        attributes: { 'event.name': 'hookd.event' },
      };
      exporter.record('logs', log);
      const metric = (value: number): MetricItem => ({
        name: 'hookd.events',
        unit: '{event}',
        description: 'd',
        type: 'sum',
        timeMs: 1_700_000_000_000 + value,
        value,
        attributes: { 'hookd.event.name': 'Stop' },
      });
      exporter.record('metrics', metric(1));
      exporter.record('metrics', metric(2));
      exporter.record('metrics', {
        ...metric(0),
        name: 'hookd.command.duration',
        unit: 'ms',
        type: 'histogram',
        value: 42,
      });
      await waitFor(() => collector!.requests.length >= 3, 10_000, 'three requests');
      const c = collector;
      expect(new Set(c.requests.map((r) => r.path))).toEqual(
        new Set(['/v1/traces', '/v1/logs', '/v1/metrics']),
      );
      expect(c.requests.every((r) => r.headers['x-team'] === 'a b')).toBe(true);
      const [s] = spansOf(c.requests);
      expect(s).toMatchObject({
        traceId: 'ab'.repeat(16),
        spanId: '0000000000000001',
        name: 'span 1',
        kind: 1,
      });
      expect(String(s!.startTimeUnixNano)).toBe('1700000000001000000');
      expect(attrs(s!.attributes)).toEqual({ 'hookd.n': 1, 'hookd.text': 'x', 'hookd.ok': true });
      expect(attrs(logsOf(c.requests)[0]!.attributes)).toEqual({ 'event.name': 'hookd.event' });
      const metrics = metricsOf(c.requests);
      const events = metrics.find((m) => m.name === 'hookd.events') as {
        sum: { dataPoints: { asInt: string }[] };
      };
      expect(events.sum.dataPoints.map((p) => Number(p.asInt))).toEqual([3]);
      const duration = metrics.find((m) => m.name === 'hookd.command.duration') as {
        histogram: { dataPoints: { count: string; sum: number }[] };
      };
      expect(Number(duration.histogram.dataPoints[0]!.count)).toBe(1);
      expect(duration.histogram.dataPoints[0]!.sum).toBe(42);
    });
  }

  it('keeps what a collector answering 500 refused and sends it once it recovers', async () => {
    collector = await startCollector();
    let refusals = 0;
    collector.answer = () => (refusals++ < 3 ? 500 : 200);
    exporter = exporterFor(collector.url);
    for (let n = 0; n < 8; n += 1) exporter.record('traces', span(n));
    // The collector has the spans before the exporter has its answer: wait for the exporter's count.
    await waitFor(() => exporter!.stats().traces!.sent === 8, 10_000, 'all eight spans sent');
    const stats = exporter.stats().traces!;
    expect(stats).toMatchObject({ sent: 8, dropped: 0, queued: 0 });
    expect(stats.failures).toBeGreaterThanOrEqual(3);
    expect(spansOf(collector.requests).map((s) => s.name)).toEqual(
      [...Array(8).keys()].map((n) => `span ${n}`),
    );
  });

  it('holds at most maxQueue items while the collector is down, dropping the oldest, then sends the rest', async () => {
    const port = await freePort();
    exporter = exporterFor(`http://127.0.0.1:${port}`);
    for (let n = 0; n < 25; n += 1) exporter.record('traces', span(n));
    await waitFor(() => exporter!.stats().traces!.failures >= 1, 10_000, 'a failed attempt');
    expect(exporter.stats().traces).toMatchObject({ queued: 10, dropped: 15, sent: 0 });
    collector = await startCollector(port);
    await waitFor(() => exporter!.stats().traces!.queued === 0, 10_000, 'the queue to empty');
    expect(spansOf(collector.requests).map((s) => s.name)).toEqual(
      [...Array(10).keys()].map((n) => `span ${n + 15}`),
    );
  });

  it('never holds more than maxQueue items while a slow collector keeps a request open', async () => {
    collector = await startCollector();
    collector.answer = () => 'hold';
    exporter = exporterFor(collector.url, {}, { OTEL_EXPORTER_OTLP_TIMEOUT: '60000' });
    exporter.record('traces', span(0));
    await waitFor(() => collector!.held() === 1, 10_000, 'a held request');
    for (let n = 1; n < 1000; n += 1) exporter.record('traces', span(n));
    expect(exporter.stats().traces).toMatchObject({ queued: 10, dropped: 990 });
    collector.answer = () => 200;
    collector.release(200);
    await waitFor(() => exporter!.stats().traces!.queued === 0, 10_000, 'the queue to empty');
    const names = spansOf(collector.requests).map((s) => s.name);
    expect(names.slice(-10)).toEqual([...Array(10).keys()].map((n) => `span ${n + 990}`));
    expect(exporter.stats().traces!.dropped).toBe(990);
  });

  it('loses nothing to a collector that never answers: each request times out, is retried, and is sent once it answers', async () => {
    collector = await startCollector();
    collector.answer = () => 'hold';
    exporter = exporterFor(collector.url, {}, { OTEL_EXPORTER_OTLP_TIMEOUT: '50' });
    for (let n = 0; n < 6; n += 1) exporter.record('traces', span(n));
    await waitFor(() => exporter!.stats().traces!.failures >= 3, 10_000, 'three timed-out attempts');
    expect(exporter.stats().traces).toMatchObject({ sent: 0, dropped: 0, queued: 6 });
    expect(exporter.stats().traces!.lastError).toMatch(/time/i);
    collector.answer = () => 200;
    await waitFor(() => exporter!.stats().traces!.sent === 6, 10_000, 'all six spans sent');
    expect(exporter.stats().traces).toMatchObject({ dropped: 0, queued: 0 });
    const names = spansOf(collector.requests).map((s) => s.name);
    // Each span once, in order (a batch the collector kept open counts only when it said 200).
    expect(names).toEqual([...Array(6).keys()].map((n) => `span ${n}`));
  });

  it('drops a batch the collector refuses for good (400) and goes on', async () => {
    collector = await startCollector();
    let first = true;
    collector.answer = () => (first ? ((first = false), 400) : 200);
    exporter = exporterFor(collector.url, { batchSize: 1 });
    exporter.record('traces', span(1));
    await waitFor(() => exporter!.stats().traces!.rejected === 1, 10_000, 'a rejected batch');
    exporter.record('traces', span(2));
    await waitFor(() => spansOf(collector!.requests).length === 1, 10_000, 'the next span');
    expect(spansOf(collector.requests)[0]!.name).toBe('span 2');
  });
});

describe('export settings', () => {
  it('is off without an endpoint and under OTEL_SDK_DISABLED=true', () => {
    expect(resolveExportSettings({}, undefined).enabled).toBe(false);
    expect(
      resolveExportSettings(
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' },
        undefined,
      ),
    ).toEqual({ enabled: false, reason: 'OTEL_SDK_DISABLED=true' });
  });

  it('adds the signal paths to a base endpoint and takes a signal endpoint as it is', () => {
    const s = resolveExportSettings(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/',
        OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://l:1/custom',
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
        OTEL_RESOURCE_ATTRIBUTES: 'team=core,deployment.environment=dev',
        OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
      },
      {
        endpoint: 'http://ignored:1',
        includeCommandLines: false,
        includePrompts: false,
        maxQueue: 7,
        resourceAttributes: { team: 'x', site: 'y' },
      },
    );
    if (!s.enabled) throw new Error(s.reason);
    expect(s.targets.traces).toMatchObject({
      url: 'http://c:4318/v1/traces',
      encoding: 'protobuf',
      timeoutMs: 2500,
    });
    expect(s.targets.metrics).toMatchObject({ url: 'http://c:4318/v1/metrics', encoding: 'json' });
    expect(s.targets.logs!.url).toBe('http://l:1/custom');
    expect(s.resource).toEqual({
      team: 'core',
      site: 'y',
      'deployment.environment': 'dev',
      'service.name': 'hookd',
    });
    expect(s.maxQueue).toBe(7);
  });

  it('takes the endpoint from the config when the environment has none, and refuses gRPC', () => {
    const s = resolveExportSettings(
      {},
      {
        endpoint: 'https://collector.example:4318',
        includeCommandLines: false,
        includePrompts: false,
        maxQueue: 5,
      },
    );
    expect(s.enabled && s.targets.traces!.url).toBe('https://collector.example:4318/v1/traces');
    const grpc = resolveExportSettings(
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      undefined,
    );
    expect(grpc.enabled).toBe(false);
    expect(!grpc.enabled && grpc.reason).toMatch(/grpc.*not supported/);
  });
});

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import otlpRoot from '@opentelemetry/otlp-transformer/build/src/generated/root.js';

/**
 * A stand-in for a team's OpenTelemetry collector: a real OTLP/HTTP server on 127.0.0.1 that decodes
 * each request with the OpenTelemetry project's generated protobuf code (or JSON.parse for http/json)
 * and keeps it. `answer` decides each reply: a status, or 'hold' to keep the request open until
 * `release()`.
 */
export interface CollectorRequest {
  path: string;
  contentType: string;
  headers: IncomingMessage['headers'];
  /** The request as OTLP/JSON spells it: hex ids, 64-bit integers as strings. */
  body: Record<string, unknown>;
}

type Message = {
  decode(bytes: Uint8Array): object;
  toObject(m: object, o: object): Record<string, unknown>;
};
const collector = (
  otlpRoot as unknown as {
    opentelemetry: { proto: { collector: Record<string, { v1: Record<string, Message> }> } };
  }
).opentelemetry.proto.collector;
const MESSAGES: Record<string, Message> = {
  '/v1/traces': collector.trace!.v1.ExportTraceServiceRequest!,
  '/v1/metrics': collector.metrics!.v1.ExportMetricsServiceRequest!,
  '/v1/logs': collector.logs!.v1.ExportLogsServiceRequest!,
};

function hexIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(hexIds);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      /^(traceId|spanId|parentSpanId)$/.test(k) && typeof v === 'string'
        ? Buffer.from(v, 'base64').toString('hex')
        : hexIds(v),
    ]),
  );
}

export interface TestCollector {
  url: string;
  port: number;
  requests: CollectorRequest[];
  answer: (request: CollectorRequest) => number | 'hold';
  /** Answers every held request with `status`. */
  release(status?: number): void;
  held(): number;
  close(): Promise<void>;
}

export async function startCollector(port = 0): Promise<TestCollector> {
  const holding: ServerResponse[] = [];
  const requests: CollectorRequest[] = [];
  const state: TestCollector = {
    url: '',
    port: 0,
    requests,
    answer: () => 200,
    release(status = 200) {
      for (const res of holding.splice(0)) res.writeHead(status).end('{}');
    },
    held: () => holding.length,
    close: () =>
      new Promise((resolve) => {
        state.release(503);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const contentType = req.headers['content-type'] ?? '';
      const path = req.url ?? '';
      const message = MESSAGES[path];
      let body: Record<string, unknown> = {};
      if (contentType.includes('json')) body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      else if (message)
        body = hexIds(
          message.toObject(message.decode(raw), {
            longs: String,
            bytes: String,
            enums: Number,
            arrays: true,
          }),
        ) as Record<string, unknown>;
      const request = { path, contentType, headers: req.headers, body };
      const answer = state.answer(request);
      if (answer === 'hold') {
        holding.push(res);
        return;
      }
      if (answer >= 200 && answer < 300) requests.push(request);
      res.writeHead(answer, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${state.port}`;
  return state;
}

/** Every span, log record or metric of the kept requests, flattened. */
export function spansOf(requests: CollectorRequest[]): Record<string, unknown>[] {
  return requests.flatMap((r) =>
    (
      (r.body.resourceSpans as { scopeSpans?: { spans?: Record<string, unknown>[] }[] }[] | undefined) ?? []
    ).flatMap((rs) => (rs.scopeSpans ?? []).flatMap((ss) => ss.spans ?? [])),
  );
}
export function logsOf(requests: CollectorRequest[]): Record<string, unknown>[] {
  return requests.flatMap((r) =>
    (
      (r.body.resourceLogs as { scopeLogs?: { logRecords?: Record<string, unknown>[] }[] }[] | undefined) ??
      []
    ).flatMap((rl) => (rl.scopeLogs ?? []).flatMap((sl) => sl.logRecords ?? [])),
  );
}
export function metricsOf(requests: CollectorRequest[]): Record<string, unknown>[] {
  return requests.flatMap((r) =>
    (
      (r.body.resourceMetrics as
        { scopeMetrics?: { metrics?: Record<string, unknown>[] }[] }[] | undefined) ?? []
    ).flatMap((rm) => (rm.scopeMetrics ?? []).flatMap((sm) => sm.metrics ?? [])),
  );
}

/** An OTLP attribute list as a plain record (int64 strings as numbers). */
export function attrs(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of (list as { key: string; value: Record<string, unknown> }[] | undefined) ??
    []) {
    const v = value ?? {};
    out[key] =
      'intValue' in v ? Number(v.intValue) : (v.stringValue ?? v.boolValue ?? v.doubleValue ?? v.arrayValue);
  }
  return out;
}

type Encoder = { fromObject(o: object): object; encode(m: object): { finish(): Uint8Array } };
const metricsRequest = (
  otlpRoot as unknown as {
    opentelemetry: { proto: { collector: { metrics: { v1: Record<string, Encoder> } } } };
  }
).opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest!;

/** A metrics export request (OTLP/JSON shape) as the protobuf bytes an agent sends. */
export const metricsProtobuf = (request: object): Uint8Array =>
  metricsRequest.encode(metricsRequest.fromObject(request)).finish();

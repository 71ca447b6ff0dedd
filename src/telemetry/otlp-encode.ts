import { exportRequestType } from './otlp-proto.js';
import type { AttrValue, Attributes, LogItem, MetricItem, Signal, SignalItems, SpanItem } from './signals.js';

/** The OTLP/HTTP encodings: `http/protobuf` (the default) and `http/json`. */
export type OtlpEncoding = 'protobuf' | 'json';

export const CONTENT_TYPE: Record<OtlpEncoding, string> = {
  protobuf: 'application/x-protobuf',
  json: 'application/json',
};

/** Who sends: the resource attributes and the instrumentation scope of every request. */
export interface Origin {
  resource: Attributes;
  scope: { name: string; version: string };
}

/** Bucket bounds of the duration histograms, in milliseconds. */
export const DURATION_BUCKETS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000];

const AGGREGATION_DELTA = 1;

/** How ids, times and 64-bit integers are spelled: hex and decimal strings in JSON, bytes and bits in protobuf. */
interface Spelling {
  id(hex: string): unknown;
  nanos(ms: number): unknown;
  int(value: number): unknown;
}

const nanosOf = (ms: number): bigint => BigInt(Math.trunc(ms)) * 1_000_000n;
const JSON_SPELLING: Spelling = {
  id: (hex) => hex,
  nanos: (ms) => nanosOf(ms).toString(),
  int: (value) => String(value),
};
const PROTOBUF_SPELLING: Spelling = {
  id: (hex) => Buffer.from(hex, 'hex'),
  // protobufjs takes a 64-bit value as its two 32-bit halves.
  nanos: (ms) => {
    const ns = nanosOf(ms);
    return { low: Number(ns & 0xffffffffn), high: Number(ns >> 32n) };
  },
  int: (value) => value,
};

function anyValue(value: AttrValue, spell: Spelling): Record<string, unknown> {
  if (Array.isArray(value)) return { arrayValue: { values: value.map((v) => ({ stringValue: v })) } };
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  return Number.isInteger(value) ? { intValue: spell.int(value) } : { doubleValue: value };
}

export function keyValues(attributes: Attributes, spell: Spelling = JSON_SPELLING) {
  return Object.entries(attributes)
    .filter((entry): entry is [string, AttrValue] => entry[1] !== undefined)
    .map(([key, value]) => ({ key, value: anyValue(value, spell) }));
}

function span(item: SpanItem, spell: Spelling) {
  return {
    traceId: spell.id(item.traceId),
    spanId: spell.id(item.spanId),
    ...(item.parentSpanId ? { parentSpanId: spell.id(item.parentSpanId) } : {}),
    name: item.name,
    kind: item.kind,
    startTimeUnixNano: spell.nanos(item.startMs),
    endTimeUnixNano: spell.nanos(item.endMs),
    attributes: keyValues(item.attributes, spell),
    ...(item.status ? { status: item.status } : {}),
  };
}

function logRecord(item: LogItem, spell: Spelling) {
  return {
    timeUnixNano: spell.nanos(item.timeMs),
    observedTimeUnixNano: spell.nanos(item.timeMs),
    severityNumber: item.severity,
    severityText: item.severityText,
    body: { stringValue: item.body },
    attributes: keyValues(item.attributes, spell),
    ...(item.traceId ? { traceId: spell.id(item.traceId) } : {}),
    ...(item.spanId ? { spanId: spell.id(item.spanId) } : {}),
  };
}

/** A stable key for one series: the metric's name and its attributes. */
const seriesKey = (item: MetricItem) =>
  JSON.stringify([
    item.name,
    Object.entries(item.attributes)
      .filter(([, v]) => v !== undefined)
      .sort(),
  ]);

/** Measurements of one batch become one delta data point per series (a sum, or a histogram). */
function metrics(items: MetricItem[], spell: Spelling) {
  const series = new Map<string, MetricItem[]>();
  for (const item of items) {
    const key = seriesKey(item);
    const list = series.get(key);
    if (list) list.push(item);
    else series.set(key, [item]);
  }
  const byName = new Map<string, { first: MetricItem; points: unknown[] }>();
  for (const list of series.values()) {
    const first = list[0]!;
    const start = Math.min(...list.map((i) => i.timeMs));
    const end = Math.max(...list.map((i) => i.timeMs));
    const common = {
      attributes: keyValues(first.attributes, spell),
      startTimeUnixNano: spell.nanos(start),
      timeUnixNano: spell.nanos(end),
    };
    let point: Record<string, unknown>;
    if (first.type === 'sum') {
      const total = list.reduce((sum, i) => sum + i.value, 0);
      point = { ...common, ...(Number.isInteger(total) ? { asInt: spell.int(total) } : { asDouble: total }) };
    } else {
      const counts = DURATION_BUCKETS_MS.map(() => 0).concat(0);
      for (const i of list) {
        const bucket = DURATION_BUCKETS_MS.findIndex((bound) => i.value <= bound);
        counts[bucket === -1 ? DURATION_BUCKETS_MS.length : bucket]! += 1;
      }
      const values = list.map((i) => i.value);
      point = {
        ...common,
        count: spell.int(list.length),
        sum: values.reduce((a, b) => a + b, 0),
        min: Math.min(...values),
        max: Math.max(...values),
        bucketCounts: counts.map((c) => spell.int(c)),
        explicitBounds: DURATION_BUCKETS_MS,
      };
    }
    const entry = byName.get(first.name);
    if (entry) entry.points.push(point);
    else byName.set(first.name, { first, points: [point] });
  }
  return [...byName.values()].map(({ first, points }) => ({
    name: first.name,
    unit: first.unit,
    description: first.description,
    ...(first.type === 'sum'
      ? { sum: { dataPoints: points, aggregationTemporality: AGGREGATION_DELTA, isMonotonic: true } }
      : { histogram: { dataPoints: points, aggregationTemporality: AGGREGATION_DELTA } }),
  }));
}

/** The export request of one signal as a plain object, spelled for `encoding`. */
export function exportRequest<S extends Signal>(
  signal: S,
  items: SignalItems[S][],
  origin: Origin,
  encoding: OtlpEncoding,
): Record<string, unknown> {
  const spell = encoding === 'json' ? JSON_SPELLING : PROTOBUF_SPELLING;
  const resource = { attributes: keyValues(origin.resource, spell) };
  const scope = origin.scope;
  if (signal === 'traces')
    return {
      resourceSpans: [
        { resource, scopeSpans: [{ scope, spans: (items as SpanItem[]).map((i) => span(i, spell)) }] },
      ],
    };
  if (signal === 'logs')
    return {
      resourceLogs: [
        {
          resource,
          scopeLogs: [{ scope, logRecords: (items as LogItem[]).map((i) => logRecord(i, spell)) }],
        },
      ],
    };
  return {
    resourceMetrics: [
      { resource, scopeMetrics: [{ scope, metrics: metrics(items as MetricItem[], spell) }] },
    ],
  };
}

/** The body of one OTLP/HTTP export request. */
export async function encodeExport<S extends Signal>(
  signal: S,
  items: SignalItems[S][],
  origin: Origin,
  encoding: OtlpEncoding,
): Promise<Uint8Array> {
  const request = exportRequest(signal, items, origin, encoding);
  if (encoding === 'json') return Buffer.from(JSON.stringify(request));
  return (await exportRequestType(signal)).encode(request).finish();
}

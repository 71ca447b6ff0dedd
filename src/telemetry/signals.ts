/** An attribute value hookd sends; undefined values are left out. */
export type AttrValue = string | number | boolean | string[];
export type Attributes = Record<string, AttrValue | undefined>;

/** The three OTLP signals, each with its own endpoint path (`/v1/traces`, `/v1/metrics`, `/v1/logs`). */
export const SIGNALS = ['traces', 'metrics', 'logs'] as const;
export type Signal = (typeof SIGNALS)[number];

/** OTLP span kinds hookd uses. */
export const SPAN_KIND = { internal: 1, client: 3 } as const;
/** OTLP status codes. */
export const STATUS = { unset: 0, ok: 1, error: 2 } as const;
/** OTLP severity numbers hookd uses. */
export const SEVERITY = { info: 9, warn: 13, error: 17 } as const;

/** One finished span; ids are lower-case hex (32 and 16 characters), times Unix ms. */
export interface SpanItem {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Attributes;
  status?: { code: number; message?: string };
}

/** One log record (an OTel event when it carries `event.name`). */
export interface LogItem {
  timeMs: number;
  severity: number;
  severityText: string;
  body: string;
  attributes: Attributes;
  traceId?: string;
  spanId?: string;
}

/** One measurement: added to a delta sum, or recorded into a delta histogram, when a batch is sent. */
export interface MetricItem {
  name: string;
  unit: string;
  description: string;
  type: 'sum' | 'histogram';
  timeMs: number;
  value: number;
  attributes: Attributes;
}

export interface SignalItems {
  traces: SpanItem;
  metrics: MetricItem;
  logs: LogItem;
}

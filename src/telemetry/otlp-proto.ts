// The OTLP protobuf messages, as the OpenTelemetry project's own generated code encodes and decodes them
// (@opentelemetry/otlp-transformer ships it, built from the opentelemetry-proto definitions).
import otlpRoot from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import type { Signal } from './signals.js';

/** What hookd uses of one generated message type. */
export interface ProtoMessage {
  encode(message: object): { finish(): Uint8Array };
  decode(bytes: Uint8Array): object;
  toObject(message: object, options: Record<string, unknown>): Record<string, unknown>;
}

type Collector = Record<'trace' | 'metrics' | 'logs', { v1: Record<string, ProtoMessage> }>;
const collector = (otlpRoot as unknown as { opentelemetry: { proto: { collector: Collector } } })
  .opentelemetry.proto.collector;

/** The export request message of each signal (ExportTraceServiceRequest, ...). */
export const EXPORT_REQUEST: Record<Signal, ProtoMessage> = {
  traces: collector.trace.v1.ExportTraceServiceRequest!,
  metrics: collector.metrics.v1.ExportMetricsServiceRequest!,
  logs: collector.logs.v1.ExportLogsServiceRequest!,
};

// The OTLP protobuf messages, as the OpenTelemetry project's own generated code encodes and decodes them
// (@opentelemetry/otlp-transformer ships it, built from the opentelemetry-proto definitions).
import type { Signal } from './signals.js';

/** What hookd uses of one generated message type. */
export interface ProtoMessage {
  encode(message: object): { finish(): Uint8Array };
  fromObject(object: object): object;
  decode(bytes: Uint8Array): object;
  toObject(message: object, options: Record<string, unknown>): Record<string, unknown>;
}

type Collector = Record<'trace' | 'metrics' | 'logs', { v1: Record<string, ProtoMessage> }>;
const NAMES: Record<Signal, [keyof Collector, string]> = {
  traces: ['trace', 'ExportTraceServiceRequest'],
  metrics: ['metrics', 'ExportMetricsServiceRequest'],
  logs: ['logs', 'ExportLogsServiceRequest'],
};

let loading: Promise<Collector> | undefined;

/**
 * The export request message of a signal (ExportTraceServiceRequest, ...). The generated code is large:
 * it is loaded at the first use, so a daemon without telemetry never evaluates it.
 */
export async function exportRequestType(signal: Signal): Promise<ProtoMessage> {
  loading ??= import('@opentelemetry/otlp-transformer/build/src/generated/root.js').then((module) => {
    const root = ((module as { default?: unknown }).default ?? module) as {
      opentelemetry: { proto: { collector: Collector } };
    };
    return root.opentelemetry.proto.collector;
  });
  const [group, name] = NAMES[signal];
  return (await loading)[group].v1[name]!;
}

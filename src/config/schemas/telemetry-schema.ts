import * as z from 'zod';

/** Every default of OpenTelemetry export and the local receiver (docs/telemetry.md). */
export const TELEMETRY_DEFAULTS = {
  protocol: 'http/protobuf',
  timeoutMs: 10_000,
  /** Items held per signal while the collector cannot take them; the oldest go first past it. */
  maxQueue: 2048,
  batchSize: 256,
  flushIntervalMs: 5000,
  retryBaseMs: 1000,
  retryMaxMs: 60_000,
  receiverPort: 4319,
  receiverMaxBodyBytes: 4 * 1024 * 1024,
  /** The agents' telemetry held per signal on its way to the collector; the oldest goes first past it. */
  forwardMaxBytes: 8 * 1024 * 1024,
  /** The largest forwarded request (a single larger one goes alone). */
  forwardBatchBytes: 1024 * 1024,
} as const;

export const telemetryExportSchema = z
  .strictObject({
    endpoint: z
      .url()
      .optional()
      .describe(
        'The collector base URL (as OTEL_EXPORTER_OTLP_ENDPOINT: /v1/traces, /v1/metrics, /v1/logs are added). The environment variable wins.',
      ),
    protocol: z
      .enum(['http/protobuf', 'http/json'])
      .optional()
      .describe('OTLP/HTTP encoding (default http/protobuf; OTEL_EXPORTER_OTLP_PROTOCOL wins).'),
    headers: z
      .record(z.string(), z.string())
      .optional()
      .describe('Extra request headers, e.g. an API key; values may use ${VAR}.'),
    timeoutMs: z.number().int().positive().max(120_000).optional().describe('Deadline of one request.'),
    resourceAttributes: z
      .record(z.string(), z.string())
      .optional()
      .describe('Resource attributes added to everything sent (OTEL_RESOURCE_ATTRIBUTES wins per key).'),
    includeCommandLines: z
      .boolean()
      .default(false)
      .describe('Send the command line of each hook command run (hookd.command.line). Off by default.'),
    includePrompts: z
      .boolean()
      .default(false)
      .describe("Send the user's prompt text with UserPromptSubmit events. Off by default."),
    maxQueue: z
      .number()
      .int()
      .positive()
      .max(100_000)
      .default(TELEMETRY_DEFAULTS.maxQueue)
      .describe('Items kept per signal while the collector is down or slow; the oldest are dropped past it.'),
  })
  .describe('OpenTelemetry export of what the daemon sees (docs/telemetry.md).');

export const telemetryReceiverSchema = z
  .strictObject({
    enabled: z.boolean().default(false).describe("Listen for the agents' own OTLP telemetry on 127.0.0.1."),
    port: z
      .number()
      .int()
      .min(1)
      .max(65_535)
      .default(TELEMETRY_DEFAULTS.receiverPort)
      .describe('The loopback port of the receiver.'),
    maxBodyBytes: z
      .number()
      .int()
      .positive()
      .max(64 * 1024 * 1024)
      .default(TELEMETRY_DEFAULTS.receiverMaxBodyBytes)
      .describe('A larger request is refused with 413.'),
    forward: z
      .enum(['redacted', 'raw', 'off'])
      .optional()
      .describe(
        'Where export is on, send what the agents report on to the same collector: redacted (default: no e-mail, account, organization, prompts or tool parameters), raw (as the agent sent it) or off.',
      ),
    forwardMaxBytes: z
      .number()
      .int()
      .positive()
      .max(256 * 1024 * 1024)
      .optional()
      .describe(
        `Bytes of agent telemetry kept per signal while the collector is down or slow (default ${TELEMETRY_DEFAULTS.forwardMaxBytes}); the oldest are dropped past it.`,
      ),
  })
  .describe("The local OTLP receiver for the agents' own telemetry (docs/telemetry.md).");

export const telemetryConfigSchema = z
  .strictObject({
    export: telemetryExportSchema.optional(),
    receiver: telemetryReceiverSchema.optional(),
  })
  .describe('OpenTelemetry out of the daemon and in from the agents (docs/telemetry.md).');

export type TelemetryConfig = z.infer<typeof telemetryConfigSchema>;
export type TelemetryExportConfig = z.infer<typeof telemetryExportSchema>;
export type TelemetryReceiverConfig = z.infer<typeof telemetryReceiverSchema>;

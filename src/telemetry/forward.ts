import type { Logger } from 'pino';
import type { Json } from '../util/json-values.js';
import { redactAgentRequest } from './agent-redact.js';
import { RESOURCE_KEY, type OtlpExporter } from './exporter.js';
import { idsToBytes, idsToHex } from './otlp-decode.js';
import { exportRequestType } from './otlp-proto.js';
import type { Signal } from './signals.js';

/** How the agents' own telemetry goes on to the team's collector: redacted (default), as it came, or not. */
export type ForwardMode = 'redacted' | 'raw' | 'off';

/** A request that cannot be forwarded is logged at most this often. */
const PROBLEM_LOG_EVERY_MS = 60_000;

export interface ForwardCounts {
  /** Requests queued for the collector. */
  forwarded: number;
  /** Requests that are not a valid OTLP request of their signal (not forwarded). */
  invalid: number;
}

/**
 * Hands what the receiver took from an agent to the exporter's forward queues: redacted unless the mode
 * is "raw", checked against the OTLP message of its signal, and encoded as the collector wants it
 * (protobuf or JSON). The receiver has answered the agent before any of this runs; nothing here throws.
 */
export class AgentForwarder {
  readonly counts: ForwardCounts = { forwarded: 0, invalid: 0 };
  private lastProblemLog = -Infinity;

  constructor(
    private readonly o: {
      exporter: OtlpExporter;
      mode: Exclude<ForwardMode, 'off'>;
      logger: Logger;
      now: () => number;
    },
  ) {}

  /** Takes one decoded export request (OTLP/JSON shape); queues it in the background. */
  take(signal: Signal, request: Json): void {
    const encoding = this.o.exporter.encoding(signal);
    if (!encoding) return;
    const data = this.o.mode === 'raw' ? request : redactAgentRequest(request);
    exportRequestType(signal)
      .then((type) => {
        const message = type.fromObject(idsToBytes(data) as object);
        let body: Buffer;
        if (encoding === 'protobuf') body = Buffer.from(type.encode(message).finish());
        else {
          const spelled = idsToHex(
            type.toObject(message, { longs: String, bytes: String, enums: Number, defaults: false }),
          ) as Json;
          const resources = spelled[RESOURCE_KEY[signal]];
          const text = Array.isArray(resources) ? JSON.stringify(resources).slice(1, -1) : '';
          body = Buffer.from(text);
        }
        if (body.length === 0) return;
        this.o.exporter.forward(signal, { body });
        this.counts.forwarded += 1;
      })
      .catch((error: Error) => {
        this.counts.invalid += 1;
        const at = this.o.now();
        if (at - this.lastProblemLog < PROBLEM_LOG_EVERY_MS) return;
        this.lastProblemLog = at;
        this.o.logger.warn(
          {
            source: 'telemetry',
            signal,
            error: error.message.slice(0, 200),
            invalidSoFar: this.counts.invalid,
          },
          'an agent’s OTLP request is not forwarded: it is not a valid request',
        );
      });
  }
}

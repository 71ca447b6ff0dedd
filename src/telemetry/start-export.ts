import type { Logger } from 'pino';
import type { TelemetryExportConfig } from '../config/schemas/telemetry-schema.js';
import type { Env } from '../paths.js';
import { HOOKD_VERSION } from '../util/version.js';
import { DaemonTelemetry, type SessionUsage } from './daemon-telemetry.js';
import { OtlpExporter, type SignalExportStats } from './exporter.js';
import { resolveExportSettings } from './settings.js';
import type { Signal } from './signals.js';
import { AgentForwarder, type ForwardMode } from './forward.js';
import { TELEMETRY_DEFAULTS } from '../config/schemas/telemetry-schema.js';

export interface StartedExport {
  telemetry: DaemonTelemetry;
  exporter: OtlpExporter;
  stats(): Partial<Record<Signal, SignalExportStats>>;
  /** Sends the agents' own telemetry on (when the receiver is on and forwarding not off). */
  forwarder: AgentForwarder | undefined;
  close(): Promise<void>;
}

/**
 * The daemon's export part: undefined when export is off (no endpoint, OTEL_SDK_DISABLED=true, only an
 * unsupported protocol), with the reason logged once; else the exporter and what feeds it.
 */
export function startExport(options: {
  env: Env;
  config: TelemetryExportConfig | undefined;
  logger: Logger;
  now: () => number;
  usage?: (sessionId: string) => SessionUsage | undefined;
  /** Forwarding of what the receiver takes (telemetry.receiver.forward); absent: none. */
  forward?: { mode: ForwardMode; maxBytes?: number | undefined };
  /** Tests: shorter batching and backoff. */
  tuning?: {
    flushIntervalMs?: number;
    retryBaseMs?: number;
    retryMaxMs?: number;
    defer?: (work: () => void) => void;
  };
}): StartedExport | undefined {
  const { logger } = options;
  const settings = resolveExportSettings(options.env, options.config);
  if (!settings.enabled) {
    logger.debug({ reason: settings.reason }, 'OpenTelemetry export is off');
    return undefined;
  }
  for (const problem of settings.problems) logger.warn({ source: 'telemetry' }, problem);
  const { defer, ...exporterTuning } = options.tuning ?? {};
  const forwarding = options.forward?.mode === 'off' ? undefined : options.forward;
  const exporter = new OtlpExporter({
    targets: settings.targets,
    origin: {
      resource: { 'service.version': HOOKD_VERSION, ...settings.resource },
      scope: { name: 'hookd', version: HOOKD_VERSION },
    },
    maxQueue: settings.maxQueue,
    now: options.now,
    ...exporterTuning,
    ...(forwarding
      ? {
          forward: {
            maxBytes: forwarding.maxBytes ?? TELEMETRY_DEFAULTS.forwardMaxBytes,
            batchBytes: TELEMETRY_DEFAULTS.forwardBatchBytes,
          },
        }
      : {}),
    onTrouble: (signal, problem, what) =>
      problem === undefined
        ? logger.info({ source: 'telemetry', signal, what }, 'the OpenTelemetry collector takes data again')
        : logger.warn(
            { source: 'telemetry', signal, what, problem },
            'cannot send to the OpenTelemetry collector; keeping the newest items and retrying',
          ),
  });
  logger.info(
    {
      source: 'telemetry',
      targets: Object.fromEntries(
        Object.entries(settings.targets).map(([s, t]) => [s, `${t.url} (${t.encoding})`]),
      ),
    },
    'OpenTelemetry export on',
  );
  const telemetry = new DaemonTelemetry({
    exporter,
    includeCommandLines: settings.includeCommandLines,
    includePrompts: settings.includePrompts,
    now: options.now,
    ...(options.usage ? { usage: options.usage } : {}),
    ...(defer ? { defer } : {}),
  });
  const forwarder =
    forwarding && forwarding.mode !== 'off'
      ? new AgentForwarder({ exporter, mode: forwarding.mode, logger, now: options.now })
      : undefined;
  return {
    telemetry,
    exporter,
    forwarder,
    stats: () => exporter.stats(),
    close: () => {
      telemetry.flush();
      return exporter.close();
    },
  };
}

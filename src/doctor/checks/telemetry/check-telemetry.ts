import { TELEMETRY_DEFAULTS, type TelemetryConfig } from '../../../config/schemas/telemetry-schema.js';
import type { Env } from '../../../paths.js';
import type { DaemonState } from '../../../daemon/admin.js';
import { resolveExportSettings } from '../../../telemetry/settings.js';
import { RECEIVER_HOST } from '../../../telemetry/receiver.js';
import { result, type CheckResult } from '../../types.js';

/**
 * Where the daemon's OpenTelemetry goes, as this environment and the config say (a daemon started by
 * systemd or launchd has the unit's environment), and whether hookd's receiver holds its port (as the
 * running daemon says).
 */
export async function checkTelemetry(
  env: Env,
  config: TelemetryConfig | undefined,
  /** The running daemon's state (`status` request): it says which port its receiver holds. */
  options: { daemon: () => Promise<DaemonState> },
): Promise<CheckResult[]> {
  const settings = resolveExportSettings(env, config?.export);
  const out: CheckResult[] = [];
  if (!settings.enabled)
    out.push(
      result(
        'telemetry-export',
        'OpenTelemetry export',
        'skip',
        `off: ${settings.reason}`,
        'docs/telemetry.md',
      ),
    );
  else {
    const where = Object.entries(settings.targets)
      .map(([signal, target]) => `${signal} -> ${target.url} (${target.encoding})`)
      .join('; ');
    out.push(
      result(
        'telemetry-export',
        'OpenTelemetry export',
        settings.problems.length > 0 ? 'warn' : 'ok',
        [where, ...settings.problems].join('; '),
      ),
    );
  }
  const receiver = config?.receiver;
  if (!receiver?.enabled) return out;
  out.push(receiverResult(receiver.port ?? TELEMETRY_DEFAULTS.receiverPort, await options.daemon()));
  return out;
}

/**
 * The receiver as the running daemon reports it (its port, or why it does not listen). Whatever answers
 * on the port is not asked: any local program could answer as hookd's receiver does.
 */
function receiverResult(port: number, daemon: DaemonState): CheckResult {
  const title = 'OTLP receiver';
  if (!daemon.running)
    return result(
      'telemetry-receiver',
      title,
      'warn',
      `the daemon is not running, so nothing listens on ${RECEIVER_HOST}:${port}`,
      'start the daemon (`hookd daemon start`); its log says why the receiver did not listen',
    );
  const r = daemon.stats.telemetry?.receiver;
  if (!r)
    return result(
      'telemetry-receiver',
      title,
      'warn',
      'the running daemon has no receiver: it started before the receiver was turned on',
      'restart the daemon (`hookd daemon restart`)',
    );
  if (r.port === undefined)
    return result(
      'telemetry-receiver',
      title,
      'fail',
      r.problem ?? 'the daemon does not listen for OTLP',
      'set telemetry.receiver.port to a free port, run `hookd install --agent claude --otel` again, and restart the daemon',
    );
  if (r.port !== port)
    return result(
      'telemetry-receiver',
      title,
      'warn',
      `the daemon listens on ${RECEIVER_HOST}:${r.port}, the config says ${port}`,
      'restart the daemon (`hookd daemon restart`)',
    );
  return result(
    'telemetry-receiver',
    title,
    'ok',
    `hookd listens on ${RECEIVER_HOST}:${port} (${r.counts.accepted} accepted, ${r.counts.unauthorized} without the token)`,
  );
}

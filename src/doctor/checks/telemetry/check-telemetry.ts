import { TELEMETRY_DEFAULTS, type TelemetryConfig } from '../../../config/telemetry-schema.js';
import type { Env } from '../../../paths.js';
import { fetchWithTimeout, type FetchLike } from '../../../util/fetch-with-timeout.js';
import { resolveExportSettings } from '../../../telemetry/settings.js';
import { RECEIVER_HOST, UNAUTHORIZED_TEXT } from '../../../telemetry/receiver.js';
import { result, type CheckResult } from '../../types.js';

/**
 * Where the daemon's OpenTelemetry goes, as this environment and the config say (a daemon started by
 * systemd or launchd has the unit's environment), and whether hookd's receiver holds its port.
 */
export async function checkTelemetry(
  env: Env,
  config: TelemetryConfig | undefined,
  options: { fetch: FetchLike; timeoutMs: number },
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
  const port = receiver.port ?? TELEMETRY_DEFAULTS.receiverPort;
  const url = `http://${RECEIVER_HOST}:${port}/v1/metrics`;
  // Asked without the token on purpose: hookd's receiver answers 401 with its own words.
  const answer = await fetchWithTimeout(
    options.fetch,
    url,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
    { timeoutMs: options.timeoutMs, maxBodyBytes: 256 },
  );
  const title = 'OTLP receiver';
  if (answer.ok && answer.status === 401 && answer.text.trim() === UNAUTHORIZED_TEXT)
    out.push(result('telemetry-receiver', title, 'ok', `hookd listens on ${RECEIVER_HOST}:${port}`));
  else if (answer.ok)
    out.push(
      result(
        'telemetry-receiver',
        title,
        'fail',
        `port ${port} on ${RECEIVER_HOST} is held by another process (it answered HTTP ${answer.status})`,
        'set telemetry.receiver.port to a free port, and the agents’ OTEL_EXPORTER_OTLP_ENDPOINT with it',
      ),
    );
  else
    out.push(
      result(
        'telemetry-receiver',
        title,
        'warn',
        `nothing answers on ${RECEIVER_HOST}:${port} (${answer.reason})`,
        'start the daemon (`hookd daemon start`); its log says why the receiver did not listen',
      ),
    );
  return out;
}

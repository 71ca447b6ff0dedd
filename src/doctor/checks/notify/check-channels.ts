import { existsSync } from 'node:fs';
import type { Channel } from '../../../channels/channel.js';
import { findOnPath } from '../../../channels/desktop.js';
import { safeHost, type FetchLike } from '../../../channels/http.js';
import { interpolateEnv } from '../../../config/interpolate.js';
import { missingVariables } from './missing-variables.js';
import type { ChannelConfig } from '../../../config/schemas/notify-schema.js';
import type { Env } from '../../../paths.js';
import type { DaemonView } from '../daemon/daemon-view.js';
import { probeHttp } from './probe-http.js';
import { sendTestNotification } from './send-test.js';
import { result, type CheckResult } from '../../types.js';

export interface ChannelCheckInput {
  name: string;
  config: ChannelConfig;
  env: Env;
  used: boolean;
  view: DaemonView;
  fetch: FetchLike;
  timeoutMs: number;
  /** With --send-test: the channel, built by the channel code, to send through. */
  sendThrough?: Channel | undefined;
  now: number;
}

/** The URL whose host a channel talks to, already resolved from the environment. */
function targetUrl(config: ChannelConfig): string | undefined {
  if (config.type === 'webhook') return config.url;
  if (config.type === 'slack') return config.webhookUrl ?? config.apiBaseUrl;
  if (config.type === 'ntfy') return config.server;
  return undefined;
}

function commandProblem(config: ChannelConfig, env: Env): string | undefined {
  if (config.type !== 'command' || !Array.isArray(config.command)) return undefined;
  const program = config.command[0]!;
  if (program.includes('/')) return existsSync(program) ? undefined : `${program} does not exist`;
  return findOnPath(program, env.PATH) ? undefined : `${program} is not on PATH`;
}

const RESTART = 'restart the daemon (hookd daemon stop && hookd daemon start)';

/** Configured (every `${VAR}` set), reachable, and (with --send-test) delivering? One channel. */
export async function checkChannel(input: ChannelCheckInput): Promise<CheckResult> {
  const { name, config, env } = input;
  const id = `channel:${name}`;
  const title = `Channel ${name} (${config.type})`;
  if (!config.enabled) return result(id, title, 'skip', 'disabled (enabled: false)');
  const unused = input.used ? '' : ' (no enabled rule sends to it)';
  const inDaemon = input.view.stats?.channels.find((c) => c.name === name);
  const missing = missingVariables(config, env, `notify.channels.${name}`);
  if (missing.length > 0) {
    const list = missing.map((m) => `${m.name} (used in ${m.field})`).join(', ');
    if (inDaemon?.healthy)
      return result(
        id,
        title,
        'warn',
        `not set in this shell: ${list}; the running daemon has ${missing.length === 1 ? 'it' : 'them'}, so it can deliver${unused}`,
        `export ${missing.map((m) => m.name).join(', ')} here too, to let doctor check the channel`,
      );
    return result(
      id,
      title,
      'fail',
      `environment variable${missing.length === 1 ? '' : 's'} not set: ${list}; the channel cannot deliver${unused}`,
      `export ${missing.map((m) => `${m.name}=...`).join(' ')} in the environment the daemon starts from, then ${RESTART}`,
    );
  }
  if (inDaemon && !inDaemon.healthy)
    return result(
      id,
      title,
      'fail',
      `the running daemon cannot use it: ${inDaemon.problems.join('; ')}`,
      `fix the daemon's environment or the config, then ${RESTART}`,
    );
  const resolved = interpolateEnv(config, env).value;
  const notes: string[] = [];
  const url = targetUrl(resolved);
  if (url !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {}
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
      return result(
        id,
        title,
        'fail',
        `its URL is not an http(s) URL${unused}`,
        `fix notify.channels.${name} in the config`,
      );
    const probe = await probeHttp(url, input.fetch, input.timeoutMs);
    if (!probe.ok)
      return result(
        id,
        title,
        'fail',
        `${probe.error}${unused}`,
        'check the URL, your network and any proxy; then run doctor again',
      );
    notes.push(`${safeHost(url)} reachable (HEAD / answered ${probe.status})`);
  }
  const program = commandProblem(resolved, env);
  if (program) return result(id, title, 'fail', `${program}${unused}`, `fix notify.channels.${name}.command`);
  if (input.sendThrough) {
    const sent = await sendTestNotification(input.sendThrough, input.now);
    if (!sent.ok)
      return result(
        id,
        title,
        'fail',
        [...notes, `test notification failed: ${sent.error}`].join('; '),
        'fix the problem above and run `hookd doctor --send-test` again',
      );
    notes.push(`test notification delivered${sent.detail ? ` (${sent.detail})` : ''}`);
  }
  if (notes.length === 0) notes.push('configured');
  return result(id, title, 'ok', `${notes.join('; ')}${unused}`);
}

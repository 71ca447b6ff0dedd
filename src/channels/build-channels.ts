import type { ChannelConfig, NotifyConfig } from '../config/schemas/notify-schema.js';
import { notifySchema } from '../config/schemas/notify-schema.js';
import { interpolateEnv, isShellArgv, shellTextWithEnv } from '../config/interpolate.js';
import type { Channel } from './channel.js';
import { createDesktopChannel, type DesktopOptions } from './desktop.js';
import { createSlackChannel } from './slack.js';
import { createWebhookChannel } from './webhook.js';
import { createCommandChannel } from './command.js';
import { createNtfyChannel } from './ntfy.js';
import { API_DEFAULTS } from '../config/schemas/api-schema.js';
import { createConsoleChannel, type ConsoleOptions } from './console.js';
import type { FetchLike } from './http.js';

export interface BuildChannelsOptions {
  /** Where `${VAR}` values come from, and the environment of command channels. */
  env: Record<string, string | undefined>;
  fetch?: FetchLike;
  desktop?: DesktopOptions;
  /** Where console channels write (default process.stdout). */
  console?: ConsoleOptions;
  /** The platform's web app (api.appUrl), for ntfy click URLs; default HOOKD_APP_URL, else the real host. */
  appUrl?: string;
  /** Replace a channel by name (tests, `hookd demo`). */
  overrides?: Record<string, Channel>;
}

/** A channel that cannot work as configured: every send fails permanently with the reason. */
function brokenChannel(name: string, type: Channel['type'], problem: string): Channel {
  return {
    name,
    type,
    describe: () => `${type} (unusable)`,
    health: () => ({ ok: false, problems: [problem] }),
    send: async () => ({ ok: false, retryable: false, error: problem }),
  };
}

/**
 * `${VAR}` resolved in a channel's config; in a command channel's shell text (a string command, or the
 * script of `sh -c` in an argv) values are never pasted: the shell expands them from the environment.
 */
function resolveChannel(config: ChannelConfig, env: BuildChannelsOptions['env']) {
  if (config.type !== 'command') return interpolateEnv(config, env);
  const { command, ...rest } = config;
  const others = interpolateEnv(rest, env);
  let resolved: typeof command;
  const missing = new Set(others.missing);
  if (typeof command === 'string') {
    const shell = shellTextWithEnv(command, env);
    shell.missing.forEach((name) => missing.add(name));
    resolved = shell.value;
  } else if (isShellArgv(command)) {
    const head = interpolateEnv(command.slice(0, 2), env);
    const script = shellTextWithEnv(command[2]!, env);
    const tail = interpolateEnv(command.slice(3), env);
    for (const part of [head, script, tail]) part.missing.forEach((name) => missing.add(name));
    resolved = [...head.value, script.value, ...tail.value];
  } else {
    const argv = interpolateEnv(command, env);
    argv.missing.forEach((name) => missing.add(name));
    resolved = argv.value;
  }
  return { value: { ...others.value, command: resolved } as ChannelConfig, missing: [...missing] };
}

function buildOne(name: string, config: ChannelConfig, options: BuildChannelsOptions): Channel {
  const { value, missing } = resolveChannel(config, options.env);
  if (missing.length > 0) {
    return brokenChannel(
      name,
      config.type,
      `channel "${name}": environment variable${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not set (referenced as \${VAR} in the config); set it in the daemon's environment and restart it`,
    );
  }
  switch (value.type) {
    case 'desktop':
      return createDesktopChannel(name, value, options.desktop);
    case 'slack':
      return createSlackChannel(name, value, options.fetch ? { fetch: options.fetch } : {});
    case 'webhook':
      return createWebhookChannel(name, value, options.fetch ? { fetch: options.fetch } : {});
    case 'command':
      return createCommandChannel(name, value, { env: options.env });
    case 'console':
      return createConsoleChannel(name, value, { env: options.env, ...options.console });
    case 'ntfy':
      return createNtfyChannel(name, value, {
        ...(options.fetch ? { fetch: options.fetch } : {}),
        appUrl: options.appUrl ?? (options.env.HOOKD_APP_URL || API_DEFAULTS.appUrl),
      });
  }
}

/** Every channel of the config, plus the implicit "desktop" channel the default rules use. */
export function buildChannels(config: NotifyConfig, options: BuildChannelsOptions): Map<string, Channel> {
  const channels = new Map<string, Channel>();
  const defined: Record<string, ChannelConfig> = { ...config.channels };
  if (!('desktop' in defined)) {
    defined.desktop = notifySchema.parse({ channels: { desktop: { type: 'desktop' } } }).channels.desktop!;
  }
  for (const [name, channel] of Object.entries(defined)) {
    if (!channel.enabled) continue;
    channels.set(name, options.overrides?.[name] ?? buildOne(name, channel, options));
  }
  for (const [name, channel] of Object.entries(options.overrides ?? {}))
    if (!channels.has(name)) channels.set(name, channel);
  return channels;
}

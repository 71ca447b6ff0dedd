import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { DesktopChannelConfig } from '../../config/notify-schema.js';
import type { RenderedNotification } from '../notification.js';
import type { Channel, ChannelHealth, DeliveryResult } from './channel.js';

export interface DesktopProbe {
  platform: NodeJS.Platform;
  arch: string;
  env: Record<string, string | undefined>;
}

/** The first executable `name` on PATH, or undefined. */
export function findOnPath(name: string, pathValue: string | undefined): string | undefined {
  for (const dir of (pathValue ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/**
 * What a desktop notification needs here, checked up front because node-notifier fails silently and
 * caches a missing notify-send. Linux: notify-send on PATH and a D-Bus session bus.
 */
export function probeDesktop(probe: DesktopProbe): ChannelHealth & { notifySend?: string } {
  const problems: string[] = [];
  if (probe.platform === 'linux' || probe.platform.endsWith('bsd')) {
    const notifySend = findOnPath('notify-send', probe.env.PATH);
    if (!notifySend)
      problems.push('notify-send not found on PATH: install libnotify-bin (Debian/Ubuntu) or libnotify');
    const bus = probe.env.DBUS_SESSION_BUS_ADDRESS;
    const defaultBus = probe.env.XDG_RUNTIME_DIR ? join(probe.env.XDG_RUNTIME_DIR, 'bus') : undefined;
    if (!bus && !(defaultBus && existsSync(defaultBus))) {
      problems.push(
        'no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is unset and $XDG_RUNTIME_DIR/bus is missing (start the daemon from your desktop session, or export DBUS_SESSION_BUS_ADDRESS)',
      );
    }
    return { ok: problems.length === 0, problems, ...(notifySend ? { notifySend } : {}) };
  }
  if (probe.platform === 'darwin' && probe.arch === 'arm64') {
    return {
      ok: true,
      problems: ['macOS on Apple silicon: node-notifier ships an Intel terminal-notifier (needs Rosetta)'],
    };
  }
  return { ok: true, problems: [] };
}

/** notify-send reads Pango markup in the body: escape what would break it. */
function escapeMarkup(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

type NotifyCallback = (error: Error | string | null, response?: unknown) => void;
interface Notifier {
  notify(options: Record<string, unknown>, callback: NotifyCallback): unknown;
}

async function loadNotifier(platform: NodeJS.Platform): Promise<Notifier> {
  // Loaded on first use only: node-notifier ships vendored binaries and stays out of bundles.
  const mod = (await import('node-notifier')) as unknown as {
    default: Notifier & { NotifySend: new (options: Record<string, unknown>) => Notifier };
  };
  const root = mod.default;
  if (platform === 'linux' || platform.endsWith('bsd'))
    return new root.NotifySend({ suppressOsdCheck: true });
  return root;
}

export interface DesktopOptions {
  platform?: NodeJS.Platform;
  arch?: string;
  /** The environment notify-send will see (the daemon's own). */
  env?: Record<string, string | undefined>;
}

/** A desktop notification through node-notifier; missing prerequisites are reported, never swallowed. */
export function createDesktopChannel(
  name: string,
  config: DesktopChannelConfig,
  options: DesktopOptions = {},
): Channel {
  const platform = options.platform ?? process.platform;
  const arch = options.arch ?? process.arch;
  const env = options.env ?? process.env;
  let notifier: Promise<Notifier> | undefined;
  const health = () => probeDesktop({ platform, arch, env });
  return {
    name,
    type: 'desktop',
    describe: () => `desktop (${platform})`,
    health,
    async send(notification: RenderedNotification): Promise<DeliveryResult> {
      const state = health();
      if (!state.ok)
        return {
          ok: false,
          retryable: false,
          error: `desktop notification impossible: ${state.problems.join('; ')}`,
        };
      const linux = platform === 'linux' || platform.endsWith('bsd');
      const sound = notification.sound ?? config.sound;
      const options: Record<string, unknown> = {
        title: notification.title,
        message: (linux ? escapeMarkup(notification.body) : notification.body) || ' ',
      };
      if (linux) {
        options.urgency = notification.urgency;
        options['app-name'] = config.appName;
        if (config.expireMs !== undefined) options['expire-time'] = config.expireMs / 1000;
        if (sound) options.hint = `string:sound-name:${sound === true ? 'message-new-instant' : sound}`;
      } else if (sound) options.sound = sound === true ? true : sound;
      if (config.icon) options.icon = config.icon;
      let instance: Notifier;
      try {
        instance = await (notifier ??= loadNotifier(platform));
      } catch (error) {
        notifier = undefined;
        return {
          ok: false,
          retryable: false,
          error: `cannot load node-notifier: ${(error as Error).message}`,
        };
      }
      return new Promise<DeliveryResult>((resolve) => {
        const timer = setTimeout(
          () =>
            resolve({
              ok: false,
              retryable: true,
              error: `desktop notifier did not answer within ${config.timeoutMs}ms`,
            }),
          config.timeoutMs,
        );
        try {
          instance.notify(options, (error) => {
            clearTimeout(timer);
            if (error instanceof Error) {
              resolve({
                ok: false,
                retryable: true,
                error: `notify-send failed: ${error.message.split('\n')[0]}`,
              });
            } else resolve({ ok: true, detail: 'shown' });
          });
        } catch (error) {
          clearTimeout(timer);
          resolve({
            ok: false,
            retryable: false,
            error: `desktop notifier threw: ${(error as Error).message}`,
          });
        }
      });
    },
  };
}

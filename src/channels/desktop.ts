import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findOnPath } from '../util/find-on-path.js';
import { runProcess } from '../process/run.js';
import type { DesktopChannelConfig } from '../config/schemas/notify-schema.js';
import type { RenderedNotification } from '../notify/notification.js';
import type { Channel, ChannelHealth, DeliveryResult } from './channel.js';

export { findOnPath };

const KILL_GRACE_MS = 500;

export interface DesktopProbe {
  platform: NodeJS.Platform;
  arch: string;
  env: Record<string, string | undefined>;
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

/**
 * node-notifier, for macOS and Windows (it runs its own vendored notifier binaries). Never on Linux and
 * the BSDs: there it would run `notify-send` by name through a shell, wherever PATH leads; hookd runs
 * the notify-send it found itself (findOnPath) instead.
 */
async function loadNotifier(): Promise<Notifier> {
  // Loaded on first use only: node-notifier ships vendored binaries and stays out of bundles.
  const mod = (await import('node-notifier')) as unknown as { default: Notifier };
  return mod.default;
}

/** Runs a program (never a shell) with a deadline: its stdout, or why it failed. */
async function run(
  file: string,
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs: number,
): Promise<{ ok: true; stdout: string } | { ok: false; error: string }> {
  const ran = await runProcess({
    command: [file, ...args],
    env,
    timeoutMs,
    killGraceMs: KILL_GRACE_MS,
    maxOutputBytes: 64 * 1024,
  });
  if (ran.timedOut) return { ok: false, error: `no answer within ${timeoutMs}ms` };
  if (ran.exitCode === 0) return { ok: true, stdout: ran.stdout.text() };
  const said = ran.stderr.text().trim().split('\n')[0];
  const how = ran.spawnError ?? (ran.exitCode === null ? `killed by ${ran.signal}` : `exit ${ran.exitCode}`);
  return { ok: false, error: said || how };
}

/** A notification id the server gave (`notify-send --print-id`): a positive 32-bit integer. */
const NOTIFICATION_ID = /^[1-9]\d{0,9}$/;

/**
 * notify-send's arguments for a notification: `--print-id` to learn its id (libnotify >= 0.7.9; an
 * older notify-send is run without it), the options, then `--` so a title starting with "-" is never
 * read as an option.
 */
export function notifySendArgs(
  notification: RenderedNotification,
  config: DesktopChannelConfig,
  printId = true,
): string[] {
  const sound = notification.sound ?? config.sound;
  const args = [
    ...(printId ? ['--print-id'] : []),
    '--urgency',
    notification.urgency,
    '--app-name',
    config.appName,
  ];
  if (config.expireMs !== undefined) args.push('--expire-time', String(config.expireMs));
  if (sound) args.push('--hint', `string:sound-name:${sound === true ? 'message-new-instant' : sound}`);
  if (config.icon) args.push('--icon', config.icon);
  return [...args, '--', notification.title || 'hookd', escapeMarkup(notification.body) || ' '];
}

/**
 * Closes a shown notification through D-Bus (org.freedesktop.Notifications.CloseNotification), with gdbus
 * or dbus-send, whichever is on PATH. Best-effort: one already closed is no error.
 */
async function closeNotification(
  id: string,
  env: Record<string, string | undefined>,
  timeoutMs: number,
): Promise<DeliveryResult> {
  const gdbus = findOnPath('gdbus', env.PATH);
  const dbusSend = gdbus ? undefined : findOnPath('dbus-send', env.PATH);
  if (!gdbus && !dbusSend) return { ok: true, detail: 'not closed: neither gdbus nor dbus-send on PATH' };
  const path = '/org/freedesktop/Notifications';
  const method = 'org.freedesktop.Notifications.CloseNotification';
  const closed = gdbus
    ? await run(
        gdbus,
        [
          'call',
          '--session',
          '--dest',
          'org.freedesktop.Notifications',
          '--object-path',
          path,
          '--method',
          method,
          id,
        ],
        env,
        timeoutMs,
      )
    : await run(
        dbusSend!,
        [
          '--session',
          '--dest=org.freedesktop.Notifications',
          '--type=method_call',
          path,
          method,
          `uint32:${id}`,
        ],
        env,
        timeoutMs,
      );
  return closed.ok
    ? { ok: true, detail: `closed notification ${id}` }
    : { ok: true, detail: `not closed: ${closed.error}` };
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
  /** Whether this notify-send prints ids (libnotify >= 0.7.9), asked once per channel. */
  let printsIds: Promise<boolean> | undefined;
  const health = () => probeDesktop({ platform, arch, env });

  /** Linux: notify-send run directly; an id-printing one's id is kept to close the notification later. */
  async function viaNotifySend(
    notifySend: string,
    notification: RenderedNotification,
    printId: boolean,
  ): Promise<DeliveryResult> {
    const args = notifySendArgs(notification, config, printId);
    const shown = await run(notifySend, args, env, config.timeoutMs);
    if (!shown.ok) return { ok: false, retryable: true, error: `notify-send failed: ${shown.error}` };
    const id = shown.stdout.trim().split('\n')[0] ?? '';
    return { ok: true, detail: 'shown', ...(NOTIFICATION_ID.test(id) ? { ref: id } : {}) };
  }
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
      if (notification.kind === 'resolved') {
        const id = notification.resolves?.ref ?? '';
        if (!linux || !NOTIFICATION_ID.test(id))
          return { ok: true, detail: 'not resolved: nothing to close' };
        return closeNotification(id, env, config.timeoutMs);
      }
      if (notification.kind) return { ok: true, detail: `not shown: ${notification.kind}` };
      if (linux) {
        // health() found notify-send (an absolute path), or send() returned above.
        const notifySend = state.notifySend!;
        printsIds ??= run(notifySend, ['--help'], env, config.timeoutMs).then(
          (help) => help.ok && help.stdout.includes('--print-id'),
        );
        return viaNotifySend(notifySend, notification, await printsIds);
      }
      const sound = notification.sound ?? config.sound;
      const options: Record<string, unknown> = {
        title: notification.title,
        message: notification.body || ' ',
      };
      if (sound) options.sound = sound === true ? true : sound;
      if (config.icon) options.icon = config.icon;
      let instance: Notifier;
      try {
        instance = await (notifier ??= loadNotifier());
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
                error: `the desktop notifier failed: ${error.message.split('\n')[0]}`,
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

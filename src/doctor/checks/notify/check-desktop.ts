import type { Channel } from '../../../channels/channel.js';
import { probeDesktop } from '../../../channels/desktop.js';
import type { NotifyConfig } from '../../../config/schemas/notify-schema.js';
import type { Env } from '../../../paths.js';
import type { DaemonView } from '../daemon/daemon-view.js';
import { isDesktopChannel, usedChannels } from './notify-usage.js';
import { sendTestNotification } from './send-test.js';
import { result, type CheckResult } from '../../types.js';

export interface DesktopCheckInput {
  env: Env;
  platform: NodeJS.Platform;
  arch: string;
  notify: NotifyConfig;
  view: DaemonView;
  /** With --send-test: the desktop channel to send through. */
  sendThrough?: Channel | undefined;
  now: number;
}

const RESTART = 'then restart the daemon from your desktop session (hookd daemon stop && hookd daemon start)';

/** No display and no session bus: an SSH login, a server, a container. */
function headless(env: Env): boolean {
  return !env.DISPLAY && !env.WAYLAND_DISPLAY && !env.DBUS_SESSION_BUS_ADDRESS;
}

/**
 * On a machine without a desktop, every desktop notification would be dead-lettered: the fix is to stop
 * sending them here, or to run hookd where the desktop is.
 */
function headlessFix(notify: NotifyConfig, wanted: string[]): string {
  const stop =
    notify.rules === undefined
      ? 'add "notify": {"defaults": false} to your hookd config (the default rules send to the desktop)'
      : `take ${wanted.map((name) => `"${name}"`).join(', ')} out of your notify.rules`;
  return `this machine has no desktop session (no DISPLAY, WAYLAND_DISPLAY or D-Bus). If you never sit at it, ${stop} and send to Slack or a webhook instead (README: Configuration); otherwise start the daemon from your desktop session (hookd daemon stop && hookd daemon start)`;
}

/**
 * Can a desktop notification be shown? The running daemon's own view wins (its environment is what
 * counts); without a daemon, this shell's environment stands in for the one a hook would start it with.
 */
export async function checkDesktop(input: DesktopCheckInput): Promise<CheckResult> {
  const id = 'desktop';
  const title = 'Desktop notifications';
  const wanted = [...usedChannels(input.notify)].filter((name) => isDesktopChannel(input.notify, name));
  if (wanted.length === 0) return result(id, title, 'skip', 'no enabled rule sends to a desktop channel');
  const local = probeDesktop({ platform: input.platform, arch: input.arch, env: input.env });
  const daemonDesktop = input.view.stats?.channels.filter((c) => c.type === 'desktop') ?? [];
  const daemonProblems = daemonDesktop.filter((c) => !c.healthy).flatMap((c) => c.problems);
  if (daemonProblems.length > 0) {
    return result(
      id,
      title,
      'fail',
      `the running daemon cannot show them: ${daemonProblems.join('; ')}`,
      `fix the daemon's environment, ${RESTART}`,
    );
  }
  if (!local.ok && daemonDesktop.length === 0) {
    return result(
      id,
      title,
      'fail',
      `not deliverable from this environment: ${local.problems.join('; ')}`,
      headless(input.env) ? headlessFix(input.notify, wanted) : `fix the problems listed, ${RESTART}`,
    );
  }
  const where =
    daemonDesktop.length > 0
      ? 'the running daemon can show them'
      : `${local.notifySend ?? input.platform} and a D-Bus session found`;
  const note = !local.ok
    ? `; this shell could not (${local.problems.join('; ')}), but the daemon's environment can`
    : '';
  if (input.sendThrough) {
    const sent = await sendTestNotification(input.sendThrough, input.now);
    if (!sent.ok)
      return result(
        id,
        title,
        'fail',
        `test notification failed: ${sent.error}`,
        `fix the problem above, ${RESTART}`,
      );
    return result(id, title, 'ok', `${where}${note}; test notification shown (check your screen)`);
  }
  if (local.ok && local.problems.length > 0)
    return result(
      id,
      title,
      'warn',
      local.problems.join('; '),
      'install Rosetta 2 (softwareupdate --install-rosetta)',
    );
  return result(id, title, 'ok', `${where} (channels: ${wanted.join(', ')})${note}`);
}

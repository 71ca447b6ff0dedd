import type { NotifyConfig } from '../../../config/schemas/notify-schema.js';
import {
  createPresenceProbe,
  describeReading,
  NO_DISPLAY,
  presenceStatusSchema,
  skippedReasons,
  type PresenceDetection,
} from '../../../notify/presence.js';
import type { Env } from '../../../paths.js';
import type { ProbeRun } from '../../../process/probe.js';
import type { DaemonView } from '../daemon/daemon-view.js';
import { result, type CheckResult } from '../../types.js';

export interface PresenceCheckInput {
  env: Env;
  platform: NodeJS.Platform;
  notify: NotifyConfig;
  view: DaemonView;
  /** How a probe runs (tests); default a child process. */
  run?: ProbeRun | undefined;
}

const ID = 'presence';
const TITLE = 'Presence (idle time)';
const RESTART = 'start the daemon from your desktop session (hookd daemon stop && hookd daemon start)';

/** What to do when no source works: install the one that is missing, else run where the desktop is. */
function fixFor(detection: PresenceDetection): string {
  const install = detection.skipped.find((s) => / not installed: /.test(s.reason));
  const then = 'or set notify.presence.source to "off" (docs/sessions.md#presence)';
  if (install) return `${install.reason.slice(install.reason.indexOf(': ') + 2)}, ${then}`;
  return `${RESTART}, ${then}`;
}

/**
 * Which idle source presence uses, or why none works, and the reading now. The running daemon's own
 * detection wins (its environment is what counts); without one, this shell's environment stands in.
 */
export async function checkPresence(input: PresenceCheckInput): Promise<CheckResult> {
  const { source, idleAfterMs } = input.notify.presence;
  if (source === 'off')
    return result(ID, TITLE, 'skip', 'notify.presence.source is "off": presence always reads "unknown"');
  const daemon = presenceStatusSchema.safeParse(input.view.stats?.presence);
  let detection: PresenceDetection;
  let reading: string;
  let where: string;
  if (daemon.success && daemon.data.detection) {
    detection = daemon.data.detection;
    reading = daemon.data.last ? describeReading(daemon.data.last) : 'no reading yet';
    where = 'the running daemon';
  } else {
    const probe = createPresenceProbe({
      env: input.env,
      platform: input.platform,
      source,
      thresholdMs: idleAfterMs,
      ...(input.run ? { run: input.run } : {}),
    });
    detection = await probe.detect();
    reading = describeReading(await probe.read());
    where = input.view.running
      ? 'this shell (the running daemon does not report presence yet)'
      : 'this shell (the daemon is not running)';
  }
  // No X11 session and not a Mac: a server or an SSH login, where nobody sits; nothing to fix.
  const headless =
    input.platform !== 'darwin' &&
    detection.skipped.some((s) => s.source === 'xprintidle' && s.reason === NO_DISPLAY);
  if (detection.source === 'none')
    return result(
      ID,
      TITLE,
      headless ? 'skip' : 'warn',
      `${where}: no idle source works, presence reads "unknown": ${skippedReasons(detection)}`,
      fixFor(detection),
    );
  const status = reading.startsWith('unknown') ? 'warn' : 'ok';
  return result(
    ID,
    TITLE,
    status,
    `${where}: ${detection.source}, ${reading}; away after ${idleAfterMs / 1000} s idle`,
    status === 'warn'
      ? `the ${detection.source} probe failed; run hookd doctor again, or ${RESTART}`
      : undefined,
  );
}

import { runProcess, type SpawnLike } from '../process/run.js';
import { findOnPath } from '../util/find-on-path.js';
import { probeDesktop } from '../channels/desktop.js';

/**
 * Whether the desktop notification can carry Allow and Deny here (docs/remote.md). It can on
 * Linux and the BSDs when all of these hold: notify-send knows `--action` and `--wait` (libnotify 0.7.9
 * or later), a D-Bus session bus is reachable, and the notification server on it lists the "actions"
 * capability (org.freedesktop.Notifications.GetCapabilities, asked with gdbus or dbus-send).
 */
export type DesktopAnswerSupport = { ok: true; notifySend: string } | { ok: false; reason: string };

export interface DesktopProbeEdges {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  /** How the probe's programs start (the daemon's spawner). */
  spawn: SpawnLike;
  /** The deadline of each program the probe runs. */
  timeoutMs: number;
}

const BUS_NAME = 'org.freedesktop.Notifications';
const OBJECT_PATH = '/org/freedesktop/Notifications';
const GET_CAPABILITIES = `${BUS_NAME}.GetCapabilities`;

type Ran = { ok: true; stdout: string } | { ok: false; error: string };

/** Runs one program of the probe (argv, never a shell): its stdout, or why it failed. */
export async function runBounded(
  argv: readonly string[],
  edges: Pick<DesktopProbeEdges, 'env' | 'spawn' | 'timeoutMs'>,
): Promise<Ran> {
  const ran = await runProcess({
    command: argv,
    env: edges.env,
    timeoutMs: edges.timeoutMs,
    killGraceMs: 500,
    maxOutputBytes: 16 * 1024,
    spawn: edges.spawn,
  });
  if (ran.timedOut) return { ok: false, error: `no answer within ${edges.timeoutMs}ms` };
  if (ran.exitCode === 0) return { ok: true, stdout: ran.stdout.text() };
  const said = ran.stderr.text().trim().split('\n')[0];
  const how = ran.spawnError ?? (ran.exitCode === null ? `killed by ${ran.signal}` : `exit ${ran.exitCode}`);
  return { ok: false, error: said || how };
}

/**
 * The capability names in what `gdbus call` prints (`(['actions', 'body'],)`) or `dbus-send
 * --print-reply` prints (one `string "actions"` line each).
 */
export function parseCapabilities(output: string): string[] {
  const names: string[] = [];
  for (const match of output.matchAll(/'([^'\n]*)'|string "([^"\n]*)"/g)) names.push(match[1] ?? match[2]!);
  return names;
}

/** The argv that asks the notification server for its capabilities, or undefined without a D-Bus tool. */
function capabilitiesCommand(env: Record<string, string | undefined>): string[] | undefined {
  const gdbus = findOnPath('gdbus', env.PATH);
  if (gdbus)
    return [
      gdbus,
      'call',
      '--session',
      '--dest',
      BUS_NAME,
      '--object-path',
      OBJECT_PATH,
      '--method',
      GET_CAPABILITIES,
    ];
  const dbusSend = findOnPath('dbus-send', env.PATH);
  if (dbusSend)
    return [dbusSend, '--session', '--print-reply', `--dest=${BUS_NAME}`, OBJECT_PATH, GET_CAPABILITIES];
  return undefined;
}

/** Checks every condition in turn; the first one that fails is the reason given. Never throws. */
export async function probeDesktopAnswers(edges: DesktopProbeEdges): Promise<DesktopAnswerSupport> {
  const { platform, env } = edges;
  if (platform !== 'linux' && !platform.endsWith('bsd'))
    return {
      ok: false,
      reason: `Allow/Deny on the desktop notification needs libnotify actions over D-Bus, which ${platform} does not have; the notification stays a plain one (answer through ntfy or Slack)`,
    };
  const desktop = probeDesktop({ platform, arch: process.arch, env });
  if (!desktop.ok || !desktop.notifySend) return { ok: false, reason: desktop.problems.join('; ') };
  const notifySend = desktop.notifySend;
  const help = await runBounded([notifySend, '--help'], edges);
  if (!help.ok) return { ok: false, reason: `${notifySend} --help failed: ${help.error}` };
  if (!help.stdout.includes('--action') || !help.stdout.includes('--wait'))
    return {
      ok: false,
      reason: `${notifySend} has no --action/--wait: Allow/Deny needs libnotify 0.7.9 or later`,
    };
  const ask = capabilitiesCommand(env);
  if (!ask)
    return {
      ok: false,
      reason:
        'neither gdbus nor dbus-send is on PATH, so the notification server cannot be asked whether it shows actions: install libglib2.0-bin or dbus',
    };
  const capabilities = await runBounded(ask, edges);
  if (!capabilities.ok)
    return {
      ok: false,
      reason: `no notification server answers on the D-Bus session bus (${capabilities.error}): start one (dunst, your desktop's own) in the daemon's session`,
    };
  if (!parseCapabilities(capabilities.stdout).includes('actions'))
    return {
      ok: false,
      reason: 'the notification server does not show actions (no "actions" in its capabilities)',
    };
  return { ok: true, notifySend };
}

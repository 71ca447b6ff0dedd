/** The systemd user unit that starts `hookd daemon run` at login. */
import { dirname } from 'node:path';
import { daemonRunArgv } from '../link/daemon-argv.js';

export const SYSTEMD_UNIT_NAME = 'hookd.service';

/**
 * Environment variables copied into the unit when set: the desktop, hookd's files. Never secrets, and
 * never the shell's PATH (see servicePath).
 */
export const SERVICE_ENV_KEYS = [
  'DBUS_SESSION_BUS_ADDRESS',
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'XDG_CONFIG_HOME',
  'XDG_STATE_HOME',
  'XDG_DATA_HOME',
  'HOOKD_CONFIG',
  'HOOKD_STATE_DIR',
  'HOOKD_DATA_DIR',
  'HOOKD_RUNTIME_DIR',
] as const;

export interface ServiceSpec {
  /** Absolute node binary. */
  nodePath: string;
  /** Absolute hookd program (dist/hookd.cjs). */
  hookdPath: string;
  /** Environment to carry over (only SERVICE_ENV_KEYS are used). */
  env: Record<string, string | undefined>;
  /** Absolute folders to put first in the service's PATH (`install-service --path`). */
  extraPath?: readonly string[];
}

/** The system folders of the service's PATH: systemd's own default for user units, and macOS's. */
const SYSTEM_PATH: Record<'linux' | 'darwin', readonly string[]> = {
  linux: ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'],
  darwin: ['/opt/homebrew/bin', '/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin'],
};

/**
 * The PATH the daemon runs your commands with: the folders given with --path, the folder of the node
 * that runs hookd (so `node` in a command is that one, wherever it was installed), then the system
 * folders. Not the shell's PATH at install time: it may hold a project's folders (`./node_modules/.bin`,
 * a virtualenv), relative or empty entries that resolve against wherever a command runs, or folders
 * other users can write to, and it would be frozen into the unit for good.
 */
export function servicePath(
  spec: Pick<ServiceSpec, 'nodePath' | 'extraPath'>,
  platform: 'linux' | 'darwin',
): string {
  return [...new Set([...(spec.extraPath ?? []), dirname(spec.nodePath), ...SYSTEM_PATH[platform]])].join(
    ':',
  );
}

export function serviceEnvironment(spec: ServiceSpec, platform: 'linux' | 'darwin'): [string, string][] {
  const env = spec.env;
  const out: [string, string][] = [['PATH', servicePath(spec, platform)]];
  for (const key of SERVICE_ENV_KEYS) {
    const value = env[key];
    if (value) out.push([key, value]);
  }
  return out;
}

/** Quotes one word for a systemd command line or Environment= assignment (% and $ are special too). */
export function systemdQuote(word: string): string {
  const escaped = word.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$');
  return /^[A-Za-z0-9_/.,:+@=-]+$/.test(word) ? escaped : `"${escaped}"`;
}

export function renderSystemdUnit(spec: ServiceSpec): string {
  const exec = daemonRunArgv(spec.nodePath, spec.hookdPath).map(systemdQuote).join(' ');
  const environment = serviceEnvironment(spec, 'linux').map(
    ([key, value]) => `Environment=${systemdQuote(`${key}=${value}`)}`,
  );
  return [
    '# Written by `hookd daemon install-service`; `hookd daemon uninstall-service` removes it.',
    '[Unit]',
    'Description=hookd notification daemon for coding agents',
    'Documentation=https://github.com/hookd/hookd',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${exec}`,
    'Restart=on-failure',
    // A daemon started by a hook before the service: `daemon run` exits 10 and systemd does not retry.
    'RestartPreventExitStatus=10',
    'RestartSec=2',
    ...environment,
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

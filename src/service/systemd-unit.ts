/** The systemd user unit that starts `hookd daemon run` at login. */

export const SYSTEMD_UNIT_NAME = 'hookd.service';

/** Environment variables copied into the unit when set: where to find tools, the desktop, hookd's files. Never secrets. */
export const SERVICE_ENV_KEYS = [
  'PATH',
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
}

export function serviceEnvironment(env: Record<string, string | undefined>): [string, string][] {
  const out: [string, string][] = [];
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
  const exec = [spec.nodePath, spec.hookdPath, 'daemon', 'run'].map(systemdQuote).join(' ');
  const environment = serviceEnvironment(spec.env).map(
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

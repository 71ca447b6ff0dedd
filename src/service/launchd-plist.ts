import { join } from 'node:path';
import { serviceEnvironment, type ServiceSpec } from './systemd-unit.js';
import { daemonRunArgv } from '../link/daemon-argv.js';

/** The launchd agent that starts `hookd daemon run` at login on macOS. */
export const LAUNCHD_LABEL = 'dev.hookd.daemon';

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const str = (value: string) => `<string>${xml(value)}</string>`;

export function renderLaunchdPlist(spec: ServiceSpec & { logDir: string }): string {
  const args = daemonRunArgv(spec.nodePath, spec.hookdPath).map((a) => `    ${str(a)}`);
  const env = serviceEnvironment(spec, 'darwin').flatMap(([key, value]) => [
    `    <key>${xml(key)}</key>`,
    `    ${str(value)}`,
  ]);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<!-- Written by `hookd daemon install-service`; `hookd daemon uninstall-service` removes it. -->',
    '<plist version="1.0">',
    '<dict>',
    '  <key>Label</key>',
    `  ${str(LAUNCHD_LABEL)}`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...args,
    '  </array>',
    '  <key>RunAtLoad</key>',
    '  <true/>',
    '  <key>KeepAlive</key>',
    '  <dict>',
    '    <key>SuccessfulExit</key>',
    '    <false/>',
    '  </dict>',
    '  <key>ProcessType</key>',
    '  <string>Background</string>',
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    ...env,
    '  </dict>',
    '  <key>StandardOutPath</key>',
    `  ${str(join(spec.logDir, 'daemon.stdout.log'))}`,
    '  <key>StandardErrorPath</key>',
    `  ${str(join(spec.logDir, 'daemon.stderr.log'))}`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

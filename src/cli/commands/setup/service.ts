import type { Argv, CommandModule } from 'yargs';
import type { ServiceResult } from '../../../service/install-service.js';
import { formatJson, paint, type Out } from '../../../terminal/output.js';
import { cliOut } from '../../../terminal/cli-io.js';

interface ServiceArgs {
  enable: boolean;
  platform?: string;
  json: boolean;
}

function serviceOptions<T>(y: Argv<T>) {
  return y
    .option('enable', {
      type: 'boolean',
      default: true,
      describe: 'Also run systemctl --user / launchctl (--no-enable only writes or removes the file)',
    })
    .option('platform', {
      choices: ['linux', 'darwin'],
      describe: 'Write the service for this platform instead of the current one',
    })
    .option('json', { type: 'boolean', default: false, describe: 'Print the result as JSON' });
}

function print(out: Out, verb: string, result: ServiceResult): void {
  out.write(`${verb} ${result.file}${result.changed ? '' : paint(out, 'gray', ' (unchanged)')}\n`);
  for (const s of result.steps) {
    const ok = s.exitCode === 0 && !s.spawnError;
    const status = ok
      ? paint(out, 'green', 'ok')
      : paint(out, 'yellow', s.spawnError ?? `exit ${s.exitCode}`);
    out.write(`  ${s.command}  ${status}\n`);
  }
  for (const note of result.notes) out.write(`  ${note}\n`);
}

export const installServiceCommand: CommandModule<object, ServiceArgs & { path?: string[] }> = {
  command: 'install-service',
  describe: 'Start the daemon at login: write a systemd user unit (Linux) or a launchd agent (macOS)',
  builder: (y) =>
    serviceOptions(y)
      .option('path', {
        type: 'string',
        array: true,
        describe:
          "Absolute folders to put first in the service's PATH, for the programs your commands run (default PATH: node's folder, then the system folders)",
      })
      .example(
        'hookd daemon install-service --path "$HOME/.local/bin"',
        'Your commands run programs from ~/.local/bin too',
      )
      .example(
        'hookd daemon install-service',
        'Write ~/.config/systemd/user/hookd.service and enable --now it',
      )
      .example('hookd daemon install-service --no-enable', 'Only write the file') as Argv<
      ServiceArgs & { path?: string[] }
    >,
  handler: async (args) => {
    // Loaded here, not with the module: `--help` needs none of it.
    const [{ installService }, { currentHookdPath }] = await Promise.all([
      import('../../../service/install-service.js'),
      import('../../../install/hookd-command.js'),
    ]);
    const result = await installService({
      hookdPath: currentHookdPath(),
      enable: args.enable,
      ...(args.path ? { extraPath: args.path } : {}),
      ...(args.platform ? { platform: args.platform } : {}),
    });
    const out = cliOut();
    if (args.json) out.write(formatJson(result));
    else print(out, result.changed ? 'Wrote' : 'Kept', result);
  },
};

export const uninstallServiceCommand: CommandModule<object, ServiceArgs> = {
  command: 'uninstall-service',
  describe: 'Stop the login service and remove the file install-service wrote',
  builder: (y) =>
    serviceOptions(y)
      .example('hookd daemon uninstall-service', 'Disable, stop and remove the systemd unit / launchd agent')
      .example('hookd daemon uninstall-service --no-enable', 'Only remove the file') as Argv<ServiceArgs>,
  handler: async (args) => {
    const { uninstallService } = await import('../../../service/install-service.js');
    const result = await uninstallService({
      enable: args.enable,
      ...(args.platform ? { platform: args.platform } : {}),
    });
    const out = cliOut();
    if (args.json) out.write(formatJson(result));
    else print(out, result.changed ? 'Removed' : 'Nothing at', result);
  },
};

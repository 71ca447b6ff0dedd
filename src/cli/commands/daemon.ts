import { installServiceCommand, uninstallServiceCommand } from './service.js';
import type { Argv, CommandModule } from 'yargs';
import { startDaemonProcess, stopDaemonProcess } from '../../daemon/admin.js';
import { daemonLogPath } from '../../daemon/logger.js';
import { hookdLocation } from '../../util/hookd-location.js';
import { CliError } from '../../errors.js';
import { formatJson, stdoutOut } from '../../terminal/output.js';
import { formatStatus, statusReport } from './status.js';

async function run(): Promise<void> {
  const { daemonMain } = await import('../../daemon/main.js');
  // daemonMain reports its own failure (once); only the exit code is left to set.
  process.exitCode = await daemonMain(process.env);
}

const runCommand: CommandModule<object, object> = {
  command: 'run',
  describe: 'Run the daemon in the foreground (SIGTERM or Ctrl-C stops it cleanly)',
  builder: (a) =>
    a
      .example(
        'hookd daemon run',
        'Run it in this terminal; its log is in $XDG_STATE_HOME/hookd/logs/daemon.log',
      )
      .epilogue('Exits 10 when another daemon of this user already runs.'),
  handler: run,
};

const startCommand: CommandModule<object, { timeout: number }> = {
  command: 'start',
  describe: 'Start the daemon in the background and wait until it answers',
  builder: (a) =>
    a
      .option('timeout', { type: 'number', default: 10_000, describe: 'Milliseconds to wait for it' })
      .example('hookd daemon start', 'Start it detached; a running daemon is left alone'),
  handler: async (args) => {
    const argv = [process.execPath, hookdLocation().program, 'daemon', 'run'];
    try {
      const { pid, already } = await startDaemonProcess(process.env, argv, args.timeout);
      process.stdout.write(
        already ? `hookd daemon already running (pid ${pid})\n` : `hookd daemon started (pid ${pid})\n`,
      );
    } catch (error) {
      throw new CliError(
        (error as Error).message,
        1,
        `See ${daemonLogPath(process.env)}, or run \`hookd daemon run\` to see it fail.`,
      );
    }
  },
};

const stopCommand: CommandModule<object, { timeout: number }> = {
  command: 'stop',
  describe: 'Stop the daemon: it finishes the deliveries in flight and keeps the rest for the next start',
  builder: (a) =>
    a
      .option('timeout', { type: 'number', default: 15_000, describe: 'Milliseconds to wait for it to exit' })
      .example(
        'hookd daemon stop',
        'Stop it; undelivered notifications wait in the outbox for the next start',
      ),
  handler: async (args) => {
    try {
      const { pid, wasRunning } = await stopDaemonProcess(process.env, args.timeout);
      process.stdout.write(
        wasRunning ? `hookd daemon stopped${pid ? ` (pid ${pid})` : ''}\n` : 'hookd daemon was not running\n',
      );
    } catch (error) {
      throw new CliError(
        (error as Error).message,
        1,
        'Kill it by its pid (`hookd status` shows it); nothing is lost.',
      );
    }
  },
};

const daemonStatusCommand: CommandModule<object, { json: boolean }> = {
  command: 'status',
  describe: 'Same as `hookd status`',
  builder: (a) =>
    a
      .option('json', { type: 'boolean', default: false, describe: 'Print the status as JSON' })
      .example('hookd daemon status --json', 'The same report as `hookd status --json`'),
  handler: async (args) => {
    const out = stdoutOut();
    const report = await statusReport(process.env);
    out.write(args.json ? formatJson(report) : formatStatus(report, out));
  },
};

export const daemonCommand: CommandModule<object, object> = {
  command: 'daemon',
  describe: 'Run, start, stop or inspect the notification daemon; install it as a login service',
  builder: (y: Argv<object>) =>
    y
      .command(runCommand)
      .command(startCommand)
      .command(stopCommand)
      .command(daemonStatusCommand)
      .command(installServiceCommand)
      .command(uninstallServiceCommand)
      .demandCommand(1, 'Name an action: run, start, stop, status, install-service or uninstall-service.')
      .example('hookd daemon start', 'Start it in the background (hooks also do this on their own)')
      .example('hookd daemon run', 'Run it in the foreground, e.g. under systemd --user')
      .example('hookd daemon stop', 'Stop it; pending deliveries wait for the next start')
      .example('hookd daemon install-service', 'Start it at login (systemd user unit or launchd agent)'),
  handler: () => {},
};

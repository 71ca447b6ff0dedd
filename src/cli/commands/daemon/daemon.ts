import { installServiceCommand, uninstallServiceCommand } from '../setup/service.js';
import type { Argv, CommandModule } from 'yargs';
import { hookdLocation } from '../../../util/hookd-location.js';
import { CliError, EXIT } from '../../../errors.js';
import { formatJson } from '../../../terminal/output.js';
import { daemonRunArgv } from '../../../link/daemon-argv.js';
import { cli, cliOut } from '../../../terminal/cli-io.js';

// Loaded when a subcommand runs, not with the module: `hookd daemon --help` needs none of them.
const admin = () => import('../../../daemon/admin.js');
const logHint = async () =>
  `See ${(await import('../../../link/runtime-files.js')).daemonLogPath(cli().env)}, or run \`hookd daemon run\` to see it fail.`;

async function run(): Promise<void> {
  const { daemonMain } = await import('../../../daemon/lifecycle/main.js');
  // daemonMain reports its own failure (once); only the exit code is left to set.
  cli().exitCode = await daemonMain(cli().env);
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

/** `hookd daemon run` of this hookd, as `start` and `restart` start it detached. */
const runArgv = () => daemonRunArgv(process.execPath, hookdLocation().program);

const startCommand: CommandModule<object, { timeout: number }> = {
  command: 'start',
  describe: 'Start the daemon in the background and wait until it answers',
  builder: (a) =>
    a
      .option('timeout', { type: 'number', default: 10_000, describe: 'Milliseconds to wait for it' })
      .example('hookd daemon start', 'Start it detached; a running daemon is left alone'),
  handler: async (args) => {
    try {
      const { startDaemonProcess } = await admin();
      const { pid, already } = await startDaemonProcess(cli().env, runArgv(), args.timeout);
      cli().stdout.write(
        already ? `hookd daemon already running (pid ${pid})\n` : `hookd daemon started (pid ${pid})\n`,
      );
    } catch (error) {
      throw new CliError((error as Error).message, 1, await logHint());
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
      const { pid, wasRunning } = await (await admin()).stopDaemonProcess(cli().env, args.timeout);
      cli().stdout.write(
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

/** Waits until a daemon other than `before` answers; its pid. */
async function answeringDaemon(before: number | undefined, waitMs: number): Promise<number> {
  const deadline = Date.now() + waitMs;
  const { daemonState } = await admin();
  for (;;) {
    const state = await daemonState(cli().env, 1000);
    if (state.running && state.stats.pid !== before) return state.stats.pid;
    if (Date.now() > deadline) throw new Error(`the daemon did not answer within ${waitMs}ms of its restart`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const restartCommand: CommandModule<object, { timeout: number }> = {
  command: 'restart',
  describe: 'Stop the daemon and start it again (through systemd or launchd when the login service runs it)',
  builder: (a) =>
    a
      .option('timeout', {
        type: 'number',
        default: 15_000,
        describe: 'Milliseconds to wait for it to stop, then to answer',
      })
      .example('hookd daemon restart', 'After upgrading hookd: the new daemon takes over, nothing is lost')
      .epilogue(
        'Under `hookd daemon install-service` it asks systemctl --user (or launchctl) to restart the ' +
          'service; otherwise it stops the daemon and starts it detached, as `hookd daemon start` does.',
      ),
  handler: async (args) => {
    const { daemonState, startDaemonProcess, stopDaemonProcess } = await admin();
    const before = await daemonState(cli().env, 1000);
    const pid = before.running ? before.stats.pid : undefined;
    try {
      const { restartService } = await import('../../../service/install-service.js');
      const steps = await restartService({});
      if (steps) {
        const now = await answeringDaemon(pid, args.timeout);
        cli().stdout.write(`hookd daemon restarted by ${steps[0]!.command.split(' ')[0]} (pid ${now})\n`);
        return;
      }
      await stopDaemonProcess(cli().env, args.timeout);
      const started = await startDaemonProcess(cli().env, runArgv(), args.timeout);
      cli().stdout.write(
        `hookd daemon ${pid ? `restarted (pid ${pid} -> ${started.pid})` : `was not running; started (pid ${started.pid})`}\n`,
      );
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new CliError((error as Error).message, EXIT.FAILURE, await logHint());
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
    const out = cliOut();
    const { formatStatus, statusReport } = await import('../data/status.js');
    const report = await statusReport(cli().env);
    out.write(args.json ? formatJson(report) : formatStatus(report, out));
  },
};

export const daemonCommand: CommandModule<object, object> = {
  command: 'daemon',
  describe: 'Run, start, stop, restart or inspect the notification daemon; install it as a login service',
  builder: (y: Argv<object>) =>
    y
      .command(runCommand)
      .command(startCommand)
      .command(stopCommand)
      .command(restartCommand)
      .command(daemonStatusCommand)
      .command(installServiceCommand)
      .command(uninstallServiceCommand)
      .demandCommand(
        1,
        'Name an action: run, start, stop, restart, status, install-service or uninstall-service.',
      )
      .example('hookd daemon start', 'Start it in the background (hooks also do this on their own)')
      .example('hookd daemon run', 'Run it in the foreground, e.g. under systemd --user')
      .example('hookd daemon stop', 'Stop it; pending deliveries wait for the next start')
      .example('hookd daemon restart', 'Stop it and start it again, e.g. after an upgrade')
      .example('hookd daemon install-service', 'Start it at login (systemd user unit or launchd agent)'),
  handler: () => {},
};

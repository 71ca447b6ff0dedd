import type { CommandModule } from 'yargs';
import { CliError, EXIT, UsageError } from '../../../errors.js';
import { cli } from '../../../terminal/cli-io.js';

interface SimulatorArgs {
  port: number;
  'app-port'?: number;
  seed: string;
  now?: string;
  'step-ms': number;
  env: boolean;
}

/** The --help example that starts the simulator for a shell session (a test runs it as written). */
export const SIMULATOR_SHELL_EXAMPLE =
  'hookd simulator --env > sim.env & until [ -s sim.env ]; do sleep 0.1; done; . ./sim.env';

/** One single-quoted word for sh. */
const shWord = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** Waits for SIGINT or SIGTERM, once. */
function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export const simulatorCommand: CommandModule<object, SimulatorArgs> = {
  command: 'simulator',
  describe: 'Run a local simulator of the platform API (seeded data, for tests, demos and offline work)',
  builder: (y) =>
    y
      .option('port', { type: 'number', default: 0, describe: 'Port of the API host (0: any free port)' })
      .option('app-port', {
        type: 'number',
        describe: 'Port of the app host (default: port + 1, or any free port)',
      })
      .option('seed', { type: 'string', default: 'hookd', describe: 'Seed of the generated organization' })
      .option('now', {
        type: 'string',
        describe: 'Start the simulated clock at this ISO time (it keeps running)',
      })
      .option('step-ms', {
        type: 'number',
        default: 2000,
        describe: 'Duration of each computer provisioning step',
      })
      .option('env', {
        type: 'boolean',
        default: false,
        describe:
          'Print `export HOOKD_API_URL=... HOOKD_APP_URL=... HOOKD_API_KEY=...` for sh instead of JSON',
      })
      .example('hookd simulator --port 4010', 'API on 127.0.0.1:4010, app on 127.0.0.1:4011')
      .epilogue(`From a shell, in the background (stop it with kill %1):\n  ${SIMULATOR_SHELL_EXAMPLE}`),
  handler: async (args) => {
    let offsetMs = 0;
    if (args.now !== undefined) {
      const start = Date.parse(args.now);
      if (Number.isNaN(start))
        throw new UsageError(`--now ${args.now} is not a date`, 'Example: --now 2026-11-20T12:00:00Z');
      offsetMs = start - Date.now();
    }
    if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) {
      throw new UsageError(`--port must be 0-65535, got ${args.port}`);
    }
    let sim;
    try {
      const { startSimulator } = await import('../../../platform-api/simulator/index.js');
      sim = await startSimulator({
        port: args.port,
        appPort: args['app-port'],
        seed: args.seed,
        now: () => new Date(Date.now() + offsetMs),
        provisionStepMs: args['step-ms'],
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new CliError(
        `cannot start the simulator: ${code ?? (error as Error).message}`,
        EXIT.FAILURE,
        code === 'EADDRINUSE' ? 'choose another --port, or --port 0 for any free port' : undefined,
      );
    }
    cli().stdout.write(
      args.env
        ? `export HOOKD_API_URL=${shWord(sim.baseUrl)} HOOKD_APP_URL=${shWord(sim.appUrl)} HOOKD_API_KEY=${shWord(sim.keys.owner)}\n`
        : `${JSON.stringify({ baseUrl: sim.baseUrl, appUrl: sim.appUrl, keys: sim.keys })}\n`,
    );
    cli().stderr.write(`hookd simulator: API ${sim.baseUrl}, app ${sim.appUrl}; Ctrl-C to stop\n`);
    await untilSignal();
    await sim.close();
  },
};

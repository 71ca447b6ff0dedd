import type { CommandModule } from 'yargs';
import { formatJson } from '../../../terminal/output.js';
import { cli, cliOut } from '../../../terminal/cli-io.js';

interface DemoArgs {
  keep: boolean;
  fast: boolean;
  json: boolean;
}

export const demoCommand: CommandModule<object, DemoArgs> = {
  command: 'demo',
  describe:
    'Play a real Droid session through hookd (hook commands, daemon, notifications, ledger) in a temp dir, offline',
  builder: (y) =>
    y
      .option('keep', {
        type: 'boolean',
        default: false,
        describe: 'Keep the temp dir (config, logs, ledger, session store) and print its path',
      })
      .option('fast', {
        type: 'boolean',
        default: false,
        describe: 'No pause between events (by default a short one, to follow them as they come)',
      })
      .option('json', {
        type: 'boolean',
        default: false,
        describe: 'Print only a summary as JSON: events, commands, notifications, ledger records',
      })
      .example('hookd demo', 'See hookd work, with no account and no network')
      .example('hookd demo --keep', 'Then look at the files it wrote (the path is printed)')
      .example(
        "hookd demo --fast --json | jq '.notifications[].title'",
        'The notifications it sent, for a script',
      ),
  handler: async (args) => {
    const controller = new AbortController();
    const stop = () => controller.abort();
    // A reader that goes away (`hookd demo | head`) stops the demo, which still cleans up after itself.
    let closed = false;
    const onStdoutError = () => {
      closed = true;
      stop();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    process.stdout.on('error', onStdoutError);
    try {
      // Loaded here, not with the module: `hookd demo --help` needs none of the daemon.
      const { runDemo } = await import('../../../demo/run-demo.js');
      const stdout = cliOut();
      const out = { ...stdout, write: (text: string) => (closed ? undefined : stdout.write(text)) };
      const summary = await runDemo({
        ...(args.json ? {} : { out }),
        keep: args.keep,
        ...(args.fast ? { pauseMs: 0 } : {}),
        signal: controller.signal,
      });
      if (args.json) out.write(formatJson(summary));
      if (summary.interrupted) cli().exitCode = 130;
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.stdout.off('error', onStdoutError);
    }
  },
};

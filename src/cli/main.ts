import yargs, { type Argv } from 'yargs';
import { LISTED_COMMANDS, lazyCommand } from './commands/index.js';
import { CliError, EXIT, isCliError } from '../errors.js';
import { redactText } from '../logging/redact.js';
import { colorFor, safeLines } from '../terminal/output.js';
import { HOOKD_VERSION } from '../util/version.js';
import { cli as cliIo, processIo, withCliIo, type CliIo } from '../terminal/cli-io.js';

export type { CliIo } from '../terminal/cli-io.js';

/** An error for people, on stderr: secrets redacted, and what it quotes (a path, an id) never raw. */
function reportError(error: unknown): number {
  const { stderr, env } = cliIo();
  const color = colorFor(stderr.isTTY, env);
  const red = (s: string) => (color ? `\u001b[31m${s}\u001b[0m` : s);
  if (isCliError(error)) {
    stderr.write(`${red('hookd:')} ${safeLines(redactText(error.message))}\n`);
    if (error.hint) stderr.write(`  ${safeLines(redactText(error.hint))}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  stderr.write(`${red('hookd: unexpected error:')} ${safeLines(redactText(message))}\n`);
  if (env.HOOKD_DEBUG && error instanceof Error && error.stack) {
    stderr.write(`${safeLines(redactText(error.stack))}\n`);
  }
  return EXIT.FAILURE;
}

export function buildCli(argv: string[]): Argv {
  let cli = yargs(argv)
    .scriptName('hookd')
    .usage(
      'hookd <command> [options]\n\nHook runner and notification daemon for coding agents: Droid, Claude Code, Codex CLI,\nGemini CLI and Copilot CLI.',
    )
    .version(HOOKD_VERSION)
    .alias('v', 'version')
    .help()
    .alias('h', 'help')
    .strict()
    .recommendCommands()
    .demandCommand(1, 'Name a command; `hookd --help` lists them.')
    .exitProcess(false)
    .wrap(Math.min(110, cliIo().stdout.columns || 100))
    .example('hookd demo', 'See hookd work on a real recorded session, offline')
    .example('hookd install && hookd doctor', 'Wire hookd into Droid and check the setup')
    .example('hookd emit PreToolUse --tool Execute --command "rm -rf /"', 'Try your hooks without the agent')
    .example('hookd completion >> ~/.bashrc', 'Tab completion for bash (zsh: >> ~/.zshrc)')
    .example('hookd logs --level warn | head', 'The latest failures, timeouts and rejected input')
    .epilogue('Docs: README.md. Every command takes --help with examples.')
    .fail((message, error) => {
      if (error) throw error;
      throw new CliError(
        message ?? 'invalid usage',
        EXIT.USAGE,
        'Run the command with --help for its usage.',
      );
    });
  for (const listed of LISTED_COMMANDS) cli = cli.command(lazyCommand(listed));
  cli = cli.command({
    command: 'version',
    describe: 'Print the version of hookd (also -v, --version)',
    builder: (y) => y.example('hookd version', 'The version, e.g. for a bug report'),
    handler: () => void cliIo().stdout.write(`${HOOKD_VERSION}\n`),
  });
  // yargs' own completion command prints its script even for --help: keep its hidden completion
  // protocol (--get-yargs-completions) and declare `completion` as a command of ours.
  cli = cli.completion('__completion', false).command({
    command: 'completion',
    describe: 'Print a shell completion script (bash or zsh)',
    builder: (y) =>
      y
        .example('hookd completion >> ~/.bashrc', 'Tab completion in new bash shells')
        .example('hookd completion >> ~/.zshrc', 'The same for zsh')
        .epilogue('The script asks hookd for completions as you type; it changes nothing else.'),
    handler: () => {
      cli.showCompletionScript();
    },
  });
  return cli;
}

/**
 * A reader that went away (`hookd logs | head`, a pager quit early): the command stops quietly, as a
 * pipeline expects, instead of failing with a stack. The exit code is the command's so far (0 when it
 * had not failed). A command that listens for it itself (`hookd demo`, which cleans up first) ends on
 * its own.
 */
export function endQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      if (stream.listenerCount('error') > 1) return;
      process.exit(typeof process.exitCode === 'number' ? process.exitCode : EXIT.OK);
    });
}

/**
 * Runs one `hookd` command with the given IO and returns its exit code; it never exits the process (the
 * `hookd` program does, with this code). Tests run commands through it in-process.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  return withCliIo(io, async (context) => {
    try {
      // `hookd` alone: the help, as `hookd --help` prints it.
      const args = argv.length === 0 ? ['--help'] : argv;
      let failure: unknown;
      let output = '';
      await buildCli(args).parseAsync(args, {}, (error, _argv, text) => {
        if (error) failure = error;
        output = text;
      });
      if (failure !== undefined) throw failure;
      // yargs' own output (help, version): on stdout, as it prints it.
      if (output) context.stdout.write(`${output}\n`);
      return context.exitCode ?? EXIT.OK;
    } catch (error) {
      return reportError(error);
    }
  });
}

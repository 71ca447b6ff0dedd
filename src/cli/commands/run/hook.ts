import { AGENT_IDS } from '../../../agents/ids.js';
import type { CommandModule } from 'yargs';
import { cli } from '../../../terminal/cli-io.js';

/** `hookd hook`: normally dispatched straight to the hook bundle; this module gives it --help. */
export const hookCommand: CommandModule = {
  command: 'hook',
  describe: 'Run one agent event: the command the agent calls, with the event JSON on stdin',
  builder: (y) =>
    y
      .option('agent', {
        choices: AGENT_IDS,
        describe:
          'The agent that runs this command (written by `hookd install`); without it hookd guesses from the event',
      })
      .option('event', {
        type: 'string',
        describe:
          'The event this command is wired to (written by `hookd install`): which event it is when hookd cannot read its input, so a guard marked "onError": "block" still blocks',
      })
      .example('hookd hook --agent claude < event.json', 'Run an event as Claude Code sends it')
      .example(
        'hookd hook --agent droid --event PreToolUse < event.json',
        'Run a PreToolUse as install wires it',
      )
      .example('hookd hook < event.json', 'Run the commands configured for the event in event.json')
      .example('HOOKD=0 droid', 'Disable hookd for one agent run')
      .epilogue(
        'Exits 0 and prints nothing unless a command decides as it would under the agent (exit 2 with its ' +
          'stderr, a JSON decision on stdout, SessionStart/UserPromptSubmit context); "blocking": false ' +
          'makes a command observe-only.\n' +
          'Env: HOOKD=0 disables hookd; HOOKD_DEBUG=1 traces to stderr; HOOKD_CONFIG picks the config file.',
      ),
  handler: async (argv) => {
    // Loaded here, not with the module: `hookd hook --help` needs none of it.
    const [{ runHook }, { readStdin }, { isDeclaredAgent }, { cliProcessIO }] = await Promise.all([
      import('../../../hook-path/run-hook.js'),
      import('../../../events/read-stdin.js'),
      import('../../../events/parse.js'),
      import('../../hook-io.js'),
    ]);
    const io = cliProcessIO({ daemon: true });
    const agent = argv.agent;
    cli().exitCode = await runHook({
      ...io,
      agent: isDeclaredAgent(agent) ? agent : undefined,
      declaredEvent: typeof argv.event === 'string' ? argv.event : undefined,
      readInput: (limits) => readStdin(cli().stdin, limits),
      writeStdout: (t) => cli().stdout.write(t),
      writeStderr: (t) => cli().stderr.write(t),
    });
  },
};

import type { CommandModule } from 'yargs';
import { resolve } from 'node:path';
import { runDoctor, DEFAULT_DOCTOR_TIMEOUT_MS } from '../../../doctor/run-doctor.js';
import { countStatuses, formatDoctor } from '../../../doctor/format-doctor.js';
import { createProgressLine } from '../../../doctor/progress-line.js';
import { EXIT, UsageError } from '../../../errors.js';
import { formatJson } from '../../../terminal/output.js';
import { cli, cliOut } from '../../../terminal/cli-io.js';

interface DoctorArgs {
  json: boolean;
  project?: string;
  'send-test': boolean;
  drill: boolean;
  timeout: number;
}

export const doctorCommand: CommandModule<object, DoctorArgs> = {
  command: 'doctor',
  describe: 'Check that hookd is installed, wired into the agents, and able to notify you',
  builder: (y) =>
    y
      .option('json', { type: 'boolean', default: false, describe: 'Print the checks as a JSON array' })
      .option('project', {
        type: 'string',
        describe: 'Project whose .factory/ and .claude/ settings are checked (default: current directory)',
      })
      .option('send-test', {
        type: 'boolean',
        default: false,
        describe: 'Send a real test notification through every enabled channel',
      })
      .option('drill', {
        type: 'boolean',
        default: false,
        describe:
          "Fire a harmless shell call (PreToolUse of `true`) through each agent's installed hook command and show which guards ran and what they decided",
      })
      .option('timeout', {
        type: 'number',
        default: DEFAULT_DOCTOR_TIMEOUT_MS,
        describe: 'Milliseconds each network check may take',
      })
      .example('hookd doctor', 'Check everything; exit code 1 when a check fails')
      .example('hookd doctor --send-test', 'Also send a test notification through each channel')
      .example('hookd doctor --drill', 'Also check that your guards run when the agent calls a shell')
      .example(
        'hookd doctor --json | jq \'.[] | select(.status == "fail")\'',
        'Only the failures, for scripts',
      ),
  handler: async (args) => {
    if (!Number.isFinite(args.timeout) || args.timeout <= 0)
      throw new UsageError(`--timeout ${args.timeout} is not a positive number of milliseconds`);
    const out = cliOut();
    const progress = createProgressLine(cli().stderr);
    progress.update('hookd doctor: running checks');
    let results;
    try {
      results = await runDoctor({
        env: cli().env,
        projectDir: resolve(cli().cwd, args.project ?? '.'),
        timeoutMs: args.timeout,
        sendTest: args['send-test'],
        drill: args.drill,
        onProgress: ({ done, total, running }) => {
          if (running.length > 0)
            progress.update(`hookd doctor: waiting for ${running.join(', ')} (${done} of ${total} done)`);
        },
      });
    } finally {
      progress.stop();
    }
    out.write(args.json ? formatJson(results) : formatDoctor(results, out));
    cli().exitCode = countStatuses(results).fail > 0 ? EXIT.FAILURE : EXIT.OK;
  },
};

import { readFileSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { CliError, EXIT, UsageError } from '../errors.js';
import { formatJson } from '../terminal/output.js';
import { parseCreditLimits } from '../platform-api/limits-file.js';
import { formatOf, outputOptions, withClient, print, type OutputArgs } from './common.js';
import { cliOut, cliPath } from '../terminal/cli-io.js';

/** `hookd api limits <action>`: per-user credit limits. */

interface LimitsSetArgs extends OutputArgs {
  file?: string;
  user?: string[];
}

const limitsSetCommand: CommandModule<object, LimitsSetArgs> = {
  command: 'set',
  describe: 'Set per-user credit limits (PUT /api/v0/organization/usage/limits/users)',
  builder: (y) =>
    outputOptions(y)
      .option('file', {
        type: 'string',
        describe: 'CSV (email,limit per line) or JSON ([{email, limit}]); - for stdin',
      })
      .option('user', { type: 'string', array: true, describe: 'email=limit (repeatable)' })
      .example('hookd api limits set --file limits.csv', 'From a CSV file')
      .example('hookd api limits set --user ada@acme.example=500', 'One user'),
  handler: (args) =>
    withClient(async (client) => {
      if (!args.file === !args.user) throw new UsageError('give --file or --user, not both');
      let entries;
      if (args.file) {
        let text: string;
        try {
          text = readFileSync(args.file === '-' ? 0 : cliPath(args.file), 'utf8');
        } catch (error) {
          throw new UsageError(
            `cannot read ${args.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
          );
        }
        entries = parseCreditLimits(text, args.file);
      } else {
        entries = args.user!.map((pair) => {
          const match = /^(.+)=(-?\d+)$/.exec(pair);
          if (!match)
            throw new UsageError(`--user ${pair} is not email=limit`, 'Example: --user ada@acme.example=500');
          return { email: match[1]!, limit: Number(match[2]) };
        });
      }
      const result = await client.setCreditLimits(entries);
      const format = formatOf(args);
      const rows = [
        ...result.updated.map((u) => ({ email: u.email, result: `limit ${u.limit}` })),
        ...result.errors.map((e) => ({ email: e.email, result: `error: ${e.error}` })),
      ];
      if (format === 'json') cliOut().write(formatJson(result));
      else if (format === 'jsonl') print('jsonl', [...result.updated, ...result.errors], []);
      else
        print('table', rows, [
          { header: 'EMAIL', value: (r) => r.email },
          { header: 'RESULT', value: (r) => r.result },
        ]);
      if (result.errors.length > 0) {
        throw new CliError(
          `${result.errors.length} of ${entries.length} credit limits were not set`,
          EXIT.FAILURE,
          'The errors above come from the platform; the other limits were set.',
        );
      }
    }),
};

export const limitsCommand: CommandModule = {
  command: 'limits <action>',
  describe: 'Per-user credit limits (Manager or Owner key)',
  builder: (y) =>
    y.command(limitsSetCommand).demandCommand(1).example('hookd api limits set --file limits.csv', 'Bulk'),
  handler: () => undefined,
};

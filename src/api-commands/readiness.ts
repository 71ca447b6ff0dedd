import type { CommandModule } from 'yargs';
import { readinessColumns } from '../platform-api/present.js';
import {
  formatOf,
  outputOptions,
  withClient,
  print,
  progress,
  printAll,
  moreNote,
  type OutputArgs,
} from './common.js';

/** `hookd api readiness <action>`: agent-readiness reports. */

interface ReadinessArgs extends OutputArgs {
  'repo-id'?: string;
  limit?: number;
  'start-after'?: string;
  all: boolean;
}

const readinessListCommand: CommandModule<object, ReadinessArgs> = {
  command: 'list',
  describe: 'Readiness reports of repositories (GET {app}/api/organization/maturity-level-reports)',
  builder: (y) =>
    outputOptions(y)
      .option('repo-id', { type: 'string', describe: 'Only reports of this repository ID' })
      .option('limit', { type: 'number', describe: 'Reports per page (positive)' })
      .option('start-after', { type: 'string', describe: 'Continue after this report ID' })
      .option('all', { type: 'boolean', default: false, describe: 'Follow pagination to the end' })
      .example('hookd api readiness list --repo-id X --all', 'Every report of one repository'),
  handler: (args) =>
    withClient(async (client) => {
      const format = formatOf(args);
      if (args.all) {
        const counter = progress();
        const reports = client.iterateReadinessReports({
          repoId: args['repo-id'],
          pageSize: args.limit,
          onPage: counter.onPage,
        });
        return printAll(format, reports, readinessColumns, counter);
      }
      const res = await client.listReadinessReports({
        repoId: args['repo-id'],
        limit: args.limit,
        startAfter: args['start-after'],
      });
      print(format, res.reports, readinessColumns, res);
      if (args.limit !== undefined && res.reports.length === args.limit) {
        moreNote(format, '--start-after', res.reports.at(-1)?.reportId);
      }
    }),
};

export const readinessCommand: CommandModule = {
  command: 'readiness <action>',
  describe: 'Agent-readiness reports',
  builder: (y) =>
    y.command(readinessListCommand).demandCommand(1).example('hookd api readiness list', 'Newest reports'),
  handler: () => undefined,
};

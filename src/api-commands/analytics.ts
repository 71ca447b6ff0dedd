import type { Argv, CommandModule } from 'yargs';
import { UsageError } from '../errors.js';
import { type Column } from '../terminal/output.js';
import type { PlatformClient } from '../platform-api/api-client.js';
import { addDays, utcDay } from '../platform-api/dates.js';
import {
  activityColumns,
  groupedActivityColumns,
  groupedTokenColumns,
  groupedToolColumns,
  productivityColumns,
  tokenColumns,
  toolColumns,
  userRowColumns,
} from '../platform-api/present.js';
import type { DateRange } from '../platform-api/requests.js';
import {
  formatOf,
  outputOptions,
  withClient,
  print,
  progress,
  printAll,
  moreNote,
  pageOptions,
  type OutputArgs,
  type PageArgs,
} from './common.js';

/** `hookd api analytics <report>`: organization usage analytics. */

interface RangeArgs extends OutputArgs {
  start?: string;
  end?: string;
  days?: number;
}

function rangeOptions<T>(y: Argv<T>): Argv<T & RangeArgs> {
  return outputOptions(y)
    .option('start', { type: 'string', describe: 'First day, YYYY-MM-DD (UTC), 2026-01-14 or later' })
    .option('end', { type: 'string', describe: 'Last day, YYYY-MM-DD (UTC), yesterday at the latest' })
    .option('days', {
      type: 'number',
      describe: 'Instead of --start/--end: the last N complete days',
    }) as Argv<T & RangeArgs>;
}

function rangeOf(args: RangeArgs): { startDate: string; endDate: string } {
  if (args.days !== undefined) {
    if (args.start || args.end) throw new UsageError('--days cannot be combined with --start or --end');
    if (!Number.isInteger(args.days) || args.days < 1)
      throw new UsageError(`--days must be a positive whole number, got ${args.days}`);
    const end = addDays(utcDay(new Date()), -1);
    return { startDate: addDays(end, -(args.days - 1)), endDate: end };
  }
  if (!args.start || !args.end) {
    throw new UsageError(
      'give --start and --end (YYYY-MM-DD), or --days N',
      'Example: --start 2026-11-01 --end 2026-11-20',
    );
  }
  return { startDate: args.start, endDate: args.end };
}

interface GroupArgs extends RangeArgs {
  'group-by'?: string;
}

function groupOption<T>(y: Argv<T>, value: string, what: string): Argv<T & GroupArgs> {
  return rangeOptions(y).option('group-by', {
    type: 'string',
    choices: [value],
    describe: `One row per day and ${what}`,
  }) as Argv<T & GroupArgs>;
}

interface Envelope<Row> {
  data: Row[];
}

/** An analytics report with one group_by value: the plain and grouped rows have their own columns. */
function groupableReport<Plain, Grouped>(spec: {
  command: string;
  describe: string;
  groupBy: string;
  what: string;
  examples: [string, string][];
  plain: Column<Plain>[];
  grouped: Column<Grouped>[];
  fetchPlain: (client: PlatformClient, range: DateRange) => Promise<Envelope<Plain>>;
  fetchGrouped: (client: PlatformClient, range: DateRange) => Promise<Envelope<Grouped>>;
}): CommandModule<object, GroupArgs> {
  return {
    command: spec.command,
    describe: spec.describe,
    builder: (y) => {
      let built = groupOption(y, spec.groupBy, spec.what);
      for (const [example, text] of spec.examples) built = built.example(example, text);
      return built;
    },
    handler: (args) =>
      withClient(async (client) => {
        const range = rangeOf(args);
        if (args['group-by']) {
          const res = await spec.fetchGrouped(client, range);
          print(formatOf(args), res.data, spec.grouped, res);
        } else {
          const res = await spec.fetchPlain(client, range);
          print(formatOf(args), res.data, spec.plain, res);
        }
      }),
  };
}

const tokensCommand = groupableReport({
  command: 'tokens',
  describe: 'Standard-credit and token usage per day (GET /api/v1/analytics/tokens)',
  groupBy: 'model',
  what: 'model',
  examples: [
    ['hookd api analytics tokens --start 2026-11-01 --end 2026-11-20 --group-by model', 'Per model'],
    ['hookd api analytics tokens --days 7 --json', 'Last week as JSON'],
  ],
  plain: tokenColumns,
  grouped: groupedTokenColumns,
  fetchPlain: (client, range) => client.getTokens(range),
  fetchGrouped: (client, range) => client.getTokens({ ...range, groupBy: 'model' }),
});

const toolsCommand = groupableReport({
  command: 'tools',
  describe: 'Tool, MCP, skill, slash-command and hook usage per day (GET /api/v1/analytics/tools)',
  groupBy: 'tool_name',
  what: 'tool',
  examples: [['hookd api analytics tools --days 7 --group-by tool_name', 'Per tool']],
  plain: toolColumns,
  grouped: groupedToolColumns,
  fetchPlain: (client, range) => client.getTools(range),
  fetchGrouped: (client, range) => client.getTools({ ...range, groupBy: 'tool_name' }),
});

const activityCommand = groupableReport({
  command: 'activity',
  describe: 'Active users, sessions and messages per day (GET /api/v1/analytics/activity)',
  groupBy: 'client',
  what: 'client type',
  examples: [['hookd api analytics activity --days 30 --group-by client', 'Per client']],
  plain: activityColumns,
  grouped: groupedActivityColumns,
  fetchPlain: (client, range) => client.getActivity(range),
  fetchGrouped: (client, range) => client.getActivity({ ...range, groupBy: 'client' }),
});

const productivityCommand: CommandModule<object, RangeArgs> = {
  command: 'productivity',
  describe: 'Files, commits and pull requests per day (GET /api/v1/analytics/productivity)',
  builder: (y) => rangeOptions(y).example('hookd api analytics productivity --days 7', 'Last week'),
  handler: (args) =>
    withClient(async (client) => {
      const res = await client.getProductivity(rangeOf(args));
      print(formatOf(args), res.data, productivityColumns, res);
    }),
};

const analyticsUsersCommand: CommandModule<object, RangeArgs & PageArgs> = {
  command: 'users',
  describe: 'Per-user metrics per day (GET /api/v1/analytics/users)',
  builder: (y) =>
    pageOptions(rangeOptions(y), 'Users per page, 1-100 (default 20)').example(
      'hookd api analytics users --days 7 --all --jsonl',
      'Every row of the last week, one per line',
    ),
  handler: (args) =>
    withClient(async (client) => {
      const range = rangeOf(args);
      const format = formatOf(args);
      if (args.all) {
        const counter = progress();
        const rows = client.iterateAnalyticsUsers({ ...range, pageSize: args.limit, onPage: counter.onPage });
        return printAll(format, rows, userRowColumns, counter);
      }
      const res = await client.getAnalyticsUsers({ ...range, limit: args.limit, cursor: args.cursor });
      print(format, res.data, userRowColumns, res);
      moreNote(format, '--cursor', res.meta.has_more ? res.meta.next_cursor : undefined);
    }),
};

export const analyticsCommand: CommandModule = {
  command: 'analytics <report>',
  describe: 'Organization usage analytics (Manager or Owner key)',
  builder: (y) =>
    y
      .command(tokensCommand)
      .command(toolsCommand)
      .command(activityCommand)
      .command(productivityCommand)
      .command(analyticsUsersCommand)
      .demandCommand(1, 'Name a report: tokens, tools, activity, productivity or users.')
      .example('hookd api analytics tokens --start 2026-11-01 --end 2026-11-20', 'Daily credits'),
  handler: () => undefined,
};

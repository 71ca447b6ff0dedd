import { readFileSync } from 'node:fs';
import type { Argv, CommandModule } from 'yargs';
import { CliError, EXIT, UsageError } from '../../errors.js';
import { formatJson, formatTable, paint, stdoutOut, type Column, type Out } from '../../terminal/output.js';
import { loadConfig } from '../../config/load.js';
import { validator } from '../../config/resolve.js';
import { PlatformClient, resolveApiAccess, type IterateOptions } from '../../platform/client.js';
import { PlatformError, type HttpError } from '../../platform/errors.js';
import type { PageInfo } from '../../platform/pagination.js';
import { addDays, utcDay } from '../../platform/dates.js';
import { parseCreditLimits } from '../../platform/limits-file.js';
import {
  activityColumns,
  changeColumns,
  withChangedKeys,
  computerColumns,
  computerDetails,
  groupedActivityColumns,
  groupedTokenColumns,
  groupedToolColumns,
  messageDetails,
  organizationUserColumns,
  productivityColumns,
  readinessColumns,
  sessionDetails,
  tokenColumns,
  toolColumns,
  userRowColumns,
} from '../../platform/present.js';
import type { DateRange, WritableSessionSettings } from '../../platform/requests.js';

/**
 * `hookd api <area> <action>`: the platform API from the shell. Tables for people, --json / --jsonl for
 * scripts, --all to follow pagination. Exit codes: 2 usage (nothing sent), 3 auth, 4 server, 5 not found.
 */

interface OutputArgs {
  json?: boolean;
  jsonl?: boolean;
}
type Format = 'table' | 'json' | 'jsonl';

const formatOf = (args: OutputArgs): Format => (args.json ? 'json' : args.jsonl ? 'jsonl' : 'table');

function outputOptions<T>(y: Argv<T>): Argv<T & OutputArgs> {
  return y
    .option('json', { type: 'boolean', describe: 'Print the response as JSON' })
    .option('jsonl', {
      type: 'boolean',
      describe: 'Print one JSON object per line (items of a list)',
    })
    .conflicts('json', 'jsonl') as Argv<T & OutputArgs>;
}

function hintFor(error: PlatformError): { exit: number; hint?: string | undefined } {
  switch (error.kind) {
    case 'request-validation':
      return { exit: EXIT.USAGE, hint: 'Nothing was sent. Fix the values named above (see --help).' };
    case 'access':
      return { exit: EXIT.AUTH, hint: (error as { hint?: string }).hint };
    case 'http': {
      const { status } = error as HttpError;
      if (status === 400)
        return { exit: EXIT.USAGE, hint: 'The platform refused the request; fix the values it names.' };
      if (status === 401) {
        return {
          exit: EXIT.AUTH,
          hint: 'Check HOOKD_API_KEY (or FACTORY_API_KEY, or api.keyFile); keys are made in the API-keys settings of the web app.',
        };
      }
      if (status === 403)
        return { exit: EXIT.AUTH, hint: 'This key lacks the role (analytics needs Manager or Owner).' };
      if (status === 404)
        return {
          exit: EXIT.NOT_FOUND,
          hint: 'Check the id or name (for computers: hookd api computers list).',
        };
      if (status === 429 || status >= 500)
        return { exit: EXIT.SERVER, hint: 'The platform is failing or busy; try again later.' };
      return { exit: EXIT.FAILURE };
    }
    case 'response-validation':
      return {
        exit: EXIT.SERVER,
        hint: 'The platform answered in a shape this hookd does not know; upgrade hookd or report the fields named above.',
      };
    default:
      return { exit: EXIT.SERVER, hint: 'Check the network and HOOKD_API_URL / HOOKD_APP_URL, then retry.' };
  }
}

function toCliError(error: unknown): unknown {
  if (!(error instanceof PlatformError)) return error;
  const { exit, hint } = hintFor(error);
  return new CliError(error.message, exit, hint);
}

/** Builds the client from env and config, runs one action, and turns platform errors into exit codes. */
async function withClient(action: (client: PlatformClient) => Promise<void>): Promise<void> {
  try {
    const env = process.env;
    const { config } = loadConfig({ env, projectDir: process.cwd(), validator: () => validator });
    const access = resolveApiAccess(env, config.api);
    await action(new PlatformClient(access));
  } catch (error) {
    throw toCliError(error);
  }
}

function print<T>(format: Format, rows: readonly T[], columns: Column<T>[], whole: unknown = rows): void {
  const out = stdoutOut();
  if (format === 'json') out.write(formatJson(whole));
  else if (format === 'jsonl') for (const row of rows) out.write(`${JSON.stringify(row)}\n`);
  else out.write(rows.length ? formatTable(rows, columns) : `${paint(out, 'gray', '(no rows)')}\n`);
}

function printOne(format: Format, value: unknown, details: string): void {
  const out = stdoutOut();
  if (format === 'table') out.write(details);
  else out.write(format === 'json' ? formatJson(value) : `${JSON.stringify(value)}\n`);
}

/** A counter on stderr, only on a terminal, erased when done. */
function progress(): { onPage: (info: PageInfo) => void; done: () => void } {
  const tty = Boolean(process.stderr.isTTY);
  return {
    onPage: (info) => {
      if (tty) process.stderr.write(`\r\u001b[Kfetched ${info.totalItems} (page ${info.page})`);
    },
    done: () => {
      if (tty) process.stderr.write('\r\u001b[K');
    },
  };
}

/** Follows every page; --jsonl streams items as they arrive. `forTable` may enrich rows for the table. */
async function printAll<T, R extends T = T>(
  format: Format,
  items: AsyncIterable<T>,
  columns: Column<R>[],
  counter = progress(),
  forTable: (rows: T[]) => R[] = (rows) => rows as R[],
) {
  const out: Out = stdoutOut();
  const rows: T[] = [];
  try {
    for await (const item of items) {
      if (format === 'jsonl') out.write(`${JSON.stringify(item)}\n`);
      else rows.push(item);
    }
  } finally {
    counter.done();
  }
  if (format === 'json') out.write(formatJson(rows));
  else if (format === 'table') print(format, forTable(rows), columns);
}

function moreNote(format: Format, cursorFlag: string, cursor: string | null | undefined): void {
  if (format === 'table' && cursor) {
    process.stderr.write(`more results: rerun with ${cursorFlag} ${cursor}, or with --all\n`);
  }
}

// ---- analytics ---------------------------------------------------------------------------------

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

interface PageArgs extends OutputArgs {
  limit?: number;
  cursor?: string;
  all: boolean;
}

function pageOptions<T>(y: Argv<T>, limitHelp: string): Argv<T & PageArgs> {
  return outputOptions(y)
    .option('limit', { type: 'number', describe: limitHelp })
    .option('cursor', { type: 'string', describe: 'Continue from this cursor (printed after a page)' })
    .option('all', { type: 'boolean', default: false, describe: 'Follow pagination to the end' }) as Argv<
    T & PageArgs
  >;
}

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

const analyticsCommand: CommandModule = {
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

// ---- readiness ---------------------------------------------------------------------------------

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

const readinessCommand: CommandModule = {
  command: 'readiness <action>',
  describe: 'Agent-readiness reports',
  builder: (y) =>
    y.command(readinessListCommand).demandCommand(1).example('hookd api readiness list', 'Newest reports'),
  handler: () => undefined,
};

// ---- computers ---------------------------------------------------------------------------------

const computersListCommand: CommandModule<object, OutputArgs> = {
  command: 'list',
  describe: 'Computers of the organization',
  builder: (y) => outputOptions(y).example('hookd api computers list --json', 'As JSON'),
  handler: (args) =>
    withClient(async (client) => {
      const computers = await client.listComputers();
      print(formatOf(args), computers, computerColumns, { computers });
    }),
};

interface GetComputerArgs extends OutputArgs {
  id?: string;
  name?: string;
}

const computersGetCommand: CommandModule<object, GetComputerArgs> = {
  command: 'get [id]',
  describe: 'One computer, by id or --name',
  builder: (y) =>
    outputOptions(y)
      .positional('id', { type: 'string', describe: 'Computer ID' })
      .option('name', { type: 'string', describe: 'Computer name instead of id' })
      .example('hookd api computers get --name box', 'By name'),
  handler: (args) =>
    withClient(async (client) => {
      if ((args.id === undefined) === (args.name === undefined))
        throw new UsageError('give a computer id or --name, not both');
      const computer =
        args.name !== undefined
          ? await client.getComputerByName(args.name)
          : await client.getComputer(args.id!);
      printOne(formatOf(args), computer, computerDetails(computer));
    }),
};

interface CreateComputerArgs extends OutputArgs {
  name: string;
  'remote-user': string;
  provider?: 'byom' | 'e2b';
  'host-id'?: string;
  repo?: string[];
  'auto-install-deps'?: boolean;
  'service-account-id'?: string;
}

const computersCreateCommand: CommandModule<object, CreateComputerArgs> = {
  command: 'create',
  describe: 'Create a computer (POST /api/v0/computers)',
  builder: (y) =>
    outputOptions(y)
      .option('name', { type: 'string', demandOption: true, describe: 'Name, 1-63 characters' })
      .option('remote-user', {
        type: 'string',
        demandOption: true,
        describe: 'User on the machine, 1-63 characters',
      })
      .option('provider', { type: 'string', choices: ['byom', 'e2b'] as const, describe: 'byom or e2b' })
      .option('host-id', { type: 'string', describe: 'UUID of a BYOM host' })
      .option('repo', { type: 'string', array: true, describe: 'Repository URL (repeatable, at most 20)' })
      .option('auto-install-deps', { type: 'boolean', describe: 'Install dependencies after cloning' })
      .option('service-account-id', { type: 'string', describe: 'Own the computer by this service account' })
      .example('hookd api computers create --name box --remote-user dev', 'A managed computer')
      .example(
        'hookd api computers create --name box --remote-user dev --repo https://github.com/acme/api',
        'With a repo',
      ),
  handler: (args) =>
    withClient(async (client) => {
      const computer = await client.createComputer({
        name: args.name,
        remoteUser: args['remote-user'],
        provider: args.provider,
        hostId: args['host-id'],
        repos: args.repo,
        autoInstallDeps: args['auto-install-deps'],
        serviceAccountId: args['service-account-id'],
      });
      printOne(formatOf(args), computer, computerDetails(computer));
    }),
};

interface UpdateComputerArgs extends OutputArgs {
  id: string;
  name?: string;
  'host-id'?: string;
  'remote-user'?: string;
}

const computersUpdateCommand: CommandModule<object, UpdateComputerArgs> = {
  command: 'update <id>',
  describe: 'Rename a computer, or set its host or remote user',
  builder: (y) =>
    outputOptions(y)
      .positional('id', { type: 'string', demandOption: true, describe: 'Computer ID' })
      .option('name', { type: 'string', describe: 'New name, 1-63 characters' })
      .option('host-id', { type: 'string', describe: 'Host UUID' })
      .option('remote-user', { type: 'string', describe: 'New remote user, 1-63 characters' })
      .example('hookd api computers update cmp_123 --name box-2', 'Rename'),
  handler: (args) =>
    withClient(async (client) => {
      const patch = { name: args.name, hostId: args['host-id'], remoteUser: args['remote-user'] };
      if (Object.values(patch).every((v) => v === undefined)) {
        throw new UsageError('nothing to update', 'give --name, --host-id or --remote-user');
      }
      const computer = await client.updateComputer(args.id, patch);
      printOne(formatOf(args), computer, computerDetails(computer));
    }),
};

const computersRetryCommand: CommandModule<object, OutputArgs & { id: string }> = {
  command: 'retry-install <id>',
  aliases: ['install-deps'],
  describe: 'Retry the install-dependencies step of a computer',
  builder: (y) =>
    outputOptions(y)
      .positional('id', { type: 'string', demandOption: true, describe: 'Computer ID' })
      .example('hookd api computers retry-install cmp_123', 'After a failed install'),
  handler: (args) =>
    withClient(async (client) => {
      const computer = await client.retryInstallDeps(args.id);
      printOne(formatOf(args), computer, computerDetails(computer));
    }),
};

const computersCommand: CommandModule = {
  command: 'computers <action>',
  describe: 'Computers the agent runs on',
  builder: (y) =>
    y
      .command(computersListCommand)
      .command(computersGetCommand)
      .command(computersCreateCommand)
      .command(computersUpdateCommand)
      .command(computersRetryCommand)
      .demandCommand(1)
      .example('hookd api computers list', 'Every computer and its status'),
  handler: () => undefined,
};

// ---- sessions and messages ---------------------------------------------------------------------

interface SessionUpdateArgs extends OutputArgs {
  'session-id': string;
  tag?: string[];
  model?: string;
  archive?: boolean;
  settings?: string;
}

const sessionsUpdateCommand: CommandModule<object, SessionUpdateArgs> = {
  command: 'update <session-id>',
  describe: 'Update writable session settings (PATCH /api/v0/sessions/{id})',
  builder: (y) =>
    outputOptions(y)
      .positional('session-id', { type: 'string', demandOption: true })
      .option('tag', { type: 'string', array: true, describe: 'Set the tags to these names (repeatable)' })
      .option('model', { type: 'string', describe: 'Model of the session' })
      .option('archive', { type: 'boolean', describe: 'Archive the session now' })
      .option('settings', { type: 'string', describe: 'More sessionSettings members as a JSON object' })
      .example('hookd api sessions update sess_123 --tag reviewed --tag team:web', 'Tag a session'),
  handler: (args) =>
    withClient(async (client) => {
      let extra: Record<string, unknown> = {};
      if (args.settings !== undefined) {
        try {
          extra = JSON.parse(args.settings) as Record<string, unknown>;
        } catch {
          throw new UsageError(
            '--settings is not valid JSON',
            'Example: --settings \'{"enabledToolIds":["Read"]}\'',
          );
        }
        if (typeof extra !== 'object' || extra === null || Array.isArray(extra))
          throw new UsageError('--settings must be a JSON object');
      }
      const sessionSettings: WritableSessionSettings = { ...extra };
      if (args.tag) sessionSettings.tags = args.tag.map((name) => ({ name }));
      if (args.model !== undefined) sessionSettings.model = args.model;
      if (args.archive) sessionSettings.archivedAt = new Date().toISOString();
      if (Object.keys(sessionSettings).length === 0) {
        throw new UsageError('nothing to update', 'give --tag, --model, --archive or --settings');
      }
      const session = await client.updateSession(args['session-id'], { sessionSettings });
      printOne(formatOf(args), session, sessionDetails(session));
    }),
};

const sessionsCommand: CommandModule = {
  command: 'sessions <action>',
  describe: 'Sessions',
  builder: (y) =>
    y
      .command(sessionsUpdateCommand)
      .demandCommand(1)
      .example('hookd api sessions update sess_1 --tag x', 'Tag'),
  handler: () => undefined,
};

interface MessageGetArgs extends OutputArgs {
  'session-id': string;
  'message-id': string;
  'computer-id'?: string;
}

const messagesGetCommand: CommandModule<object, MessageGetArgs> = {
  command: 'get <session-id> <message-id>',
  describe: 'One message of a session',
  builder: (y) =>
    outputOptions(y)
      .positional('session-id', { type: 'string', demandOption: true })
      .positional('message-id', { type: 'string', demandOption: true })
      .option('computer-id', { type: 'string', describe: 'Ask this computer directly' })
      .example('hookd api messages get sess_1 msg_2 --json', 'As JSON'),
  handler: (args) =>
    withClient(async (client) => {
      const message = await client.getMessage(args['session-id'], args['message-id'], {
        computerId: args['computer-id'],
      });
      printOne(formatOf(args), message, messageDetails(message));
    }),
};

const messagesCommand: CommandModule = {
  command: 'messages <action>',
  describe: 'Messages of sessions',
  builder: (y) =>
    y.command(messagesGetCommand).demandCommand(1).example('hookd api messages get sess_1 msg_2', 'Read one'),
  handler: () => undefined,
};

// ---- organization ------------------------------------------------------------------------------

/** A v0 list paged by `pagination.nextCursor`: one page, or every page with --all. */
function cursorListCommand<Item, Row extends Item>(spec: {
  command: string;
  describe: string;
  limitHelp: string;
  example: [string, string];
  columns: Column<Row>[];
  page: (
    client: PlatformClient,
    query: { limit?: number | undefined; cursor?: string | undefined },
  ) => Promise<{ items: Item[]; whole: unknown; nextCursor: string | null | undefined }>;
  iterate: (client: PlatformClient, options: IterateOptions) => AsyncIterable<Item>;
  forTable: (items: Item[]) => Row[];
}): CommandModule<object, PageArgs> {
  return {
    command: spec.command,
    describe: spec.describe,
    builder: (y) => pageOptions(y, spec.limitHelp).example(...spec.example),
    handler: (args) =>
      withClient(async (client) => {
        const format = formatOf(args);
        if (args.all) {
          const counter = progress();
          const items = spec.iterate(client, { pageSize: args.limit, onPage: counter.onPage });
          return printAll(format, items, spec.columns, counter, spec.forTable);
        }
        const res = await spec.page(client, { limit: args.limit, cursor: args.cursor });
        // JSON prints the response as received; only the table gets the enriched rows.
        print(
          format,
          format === 'table' ? spec.forTable(res.items) : (res.items as Row[]),
          spec.columns,
          res.whole,
        );
        moreNote(format, '--cursor', res.nextCursor);
      }),
  };
}

const usersListCommand = cursorListCommand({
  command: 'list',
  describe: 'Users of the organization (GET /api/v0/organization/users)',
  limitHelp: 'Users per page, 1-100 (default 20)',
  example: ['hookd api users list --all --jsonl', 'Everyone'],
  columns: organizationUserColumns,
  page: async (client, query) => {
    const res = await client.listOrganizationUsers(query);
    return {
      items: res.users,
      whole: res,
      nextCursor: res.pagination.hasMore ? res.pagination.nextCursor : null,
    };
  },
  iterate: (client, options) => client.iterateOrganizationUsers(options),
  forTable: (users) => users,
});

const usersCommand: CommandModule = {
  command: 'users <action>',
  describe: 'Organization users',
  builder: (y) => y.command(usersListCommand).demandCommand(1).example('hookd api users list', 'First page'),
  handler: () => undefined,
};

const controlsHistoryCommand = cursorListCommand({
  command: 'history',
  describe: 'Enterprise-control change history, newest first (Manager or Owner key)',
  limitHelp: 'Changes per page, 1-100 (default 20)',
  example: ['hookd api controls history --all --json', 'Every revision with its settings snapshot'],
  columns: changeColumns,
  page: async (client, query) => {
    const res = await client.listEnterpriseControlHistory(query);
    return {
      items: res.changes,
      whole: res,
      nextCursor: res.pagination.hasMore ? res.pagination.nextCursor : null,
    };
  },
  iterate: (client, options) => client.iterateEnterpriseControlHistory(options),
  forTable: withChangedKeys,
});

const controlsCommand: CommandModule = {
  command: 'controls <action>',
  describe: 'Enterprise controls',
  builder: (y) =>
    y
      .command(controlsHistoryCommand)
      .demandCommand(1)
      .example('hookd api controls history', 'Recent changes'),
  handler: () => undefined,
};

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
          text = readFileSync(args.file === '-' ? 0 : args.file, 'utf8');
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
      if (format === 'json') stdoutOut().write(formatJson(result));
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

const limitsCommand: CommandModule = {
  command: 'limits <action>',
  describe: 'Per-user credit limits (Manager or Owner key)',
  builder: (y) =>
    y.command(limitsSetCommand).demandCommand(1).example('hookd api limits set --file limits.csv', 'Bulk'),
  handler: () => undefined,
};

export const apiCommand: CommandModule = {
  command: 'api <area>',
  describe:
    'Call the platform API: analytics, readiness, computers, sessions, messages, users, controls, limits',
  builder: (y) =>
    y
      .command(analyticsCommand)
      .command(readinessCommand)
      .command(computersCommand)
      .command(sessionsCommand)
      .command(messagesCommand)
      .command(usersCommand)
      .command(controlsCommand)
      .command(limitsCommand)
      .demandCommand(1, 'Name an area; `hookd api --help` lists them.')
      .epilogue(
        'Key: HOOKD_API_KEY, else FACTORY_API_KEY, else api.keyFile. Hosts: HOOKD_API_URL / HOOKD_APP_URL or api.baseUrl / api.appUrl.\nExit codes: 2 usage (nothing sent), 3 auth (401/403/no key), 4 server (5xx, network, timeout, bad response), 5 not found.',
      )
      .example(
        'hookd api analytics tokens --start 2026-11-01 --end 2026-11-20 --group-by model',
        'Credits per model',
      )
      .example('hookd api computers create --name box --remote-user dev', 'Create a computer'),
  handler: () => undefined,
};

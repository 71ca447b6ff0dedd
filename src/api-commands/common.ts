import type { Argv, CommandModule } from 'yargs';
import { CliError, EXIT } from '../errors.js';
import {
  formatJson,
  formatJsonLine,
  formatTable,
  paint,
  safeLines,
  type Column,
  type Out,
} from '../terminal/output.js';
import { loadConfig } from '../config/load.js';
import type { IterateOptions, PlatformClient } from '../platform-api/api-client.js';
import { PlatformError, type HttpError } from '../platform-api/errors.js';
import type { PageInfo } from '../platform-api/pagination.js';
import { cli, cliOut } from '../terminal/cli-io.js';

/** What every `hookd api` command shares: output flags and formats, the client, errors to exit codes, paging. */

export interface OutputArgs {
  json?: boolean;
  jsonl?: boolean;
}
export type Format = 'table' | 'json' | 'jsonl';

export const formatOf = (args: OutputArgs): Format => (args.json ? 'json' : args.jsonl ? 'jsonl' : 'table');

export function outputOptions<T>(y: Argv<T>): Argv<T & OutputArgs> {
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
export async function withClient(action: (client: PlatformClient) => Promise<void>): Promise<void> {
  try {
    const env = cli().env;
    // The validator and the client (zod and the API's schemas) are loaded here, not with the module:
    // `hookd api ... --help` needs none of them.
    const [{ validator }, { PlatformClient, resolveApiAccess }] = await Promise.all([
      import('../config/resolve.js'),
      import('../platform-api/api-client.js'),
    ]);
    const { config } = loadConfig({ env, projectDir: cli().cwd, validator: () => validator });
    const access = resolveApiAccess(env, config.api);
    await action(new PlatformClient(access));
  } catch (error) {
    throw toCliError(error);
  }
}

export function print<T>(
  format: Format,
  rows: readonly T[],
  columns: Column<T>[],
  whole: unknown = rows,
): void {
  const out = cliOut();
  if (format === 'json') out.write(formatJson(whole));
  else if (format === 'jsonl') for (const row of rows) out.write(formatJsonLine(row));
  else out.write(rows.length ? formatTable(rows, columns) : `${paint(out, 'gray', '(no rows)')}\n`);
}

export function printOne(format: Format, value: unknown, details: string): void {
  const out = cliOut();
  if (format === 'table') out.write(safeLines(details));
  else out.write(format === 'json' ? formatJson(value) : formatJsonLine(value));
}

/** A counter on stderr, only on a terminal, erased when done. */
export function progress(): { onPage: (info: PageInfo) => void; done: () => void } {
  const tty = Boolean(cli().stderr.isTTY);
  return {
    onPage: (info) => {
      if (tty) cli().stderr.write(`\r\u001b[Kfetched ${info.totalItems} (page ${info.page})`);
    },
    done: () => {
      if (tty) cli().stderr.write('\r\u001b[K');
    },
  };
}

/** Follows every page; --jsonl streams items as they arrive. `forTable` may enrich rows for the table. */
export async function printAll<T, R extends T = T>(
  format: Format,
  items: AsyncIterable<T>,
  columns: Column<R>[],
  counter = progress(),
  forTable: (rows: T[]) => R[] = (rows) => rows as R[],
) {
  const out: Out = cliOut();
  const rows: T[] = [];
  try {
    for await (const item of items) {
      if (format === 'jsonl') out.write(formatJsonLine(item));
      else rows.push(item);
    }
  } finally {
    counter.done();
  }
  if (format === 'json') out.write(formatJson(rows));
  else if (format === 'table') print(format, forTable(rows), columns);
}

export function moreNote(format: Format, cursorFlag: string, cursor: string | null | undefined): void {
  if (format === 'table' && cursor) {
    cli().stderr.write(`more results: rerun with ${cursorFlag} ${cursor}, or with --all\n`);
  }
}

export interface PageArgs extends OutputArgs {
  limit?: number;
  cursor?: string;
  all: boolean;
}

export function pageOptions<T>(y: Argv<T>, limitHelp: string): Argv<T & PageArgs> {
  return outputOptions(y)
    .option('limit', { type: 'number', describe: limitHelp })
    .option('cursor', { type: 'string', describe: 'Continue from this cursor (printed after a page)' })
    .option('all', { type: 'boolean', default: false, describe: 'Follow pagination to the end' }) as Argv<
    T & PageArgs
  >;
}

/** A v0 list paged by `pagination.nextCursor`: one page, or every page with --all. */
export function cursorListCommand<Item, Row extends Item>(spec: {
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

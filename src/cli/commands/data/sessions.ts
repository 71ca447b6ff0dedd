import type { Argv, CommandModule } from 'yargs';
import { createLedger, type Ledger } from '../../../ledger/ledger.js';
import {
  formatSessionDetail,
  formatSessionsCsv,
  formatSessionsTable,
  formatStatsTable,
} from '../../../ledger/format-sessions.js';
import { parseSince } from '../../../ledger/since.js';
import type { LedgerFilters, StatsBy } from '../../../ledger/types.js';
import { dataDir, type Env } from '../../../paths.js';
import { CliError, EXIT, UsageError } from '../../../errors.js';
import type { SessionState } from '../../../notify/session-state.js';
import { formatJson, type Out } from '../../../terminal/output.js';
import { cli, cliOut } from '../../../terminal/cli-io.js';

/** The edges of `hookd sessions`, injectable for tests. */
export interface SessionsDeps {
  out?: () => Out;
  env?: Env;
  now?: () => number;
}

interface FilterArgs {
  since?: string;
  project?: string;
  reason?: string;
}
interface ListArgs extends FilterArgs {
  limit: number;
  live?: boolean;
  once?: boolean;
  interval: number;
  json?: boolean;
  csv?: boolean;
}
interface ShowArgs {
  id: string;
  json: boolean;
}
interface StatsArgs extends FilterArgs {
  by: StatsBy;
  json: boolean;
}

function filterOptions<T>(y: Argv<T>) {
  return y
    .option('since', {
      type: 'string',
      describe: 'Only sessions that ended since: a relative time (30m, 12h, 7d, 2w) or an ISO date',
    })
    .option('project', { type: 'string', describe: 'Only sessions whose project path or name contains this' })
    .option('reason', {
      type: 'string',
      describe:
        'Only sessions that ended for this reason (clear, logout, prompt_input_exit, other, idle-timeout...)',
    });
}

/** Frames waiting for a slow reader beyond this are skipped. */
const FRAME_BACKLOG_BYTES = 1024 * 1024;

/** Clears a terminal and puts the cursor home: each frame of `--live` replaces the last one. */
const CLEAR_SCREEN = '\u001b[H\u001b[2J';

/** One frame of `hookd sessions --live`: when, how often, then the sessions (undefined: no daemon answers). */
/** What `--live` shows with, and asks the daemon through; loaded when it runs, not for `--help`. */
async function liveView() {
  const [{ liveSessions }, { formatSessionStates, liveOnly }] = await Promise.all([
    import('../../../daemon/admin.js'),
    import('./status.js'),
  ]);
  return { liveSessions, formatSessionStates, liveOnly };
}
type LiveView = Awaited<ReturnType<typeof liveView>>;

function liveFrame(
  view: LiveView,
  sessions: readonly SessionState[] | undefined,
  o: Out,
  nowMs: number,
  refresh: number | undefined,
): string {
  const at = new Date(nowMs).toTimeString().slice(0, 8);
  const every = refresh === undefined ? '' : `, every ${refresh}s; Ctrl-C quits`;
  if (!sessions)
    return `live sessions: ?  (${at}${every})\nthe daemon does not answer; trying again (\`hookd status\`)\n`;
  const live = view.liveOnly(sessions);
  return `live sessions: ${live.length}  (${at}${every})\n${view.formatSessionStates(live, o, nowMs)}`;
}

/**
 * `--live` until Ctrl-C (SIGINT) or SIGTERM, like top: a new frame every `intervalSec`, in place on a
 * terminal, one after another (a blank line between) into a pipe or file.
 */
async function watchLive(
  view: LiveView,
  env: Env,
  o: Out,
  now: () => number,
  intervalSec: number,
  first: readonly SessionState[],
): Promise<void> {
  let stopped = false;
  let wake = () => {};
  const stop = () => {
    stopped = true;
    wake();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    for (let frame = 0; !stopped; frame++) {
      const sessions = frame === 0 ? first : await view.liveSessions(env);
      if (stopped) break;
      // A reader that does not keep up (a paused pager) misses frames rather than piling them up.
      if ((cli().stdout.writableLength ?? 0) <= FRAME_BACKLOG_BYTES)
        o.write(
          `${o.isTTY ? CLEAR_SCREEN : frame > 0 ? '\n' : ''}${liveFrame(view, sessions, o, now(), intervalSec)}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, intervalSec * 1000);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

function filtersFrom(args: FilterArgs, nowMs: number): LedgerFilters {
  const filters: LedgerFilters = {};
  if (args.since !== undefined) {
    const sinceMs = parseSince(args.since, nowMs);
    if (sinceMs === undefined) {
      throw new UsageError(
        `--since "${args.since}" is neither a relative time nor an ISO date`,
        'Use e.g. --since 7d, --since 12h or --since 2026-11-01.',
      );
    }
    filters.sinceMs = sinceMs;
  }
  if (args.project) filters.project = args.project;
  if (args.reason) filters.reason = args.reason;
  return filters;
}

/** `hookd sessions`, with its edges injected (tests pass a temp data dir and a capturing output). */
export function createSessionsCommand(deps: SessionsDeps = {}): CommandModule<object, object> {
  const out = () => (deps.out ?? (() => cliOut(deps.env)))();
  const now = deps.now ?? Date.now;
  const ledger = (): Ledger => createLedger({ dataDir: dataDir(deps.env ?? cli().env) });

  const list: CommandModule<object, ListArgs> = {
    command: ['list', '$0'],
    describe: 'List recorded sessions, most recent first',
    builder: (y) =>
      filterOptions(y)
        .option('limit', {
          alias: 'n',
          type: 'number',
          default: 50,
          describe: 'Show at most this many (0: all)',
        })
        .option('json', { type: 'boolean', describe: 'Print the records as JSON' })
        .option('csv', { type: 'boolean', describe: 'Print CSV (for spreadsheets)' })
        .option('live', {
          type: 'boolean',
          describe:
            'The sessions running now and their state (working, waiting...), from the daemon, refreshed until Ctrl-C',
        })
        .option('once', {
          type: 'boolean',
          describe: 'With --live: print the live sessions once and exit (as --json does)',
        })
        .option('interval', {
          type: 'number',
          default: 2,
          describe: 'With --live: seconds between refreshes',
        })
        .conflicts('json', 'csv')
        .conflicts('live', 'csv')
        .example('hookd sessions --since 7d', 'Sessions of the last week')
        .example('hookd sessions --project hookd --reason idle-timeout --json', 'As JSON, filtered')
        .example(
          'hookd sessions --since 2026-11-01 --limit 0 --csv > sessions.csv',
          'Everything since a date, as CSV',
        )
        .example('hookd sessions --live', 'What runs now and what waits for you, refreshed like top')
        .example('hookd sessions --live --once --json', 'The live sessions once, for scripts'),
    handler: async (args) => {
      if (args.live || args.once) {
        if (!(args.interval >= 0.1 && args.interval <= 3600))
          throw new UsageError(
            `--interval ${args.interval} is not a number of seconds from 0.1 to 3600`,
            'Use e.g. --interval 5.',
          );
        const env = deps.env ?? cli().env;
        const view = await liveView();
        const sessions = await view.liveSessions(env);
        if (!sessions)
          throw new CliError(
            'the daemon is not running: it is what knows the live sessions',
            EXIT.FAILURE,
            'Start it with `hookd daemon start`.',
          );
        const o = out();
        if (args.json) o.write(formatJson(view.liveOnly(sessions)));
        else if (args.once) o.write(liveFrame(view, sessions, o, now(), undefined));
        else await watchLive(view, env, o, now, args.interval, sessions);
        return;
      }
      if (!Number.isInteger(args.limit) || args.limit < 0) {
        throw new UsageError(
          `--limit ${args.limit} is not a whole number >= 0`,
          'Use e.g. --limit 20, or 0 for all.',
        );
      }
      const filters = filtersFrom(args, now());
      if (args.limit > 0) filters.limit = args.limit;
      const records = await ledger().list(filters);
      const o = out();
      if (args.json) o.write(formatJson(records));
      else if (args.csv) o.write(formatSessionsCsv(records));
      else o.write(formatSessionsTable(records, o));
    },
  };

  const show: CommandModule<object, ShowArgs> = {
    command: 'show <id>',
    describe: "Show one session's record (a unique id prefix is enough)",
    builder: (y) =>
      y
        .positional('id', {
          type: 'string',
          demandOption: true,
          describe: 'Session id or a unique prefix of it',
        })
        .option('json', { type: 'boolean', default: false, describe: 'Print the record as JSON' })
        .example('hookd sessions show 48e23316', 'One session by id prefix'),
    handler: async (args) => {
      const id = String(args.id);
      const found = await ledger().match(id);
      const exact = found.find((r) => r.sessionId === id);
      const record = exact ?? (found.length === 1 ? found[0] : undefined);
      if (!record) {
        if (found.length > 1) {
          throw new UsageError(
            `session id prefix "${id}" matches ${found.length} sessions`,
            `Give more characters, e.g. ${found
              .slice(0, 3)
              .map((r) => r.sessionId.slice(0, id.length + 4))
              .join(', ')}.`,
          );
        }
        throw new CliError(
          `no recorded session "${id}"`,
          EXIT.NOT_FOUND,
          '`hookd sessions` lists the recorded ones.',
        );
      }
      const o = out();
      o.write(args.json ? formatJson(record) : formatSessionDetail(record, o));
    },
  };

  const stats: CommandModule<object, StatsArgs> = {
    command: ['totals', 'stats'],
    describe: 'Total sessions, duration, messages, tokens and credits by day, project, agent or model',
    builder: (y) =>
      filterOptions(y)
        .option('by', {
          type: 'string',
          choices: ['day', 'project', 'agent', 'model'] as const,
          default: 'day' as StatsBy,
          describe: 'Group by UTC day, project, agent or model',
        })
        .option('json', { type: 'boolean', default: false, describe: 'Print the totals as JSON' })
        .example('hookd sessions totals --by project --since 30d', 'Where the last month went')
        .example('hookd sessions totals --by agent', 'Sessions, tokens and credits per agent')
        .example(
          'hookd sessions stats --by model --json',
          'Totals per model, as JSON',
        ) as unknown as Argv<StatsArgs>,
    handler: async (args) => {
      const result = await ledger().stats(args.by, filtersFrom(args, now()));
      const o = out();
      o.write(args.json ? formatJson(result) : formatStatsTable(result));
    },
  };

  return {
    command: 'sessions',
    describe: 'List, show and total the session ledger (one record per finished session)',
    builder: (y) =>
      y
        .command(list)
        .command(show)
        .command(stats)
        .example('hookd sessions', 'The last 50 sessions')
        .example('hookd sessions stats --by day --since 7d', 'Daily totals of the last week'),
    handler: () => undefined,
  };
}

/** `hookd sessions`: the session ledger on the command line. */
export const sessionsCommand = createSessionsCommand();

import type { Argv, CommandModule } from 'yargs';
import { WATCHER_NAMES, type WatcherName } from '../../../config/schemas/watch-schema.js';
import { UsageError } from '../../../errors.js';
import { formatJson, formatTable, paint, safeLines, type Out } from '../../../terminal/output.js';
import { formatAgo, formatDuration } from '../../../util/text/format-duration.js';
import { cli, cliOut } from '../../../terminal/cli-io.js';
import { withClient } from '../../../api-commands/common.js';
import type { WatcherRow, WatchExplanation, WatchTestResult } from '../../../watch/report.js';

/** `hookd watch list|test|explain [name]`: the watchers on the platform API (docs/watch.md). */

interface WatchArgs {
  name?: string;
  json: boolean;
}

function named(name: string | undefined): WatcherName | undefined {
  if (name === undefined) return undefined;
  if ((WATCHER_NAMES as readonly string[]).includes(name)) return name as WatcherName;
  throw new UsageError(`no watcher "${name}"`, `the watchers are ${WATCHER_NAMES.join(', ')}`);
}

/** The config's watch and notify sections, the state file, and the clock. */
async function context() {
  const env = cli().env;
  const [{ validator }, { loadConfig }, { watchSettings }, { notifySettings }, { watchStatePath }] =
    await Promise.all([
      import('../../../config/resolve.js'),
      import('../../../config/load.js'),
      import('../../../config/schemas/watch-schema.js'),
      import('../../../config/schemas/notify-schema.js'),
      import('../../../watch/state-file.js'),
    ]);
  const { config } = loadConfig({ env, projectDir: cli().cwd, validator: () => validator });
  return {
    watch: watchSettings(config.watch),
    notify: notifySettings(config.notify),
    file: watchStatePath(env),
    now: Date.now(),
  };
}

function when(at: number | undefined, now: number): string {
  if (at === undefined) return '-';
  return at <= now ? formatAgo(now - at) : `in ${formatDuration(at - now)}`;
}

function statusColor(row: WatcherRow) {
  if (row.status === 'ok') return 'green' as const;
  if (row.status === 'off' || row.status === 'new') return 'gray' as const;
  return 'red' as const;
}

function listTable(rows: WatcherRow[], now: number, out: Out): string {
  return formatTable(
    rows,
    [
      { header: 'WATCHER', value: (r) => r.name },
      { header: 'STATUS', value: (r) => r.status, color: statusColor },
      { header: 'EVERY', value: (r) => formatDuration(r.intervalMs) },
      { header: 'LAST POLL', value: (r) => when(r.lastPollAt, now) },
      { header: 'NEXT', value: (r) => (r.enabled ? when(r.nextPollAt, now) : '-') },
      { header: 'RAISED', value: (r) => String(r.raised), align: 'right' },
      { header: 'SEEN', value: (r) => r.lastError ?? r.summary ?? '', max: 80 },
    ],
    out,
  );
}

function testText(results: WatchTestResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    lines.push(`${r.watcher}: ${r.ok ? (r.summary ?? 'ok') : `failed: ${r.error ?? 'unknown error'}`}`);
    if (!r.ok) continue;
    if (r.baseline)
      lines.push('  no saved state: this first poll takes a baseline, as the daemon does; nothing is raised');
    else if (r.wouldRaise.length === 0) lines.push('  nothing new since the last poll of the daemon');
    for (const raise of r.wouldRaise)
      lines.push(`  would raise ${raise.kind}: ${raise.title}: ${raise.message}`);
  }
  lines.push('(nothing was sent and nothing saved: the daemon raises these at its next poll)');
  return `${lines.join('\n')}\n`;
}

/** Where a kind goes: the user's rules, the built-in one, or nowhere. */
function routeText(route: WatchExplanation['routes'][number]): string {
  if (route.rules.length === 0)
    return 'no notify rule matches it (add one with on: PlatformWatch); recorded only';
  if (route.builtIn)
    return `notified by the built-in rule "${route.rules.join(', ')}" (to the default channel; a rule of yours with on: PlatformWatch replaces it)`;
  return `notified by rule(s) ${route.rules.join(', ')}`;
}

function explainText(items: WatchExplanation[]): string {
  const blocks = items.map((x) => {
    const lines = [
      `${x.watcher}: ${x.enabled ? `on, every ${x.interval}` : 'off (watch.' + x.watcher + '.enabled)'}`,
    ];
    for (const line of x.what) lines.push(`  ${line}`);
    for (const route of x.routes) lines.push(`  ${route.kind}: ${routeText(route)}`);
    if (x.state?.lastPollAt !== undefined)
      lines.push(`  last poll: ${x.state.status}${x.state.summary ? `, ${x.state.summary}` : ''}`);
    if (x.state?.lastError) lines.push(`  last error: ${x.state.lastError}`);
    return lines.join('\n');
  });
  return `${blocks.join('\n\n')}\n`;
}

function jsonOption<T>(y: Argv<T>): Argv<T & WatchArgs> {
  return y.option('json', {
    type: 'boolean',
    default: false,
    describe: 'Print as JSON',
  }) as unknown as Argv<T & WatchArgs>;
}

const list: CommandModule<object, WatchArgs> = {
  command: 'list',
  describe: 'The watchers, whether they are on, and what the daemon saw at their last poll',
  builder: (y) => jsonOption(y).example('hookd watch list', 'Which watchers run and how they fare'),
  handler: async (args) => {
    const c = await context();
    const { listWatchers } = await import('../../../watch/report.js');
    const listing = listWatchers(c.watch, c.file);
    const out = cliOut();
    if (args.json) return void out.write(formatJson(listing));
    out.write(listTable(listing.watchers, c.now, out));
    if (listing.problem)
      out.write(`${paint(out, 'yellow', 'saved state not readable:')} ${safeLines(listing.problem)}\n`);
  },
};

const test: CommandModule<object, WatchArgs> = {
  command: 'test [name]',
  describe: 'Poll now (one watcher, or every one turned on) and show what would be raised; sends nothing',
  builder: (y) =>
    jsonOption(y)
      .positional('name', { type: 'string', describe: `One of ${WATCHER_NAMES.join(', ')}` })
      .example('hookd watch test credits', 'Where credit usage stands and what would be raised')
      .example('HOOKD_API_URL=http://127.0.0.1:4010 hookd watch test', 'Against `hookd simulator`'),
  handler: async (args) => {
    const one = named(args.name);
    const c = await context();
    const names = one ? [one] : WATCHER_NAMES.filter((n) => c.watch[n].enabled);
    if (names.length === 0)
      throw new UsageError(
        'no watcher is turned on',
        'name one (hookd watch test credits), or turn one on in watch.*',
      );
    const { testWatcher } = await import('../../../watch/report.js');
    const results: WatchTestResult[] = [];
    await withClient(async (client) => {
      for (const name of names) {
        try {
          results.push(await testWatcher(name, client, c.watch, c.file, c.now));
        } catch (error) {
          results.push({
            watcher: name,
            ok: false,
            baseline: false,
            wouldRaise: [],
            error: (error as Error).message,
          });
        }
      }
    });
    cliOut().write(args.json ? formatJson(results) : safeLines(testText(results)));
    if (results.some((r) => !r.ok)) cli().exitCode = 1;
  },
};

const explain: CommandModule<object, WatchArgs> = {
  command: 'explain [name]',
  describe: 'What a watcher watches, when it raises, and which notify rules route what it raises',
  builder: (y) =>
    jsonOption(y)
      .positional('name', { type: 'string', describe: `One of ${WATCHER_NAMES.join(', ')}` })
      .example('hookd watch explain members', 'When the members watcher raises and where it goes'),
  handler: async (args) => {
    const one = named(args.name);
    const c = await context();
    const { explainWatcher } = await import('../../../watch/report.js');
    const items = (one ? [one] : [...WATCHER_NAMES]).map((n) => explainWatcher(n, c.watch, c.notify, c.file));
    cliOut().write(args.json ? formatJson(one ? items[0] : items) : safeLines(explainText(items)));
  },
};

export const watchCommand: CommandModule = {
  command: 'watch',
  describe:
    'List, test and explain the watchers on the platform API (credits, computers, controls, readiness, members)',
  builder: (y) =>
    y
      .command(list)
      .command(test)
      .command(explain)
      .demandCommand(1, 'name a subcommand: list, test or explain')
      .example('hookd watch list', 'The watchers and their state'),
  handler: () => undefined,
};

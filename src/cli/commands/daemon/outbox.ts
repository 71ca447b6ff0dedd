import type { Argv, CommandModule } from 'yargs';
import { describeLadderState, type Delivery, type Ladder } from '../../../daemon/admin.js';
import { CliError, UsageError } from '../../../errors.js';
import { formatJson, formatTable, safeText } from '../../../terminal/output.js';
import { cli, cliOut } from '../../../terminal/cli-io.js';

type State = 'pending' | 'held' | 'dead' | 'delivered' | 'cancelled' | 'all';
const STATES: State[] = ['pending', 'held', 'dead', 'delivered', 'cancelled', 'all'];

function when(at: number | undefined): string {
  return at ? new Date(at).toISOString().replace('T', ' ').slice(0, 19) : '-';
}

/** Why a delivery is where it is: cancelled by what, acknowledged, an escalation step; else its last error. */
function deliveryNote(d: Delivery): string {
  if (d.cancelledBy === 'hookd ack') return 'not sent: acknowledged (hookd ack)';
  if (d.cancelledBy) return `not sent: the session moved on (${d.cancelledBy})`;
  const step = d.escalation
    ? `escalation step ${d.escalation.step + 1}${d.escalation.repeat > 0 ? `, reminder ${d.escalation.repeat}` : ''}`
    : undefined;
  return [step, d.lastError].filter(Boolean).join(': ') || '-';
}

/** The escalation ladders, one line each (running first). */
export function formatLadders(active: readonly Ladder[], recent: readonly Ladder[], now: number): string {
  if (active.length === 0 && recent.length === 0) return '';
  const lines = ['', 'escalation ladders:'];
  // Session ids and errors come from events and channels: shown escaped.
  for (const l of active) lines.push(safeText(`  running  ${l.session}  ${describeLadderState(l, now)}`));
  for (const l of recent.slice(-20))
    lines.push(safeText(`  stopped  ${l.session}  ${describeLadderState(l, now)}`));
  return `${lines.join('\n')}\n`;
}

export function formatDeliveries(items: readonly Delivery[]): string {
  if (items.length === 0) return 'no deliveries\n';
  return formatTable(items, [
    { header: 'ID', value: (d) => d.id, max: 60 },
    { header: 'CHANNEL', value: (d) => d.channel },
    { header: 'STATE', value: (d) => d.state },
    { header: 'TRIES', value: (d) => String(d.attempts), align: 'right' },
    { header: 'CREATED', value: (d) => when(d.createdAt) },
    {
      header: 'NEXT',
      value: (d) => (d.state === 'pending' ? when(d.nextAt) : d.state === 'held' ? when(d.heldUntil) : '-'),
    },
    { header: 'TITLE', value: (d) => d.notification.title, max: 40 },
    {
      header: 'LAST ERROR',
      value: (d) => deliveryNote(d),
      max: 60,
    },
  ]);
}

async function act(
  action: 'list' | 'retry' | 'purge',
  state: State,
  ids: string[] | undefined,
  json: boolean,
): Promise<void> {
  const out = cliOut();
  let result;
  try {
    // Loaded here, not with the module: `hookd outbox --help` needs none of it.
    const { outboxAction } = await import('../../../daemon/admin.js');
    result = await outboxAction(cli().env, { action, state, ...(ids && ids.length > 0 ? { ids } : {}) });
  } catch (error) {
    throw new CliError(
      `outbox ${action} failed: ${(error as Error).message}`,
      1,
      '`hookd status` shows the daemon state.',
    );
  }
  if (action === 'list') {
    out.write(json ? formatJson(result.items ?? []) : formatDeliveries(result.items ?? []));
    if (!json && state === 'all') {
      const { daemonLadders } = await import('../../../daemon/admin.js');
      const ladders = await daemonLadders(cli().env).catch(() => undefined);
      if (ladders) out.write(formatLadders(ladders.active, ladders.recent, Date.now()));
    }
  } else
    out.write(
      json
        ? formatJson({ affected: result.affected ?? 0 })
        : `${result.affected ?? 0} deliver${result.affected === 1 ? 'y' : 'ies'} ${action === 'retry' ? 'queued again' : 'purged'}\n`,
    );
}

const listCommand: CommandModule<object, { state: string; json: boolean }> = {
  command: 'list',
  describe: 'List deliveries',
  builder: (a) =>
    a
      .option('state', {
        type: 'string',
        choices: STATES,
        default: 'all',
        describe: 'Only deliveries in this state',
      })
      .option('json', { type: 'boolean', default: false, describe: 'Print the deliveries as JSON' })
      .example('hookd outbox list', 'Every delivery, then the escalation ladders')
      .example('hookd outbox list --state dead', 'What could not be delivered, and the last error of each')
      .example('hookd outbox list --state pending --json', 'Waiting to be sent, for scripts'),
  handler: (args) => act('list', args.state as State, undefined, args.json),
};

const retryCommand: CommandModule<object, { ids?: string[]; json: boolean }> = {
  command: 'retry [ids..]',
  describe: 'Queue dead-lettered deliveries again (all of them without ids)',
  builder: (a) =>
    a
      .positional('ids', { type: 'string', array: true, describe: 'Delivery ids (from `hookd outbox list`)' })
      .option('json', { type: 'boolean', default: false, describe: 'Print {affected} as JSON' })
      .example('hookd outbox retry', 'Send every dead-lettered delivery again')
      .example('hookd outbox retry <id> <id>', 'Only these (ids from `hookd outbox list --state dead`)'),
  handler: (args) => act('retry', 'dead', args.ids, args.json),
};

const purgeCommand: CommandModule<object, { ids?: string[]; state?: string; json: boolean }> = {
  command: 'purge [ids..]',
  describe: 'Delete deliveries for good: the given ids, or every one in --state',
  builder: (a) =>
    a
      .positional('ids', { type: 'string', array: true, describe: 'Delivery ids (from `hookd outbox list`)' })
      .option('state', { type: 'string', choices: STATES, describe: 'Purge every delivery in this state' })
      .option('json', { type: 'boolean', default: false, describe: 'Print {affected} as JSON' })
      .example('hookd outbox purge --state dead', 'Forget every dead letter')
      .example('hookd outbox purge <id>', 'Delete one delivery, whatever its state'),
  handler: (args) => {
    if ((!args.ids || args.ids.length === 0) && !args.state) {
      throw new UsageError(
        'name the deliveries to purge',
        'Give ids, or --state dead (or pending, held, all).',
      );
    }
    return act('purge', (args.state ?? 'all') as State, args.ids, args.json);
  },
};

export const outboxCommand: CommandModule<object, object> = {
  command: 'outbox',
  describe: 'List, retry or purge notification deliveries (pending, held, dead-lettered)',
  builder: (y: Argv<object>) =>
    y
      .command(listCommand)
      .command(retryCommand)
      .command(purgeCommand)
      .demandCommand(1, 'Name an action: list, retry or purge.')
      .example('hookd outbox list --state dead', 'What could not be delivered, and why')
      .example('hookd outbox retry', 'Try every dead-lettered delivery again')
      .example('hookd outbox purge --state dead', 'Forget the dead letters'),
  handler: () => {},
};

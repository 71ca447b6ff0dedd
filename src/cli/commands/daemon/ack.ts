import type { CommandModule } from 'yargs';
import type { AckedSession, AckResult } from '../../../daemon/admin.js';
import { CliError, EXIT, UsageError } from '../../../errors.js';
import { formatJson, safeData } from '../../../terminal/output.js';
import { cli, cliOut } from '../../../terminal/cli-io.js';

interface AckArgs {
  session?: string;
  all: boolean;
  json: boolean;
}

function describe(s: AckedSession): string {
  const what = [
    s.ladders.length > 0
      ? `${s.ladders.length} escalation ladder${s.ladders.length === 1 ? '' : 's'} stopped`
      : '',
    s.cancelled.length > 0
      ? `${s.cancelled.length} held notification${s.cancelled.length === 1 ? '' : 's'} cancelled`
      : '',
  ].filter(Boolean);
  return `${s.session}${s.project ? ` (${s.project})` : ''}: "${s.title ?? ''}": ${what.join(', ')}`;
}

/** The text `hookd ack` prints for people. */
export function formatAck(unsafeResult: AckResult, request: { session?: string; all: boolean }): string {
  // Session ids, projects and titles come from events: escaped before use.
  const result = safeData(unsafeResult);
  const lines: string[] = [];
  if (result.acked.length === 0)
    lines.push('nothing waits for an answer: no escalation runs, nothing is held');
  for (const s of result.acked) lines.push(`acknowledged ${describe(s)}`);
  if (!request.session && !request.all && result.acked.length === 1)
    lines.push('(the most recent waiting session; give a session id, or --all for every one)');
  if (result.stillWaiting.length > 0) {
    lines.push(
      `still waiting: ${result.stillWaiting.length} session${result.stillWaiting.length === 1 ? '' : 's'}`,
    );
    for (const s of result.stillWaiting)
      lines.push(`  ${s.session}${s.project ? ` (${s.project})` : ''}: "${s.title ?? ''}"`);
  }
  if (result.via === 'journal') lines.push('(the daemon is not running: recorded in its journal)');
  return `${lines.join('\n')}\n`;
}

export const ackCommand: CommandModule<object, AckArgs> = {
  command: 'ack [session]',
  describe: 'Acknowledge a waiting session: stop its escalation ladder and held notifications',
  builder: (a) =>
    a
      .positional('session', {
        type: 'string',
        describe: 'The session id (or its start); default: the most recent waiting session',
      })
      .option('all', { type: 'boolean', default: false, describe: 'Every waiting session' })
      .option('json', { type: 'boolean', default: false, describe: 'Print the result as JSON' })
      .example('$0 ack', 'Stop the escalation of the most recent waiting session')
      .example('$0 ack 1f4975ab', 'The session whose id starts with 1f4975ab')
      .example('$0 ack --all', 'Every waiting session'),
  handler: async (args) => {
    if (args.session && args.all) throw new UsageError('give a session or --all, not both');
    const request = { ...(args.session ? { session: args.session } : {}), all: args.all };
    let result: AckResult;
    try {
      const { ackWaiting } = await import('../../../daemon/admin.js');
      result = await ackWaiting(cli().env, request);
    } catch (error) {
      throw new CliError(
        `ack failed: ${(error as Error).message}`,
        EXIT.FAILURE,
        '`hookd status` shows the daemon state.',
      );
    }
    if (result.problem) {
      // A prefix of several waiting sessions is a usage error (2), a session with nothing waiting is
      // not found (5): the CLI's exit codes, as `hookd sessions show` uses them.
      const waiting = result.stillWaiting.map((s) => s.session).join(', ');
      const matching = result.stillWaiting.filter((s) => s.session.startsWith(args.session ?? ''));
      throw new CliError(
        result.problem,
        matching.length > 1 ? EXIT.USAGE : EXIT.NOT_FOUND,
        waiting ? `waiting sessions: ${waiting}` : 'no session is waiting',
      );
    }
    cliOut().write(args.json ? formatJson(result) : formatAck(result, request));
  },
};

import type { CommandModule } from 'yargs';
import { changeColumns, withChangedKeys } from '../platform-api/present.js';
import { cursorListCommand } from './common.js';

/** `hookd api controls <action>`: enterprise controls. */

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

export const controlsCommand: CommandModule = {
  command: 'controls <action>',
  describe: 'Enterprise controls',
  builder: (y) =>
    y
      .command(controlsHistoryCommand)
      .demandCommand(1)
      .example('hookd api controls history', 'Recent changes'),
  handler: () => undefined,
};

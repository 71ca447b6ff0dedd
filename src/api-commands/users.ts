import type { CommandModule } from 'yargs';
import { organizationUserColumns } from '../platform-api/present.js';
import { cursorListCommand } from './common.js';

/** `hookd api users <action>`: organization users. */

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

export const usersCommand: CommandModule = {
  command: 'users <action>',
  describe: 'Organization users',
  builder: (y) => y.command(usersListCommand).demandCommand(1).example('hookd api users list', 'First page'),
  handler: () => undefined,
};

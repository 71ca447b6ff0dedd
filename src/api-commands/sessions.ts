import type { CommandModule } from 'yargs';
import { UsageError } from '../errors.js';
import { sessionDetails } from '../platform-api/present.js';
import type { WritableSessionSettings } from '../platform-api/requests.js';
import { formatOf, outputOptions, withClient, printOne, type OutputArgs } from './common.js';

/** `hookd api sessions <action>`: writable session settings. */

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

export const sessionsCommand: CommandModule = {
  command: 'sessions <action>',
  describe: 'Sessions',
  builder: (y) =>
    y
      .command(sessionsUpdateCommand)
      .demandCommand(1)
      .example('hookd api sessions update sess_1 --tag x', 'Tag'),
  handler: () => undefined,
};

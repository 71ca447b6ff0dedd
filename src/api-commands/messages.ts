import type { CommandModule } from 'yargs';
import { messageDetails } from '../platform-api/present.js';
import { formatOf, outputOptions, withClient, printOne, type OutputArgs } from './common.js';

/** `hookd api messages <action>`: messages of sessions. */

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

export const messagesCommand: CommandModule = {
  command: 'messages <action>',
  describe: 'Messages of sessions',
  builder: (y) =>
    y.command(messagesGetCommand).demandCommand(1).example('hookd api messages get sess_1 msg_2', 'Read one'),
  handler: () => undefined,
};

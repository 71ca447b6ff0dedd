import type { CommandModule } from 'yargs';
import { UsageError } from '../errors.js';
import { computerColumns, computerDetails } from '../platform-api/present.js';
import { formatOf, outputOptions, withClient, print, printOne, type OutputArgs } from './common.js';

/** `hookd api computers <action>`: computers the agent runs on. */

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

export const computersCommand: CommandModule = {
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

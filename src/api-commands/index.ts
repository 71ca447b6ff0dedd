import type { CommandModule } from 'yargs';
import { analyticsCommand } from './analytics.js';
import { readinessCommand } from './readiness.js';
import { computersCommand } from './computers.js';
import { sessionsCommand } from './sessions.js';
import { messagesCommand } from './messages.js';
import { usersCommand } from './users.js';
import { controlsCommand } from './controls.js';
import { limitsCommand } from './limits.js';

/**
 * `hookd api <area> <action>`: the platform API from the shell. Tables for people, --json / --jsonl for
 * scripts, --all to follow pagination. Exit codes: 2 usage (nothing sent), 3 auth, 4 server, 5 not found.
 */

export const apiCommand: CommandModule = {
  command: 'api <area>',
  describe:
    'Call the platform API: analytics, readiness, computers, sessions, messages, users, controls, limits',
  builder: (y) =>
    y
      .command(analyticsCommand)
      .command(readinessCommand)
      .command(computersCommand)
      .command(sessionsCommand)
      .command(messagesCommand)
      .command(usersCommand)
      .command(controlsCommand)
      .command(limitsCommand)
      .demandCommand(1, 'Name an area; `hookd api --help` lists them.')
      .epilogue(
        'Key: HOOKD_API_KEY, else FACTORY_API_KEY, else api.keyFile. Hosts: HOOKD_API_URL / HOOKD_APP_URL or api.baseUrl / api.appUrl.\nExit codes: 2 usage (nothing sent), 3 auth (401/403/no key), 4 server (5xx, network, timeout, bad response), 5 not found.',
      )
      .example(
        'hookd api analytics tokens --start 2026-11-01 --end 2026-11-20 --group-by model',
        'Credits per model',
      )
      .example('hookd api computers create --name box --remote-user dev', 'Create a computer'),
  handler: () => undefined,
};

import type { Argv, CommandModule } from 'yargs';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyCommand = CommandModule<any, any>;

/**
 * A command as `hookd --help` and shell completion list it. Its module (and everything the module
 * imports: zod, pino, the daemon, the platform client...) is loaded only when the command itself runs or
 * shows its own help, so `hookd --help`, `hookd --version` and a TAB answer without loading them.
 * `command` and `describe` are the module's own (a unit test compares them).
 */
export interface ListedCommand {
  command: string;
  describe: string;
  load: () => Promise<AnyCommand>;
}

// Every `hookd` command, declared as data. Each module turns argv into options and calls one domain function.
export const LISTED_COMMANDS: readonly ListedCommand[] = [
  {
    command: 'hook',
    describe: 'Run one agent event: the command the agent calls, with the event JSON on stdin',
    load: async () => (await import('./run/hook.js')).hookCommand,
  },
  {
    command: 'emit [event]',
    describe: 'Build a realistic event and run it through the hook path, showing what ran',
    load: async () => (await import('./run/emit.js')).emitCommand,
  },
  {
    command: 'replay <file>',
    describe: 'Run a recorded stream of events (JSON lines) through the hook path, in order',
    load: async () => (await import('./run/replay.js')).replayCommand,
  },
  {
    command: 'config',
    describe: 'Print the effective config and where each part came from',
    load: async () => (await import('./config/config.js')).configCommand,
  },
  {
    command: 'validate [file]',
    describe: 'Check a config file (default: the user and project config); exit 1 when invalid',
    load: async () => (await import('./config/config.js')).validateCommand,
  },
  {
    command: 'trust [dir]',
    describe: "Trust a project's .hookd/config.json as it is now, for that project dir only",
    load: async () => (await import('./config/trust.js')).trustCommand,
  },
  {
    command: 'schema',
    describe: 'Print the JSON Schema of the config file (for editors: "$schema")',
    load: async () => (await import('./config/config.js')).schemaCommand,
  },
  {
    command: 'logs',
    describe: "Show hookd's log: every event, command result and delivery",
    load: async () => (await import('./data/logs.js')).logsCommand,
  },
  {
    command: 'install',
    describe: "Wire hookd into the agent's settings for every event that can carry a guard or a notification",
    load: async () => (await import('./setup/install.js')).installCommand,
  },
  {
    command: 'uninstall',
    describe: "Remove exactly hookd's entries from the agent's settings (and Droid's hooks.json beside it)",
    load: async () => (await import('./setup/install.js')).uninstallCommand,
  },
  {
    command: 'import',
    describe: "Move the agent's existing hook commands into hookd's config and wire hookd in their place",
    load: async () => (await import('./setup/install.js')).importCommand,
  },
  {
    command: 'api <area>',
    describe:
      'Call the platform API: analytics, readiness, computers, sessions, messages, users, controls, limits',
    load: async () => (await import('../../api-commands/index.js')).apiCommand,
  },
  {
    command: 'simulator',
    describe: 'Run a local simulator of the platform API (seeded data, for tests, demos and offline work)',
    load: async () => (await import('./run/simulator.js')).simulatorCommand,
  },
  {
    command: 'sessions',
    describe: 'List, show and total the session ledger (one record per finished session)',
    load: async () => (await import('./data/sessions.js')).sessionsCommand,
  },
  {
    command: 'watch',
    describe:
      'List, test and explain the watchers on the platform API (credits, computers, controls, readiness, members)',
    load: async () => (await import('./data/watch.js')).watchCommand,
  },
  {
    command: 'daemon',
    describe: 'Run, start, stop, restart or inspect the notification daemon; install it as a login service',
    load: async () => (await import('./daemon/daemon.js')).daemonCommand,
  },
  {
    command: 'outbox',
    describe: 'List, retry or purge notification deliveries (pending, held, dead-lettered)',
    load: async () => (await import('./daemon/outbox.js')).outboxCommand,
  },
  {
    command: 'ack [session]',
    describe: 'Acknowledge a waiting session: stop its escalation ladder and held notifications',
    load: async () => (await import('./daemon/ack.js')).ackCommand,
  },
  {
    command: 'status',
    describe: 'Show the daemon, its config, its channels and what is waiting to be delivered',
    load: async () => (await import('./data/status.js')).statusCommand,
  },
  {
    command: 'doctor',
    describe: 'Check that hookd is installed, wired into the agents, and able to notify you',
    load: async () => (await import('./setup/doctor.js')).doctorCommand,
  },
  {
    command: 'explain [target]',
    describe:
      'Show which commands would run and which notifications would fire for an event, running nothing',
    load: async () => (await import('./run/explain.js')).explainCommand,
  },
  {
    command: 'demo',
    describe:
      'Play a real Droid session through hookd (hook commands, daemon, notifications, ledger) in a temp dir, offline',
    load: async () => (await import('./setup/demo.js')).demoCommand,
  },
];

/**
 * The yargs command for a listed one: its name and description now, its builder and handler from its
 * module once yargs runs it (yargs awaits a builder that returns a promise).
 */
export function lazyCommand(listed: ListedCommand): AnyCommand {
  let module: Promise<AnyCommand> | undefined;
  const load = () => (module ??= listed.load());
  return {
    command: listed.command,
    describe: listed.describe,
    builder: async (y: Argv) => {
      const { builder } = await load();
      if (typeof builder === 'function') return builder(y);
      return builder ? y.options(builder) : y;
    },
    handler: async (args) => (await load()).handler(args),
  };
}

import type { CommandModule } from 'yargs';

// Every `hookd` command, declared as data. Each module turns argv into options and calls one domain function.
export const commands: CommandModule<object, never>[] = [];

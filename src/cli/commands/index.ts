import type { CommandModule } from 'yargs';
import { hookCommand } from './hook.js';
import { emitCommand } from './emit.js';
import { replayCommand } from './replay.js';
import { configCommand, schemaCommand, validateCommand } from './config.js';
import { logsCommand } from './logs.js';
import { importCommand, installCommand, uninstallCommand } from './install.js';
import { daemonCommand } from './daemon.js';
import { outboxCommand } from './outbox.js';
import { ackCommand } from './ack.js';
import { statusCommand } from './status.js';
import { apiCommand } from './api/index.js';
import { simulatorCommand } from './simulator.js';
import { sessionsCommand } from './sessions.js';
import { doctorCommand } from './doctor.js';
import { explainCommand } from './explain.js';
import { demoCommand } from './demo.js';
import { trustCommand } from './trust.js';

// Every `hookd` command, declared as data. Each module turns argv into options and calls one domain function.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const commands: CommandModule<any, any>[] = [
  hookCommand,
  emitCommand,
  replayCommand,
  configCommand,
  validateCommand,
  trustCommand,
  schemaCommand,
  logsCommand,
  installCommand,
  uninstallCommand,
  importCommand,
  apiCommand,
  simulatorCommand,
  sessionsCommand,
  daemonCommand,
  outboxCommand,
  ackCommand,
  statusCommand,
  doctorCommand,
  explainCommand,
  demoCommand,
];

import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { logDir, type Env } from '../paths.js';

/** Keys whose values are secrets wherever they appear in a log record. */
export const REDACT_PATHS = [
  'webhookUrl',
  'botToken',
  'secret',
  'token',
  'authorization',
  'headers.authorization',
  '*.webhookUrl',
  '*.botToken',
  '*.secret',
  '*.token',
  '*.authorization',
  '*.headers',
];

export function daemonLogPath(env: Env): string {
  return join(logDir(env), 'daemon.log');
}

/** The daemon's pino logger: JSON lines in <state>/logs/daemon.log, secrets redacted by key. */
export function createDaemonLogger(env: Env, level = 'info'): Logger {
  const destination = pino.destination({ dest: daemonLogPath(env), mkdir: true, sync: true });
  return pino(
    {
      level,
      base: { pid: process.pid, name: 'hookd-daemon' },
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

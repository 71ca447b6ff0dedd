import { hostname } from 'node:os';
import { pino, type Logger } from 'pino';
import type { Env } from '../../paths.js';
import { openPrivateAppend } from '../../util/private-fs.js';
import { daemonLogPath } from '../../link/runtime-files.js';

/** Keys whose values are secrets wherever they appear in a log record. */
export const REDACT_PATHS = [
  'webhookUrl',
  'botToken',
  'secret',
  'token',
  'password',
  'authorization',
  'headers.authorization',
  '*.webhookUrl',
  '*.botToken',
  '*.secret',
  '*.token',
  '*.password',
  '*.authorization',
  '*.headers',
];

export { daemonLogPath };

/**
 * The daemon's pino logger: JSON lines in <state>/logs/daemon.log, secrets redacted by key; and each
 * line also to `also` when given (the foreground daemon's stderr).
 */
export function createDaemonLogger(env: Env, level = 'info', also?: (line: string) => void): Logger {
  // 0600 in a 0700 folder, never through a symlink.
  // A full disk must not crash the daemon: a failed write keeps its lines buffered (at most 4 MiB, the
  // rest is dropped) and retries with the next record.
  const destination = pino.destination({
    fd: openPrivateAppend(daemonLogPath(env)),
    sync: true,
    maxLength: 4 * 1024 * 1024,
  });
  destination.on('error', () => {});
  const streams = also
    ? pino.multistream(
        [
          { stream: destination, level },
          { stream: { write: also }, level },
        ],
        { dedupe: false },
      )
    : destination;
  return pino(
    {
      level,
      // The hook's line logger writes the same record: level number, time in epoch ms, pid, hostname,
      // proc ("hook" or "daemon"), then the fields (`event` is the event name, `eventId` its id) and msg.
      base: { pid: process.pid, hostname: hostname(), proc: 'daemon' },
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      timestamp: pino.stdTimeFunctions.epochTime,
    },
    streams,
  );
}

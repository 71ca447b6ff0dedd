import type { CommandChannelConfig } from '../config/schemas/notify-schema.js';
import type { RenderedNotification } from '../notify/notification.js';
import { redactText } from '../logging/redact.js';
import { findOnPath } from '../util/find-on-path.js';
import { killProcessGroup } from '../process/group.js';
import { runProcess } from '../process/run.js';
import { notificationPayload, type Channel, type DeliveryContext, type DeliveryResult } from './channel.js';

/** Exit code a command uses to ask for a retry later (sysexits EX_TEMPFAIL). */
export const RETRY_EXIT_CODE = 75;
const KILL_GRACE_MS = 500;
const MAX_STDERR = 2000;

/**
 * Pipes the notification JSON to a command (argv directly, or a string with `sh -c`; the data only ever
 * travels on stdin). Exit 0: delivered. Exit 75 or a timeout: retried. Anything else: dead letter.
 */
export function createCommandChannel(
  name: string,
  config: CommandChannelConfig,
  options: { env?: Record<string, string | undefined> } = {},
): Channel {
  const argv = Array.isArray(config.command) ? config.command : ['/bin/sh', '-c', config.command];
  const label = Array.isArray(config.command) ? argv[0]! : 'sh -c …';
  return {
    name,
    type: 'command',
    remote: config.remote,
    describe: () => `command ${label}`,
    health: () => ({ ok: true, problems: [] }),
    async send(notification: RenderedNotification, context: DeliveryContext): Promise<DeliveryResult> {
      const env: Record<string, string | undefined> = {
        ...(options.env ?? process.env),
        ...config.env,
        HOOKD_DELIVERY_ID: context.deliveryId,
      };
      // A bare program name is looked up in PATH's absolute folders only (findOnPath), never in a
      // relative one that would lead into whatever folder hookd runs in.
      const program = argv[0]!.includes('/') ? argv[0]! : findOnPath(argv[0]!, env.PATH);
      if (!program) return { ok: false, retryable: false, error: `command ${label} is not on PATH` };
      const input = JSON.stringify(notificationPayload(notification, context, name));
      const ran = await runProcess({
        command: [program, ...argv.slice(1)],
        env,
        stdin: Buffer.from(input),
        timeoutMs: config.timeoutMs,
        killGraceMs: KILL_GRACE_MS,
        maxOutputBytes: MAX_STDERR,
      });
      // The command is done; take down anything it left in its group.
      if (ran.pid !== undefined) killProcessGroup({ pid: ran.pid, kill: () => false }, 'SIGKILL');
      if (ran.spawnError !== undefined)
        return { ok: false, retryable: false, error: `command ${label} could not start: ${ran.spawnError}` };
      if (ran.timedOut)
        return {
          ok: false,
          retryable: true,
          error: `command ${label} timed out after ${config.timeoutMs}ms`,
        };
      if (ran.exitCode === 0) return { ok: true, detail: `command ${label} exited 0` };
      const tail = redactText(ran.stderr.text().trim().slice(-300));
      const how = ran.exitCode === null ? `was killed by ${ran.signal}` : `exited ${ran.exitCode}`;
      return {
        ok: false,
        retryable: ran.exitCode === RETRY_EXIT_CODE,
        error: `command ${label} ${how}${tail ? `: ${tail}` : ''}`,
      };
    },
  };
}

import { spawn } from 'node:child_process';
import type { CommandChannelConfig } from '../../config/notify-schema.js';
import type { RenderedNotification } from '../notification.js';
import { redactText } from '../../logging/redact.js';
import { findOnPath } from '../../util/find-on-path.js';
import { killProcessGroup } from '../../util/process-group.js';
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
    send(notification: RenderedNotification, context: DeliveryContext): Promise<DeliveryResult> {
      const env: Record<string, string | undefined> = {
        ...(options.env ?? process.env),
        ...config.env,
        HOOKD_DELIVERY_ID: context.deliveryId,
      };
      // A bare program name is looked up in PATH's absolute folders only (findOnPath), never in a
      // relative one that would lead into whatever folder hookd runs in.
      const program = argv[0]!.includes('/') ? argv[0]! : findOnPath(argv[0]!, env.PATH);
      if (!program)
        return Promise.resolve({ ok: false, retryable: false, error: `command ${label} is not on PATH` });
      const input = JSON.stringify(notificationPayload(notification, context, name));
      return new Promise((resolve) => {
        let settled = false;
        let stderr = '';
        let timedOut = false;
        let escalation: NodeJS.Timeout | undefined;
        const finish = (result: DeliveryResult) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          clearTimeout(escalation);
          resolve(result);
        };
        const child = spawn(program, argv.slice(1), {
          detached: true,
          stdio: ['pipe', 'ignore', 'pipe'],
          env: env as NodeJS.ProcessEnv,
        });
        const timer = setTimeout(() => {
          timedOut = true;
          killProcessGroup(child, 'SIGTERM');
          escalation = setTimeout(() => killProcessGroup(child, 'SIGKILL'), KILL_GRACE_MS);
        }, config.timeoutMs);
        child.stderr!.on('data', (chunk: Buffer) => {
          if (stderr.length < MAX_STDERR) stderr += chunk.toString('utf8');
        });
        child.stdin!.on('error', () => {});
        child.on('error', (error) =>
          finish({
            ok: false,
            retryable: false,
            error: `command ${label} could not start: ${error.message}`,
          }),
        );
        child.on('close', (code, signal) => {
          // The command is done; take down anything it left in its group.
          killProcessGroup(child, 'SIGKILL');
          const tail = redactText(stderr.trim().slice(-300));
          if (timedOut)
            return finish({
              ok: false,
              retryable: true,
              error: `command ${label} timed out after ${config.timeoutMs}ms`,
            });
          if (code === 0) return finish({ ok: true, detail: `command ${label} exited 0` });
          finish({
            ok: false,
            retryable: code === RETRY_EXIT_CODE,
            error: `command ${label} ${code === null ? `was killed by ${signal}` : `exited ${code}`}${tail ? `: ${tail}` : ''}`,
          });
        });
        child.stdin!.end(input);
      });
    },
  };
}

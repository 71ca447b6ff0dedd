import { redactText } from '../logging/redact.js';
import type { RenderedNotification } from './notification.js';

/** Whether a channel's notifications leave the machine (and so go through the redactor). */
export function isRemoteChannel(channel: { type: string; remote?: boolean | undefined }): boolean {
  return (
    channel.remote ?? (channel.type === 'slack' || channel.type === 'webhook' || channel.type === 'ntfy')
  );
}

/**
 * The notification as it may leave the machine: title, body and fields through the one redactor
 * (src/logging/redact.ts); absolute home paths too when `homePaths` is set (enrich.redactHomePaths).
 */
export function redactNotification(
  notification: RenderedNotification,
  options: { homePaths?: boolean; home?: string | undefined } = {},
): RenderedNotification {
  const opts = { homePaths: options.homePaths ?? false, ...(options.home ? { home: options.home } : {}) };
  const out: RenderedNotification = {
    ...notification,
    title: redactText(notification.title, opts),
    body: redactText(notification.body, opts),
    fields: notification.fields.map((f) => ({ label: f.label, value: redactText(f.value, opts) })),
  };
  if (notification.cwd !== undefined) out.cwd = redactText(notification.cwd, opts);
  return out;
}

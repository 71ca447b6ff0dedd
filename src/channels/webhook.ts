import { createHmac } from 'node:crypto';
import type { WebhookChannelConfig } from '../config/schemas/notify-schema.js';
import type { RenderedNotification } from '../notify/notification.js';
import {
  notificationPayload,
  resolvedPayload,
  type Channel,
  type DeliveryContext,
  type DeliveryResult,
} from './channel.js';
import { classifyHttp, postWithTimeout, safeHost, type FetchLike } from './http.js';
import { USER_AGENT } from '../util/version.js';

/** sha256=<hex> of HMAC-SHA256(secret, "<timestamp>.<body>"): what X-Hookd-Signature carries. */
export function signBody(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** A generic webhook: POST of the documented JSON body, custom headers, optional HMAC signature. */
export function createWebhookChannel(
  name: string,
  config: WebhookChannelConfig,
  options: { fetch?: FetchLike; now?: () => number } = {},
): Channel {
  const fetchImpl = options.fetch;
  const now = options.now ?? Date.now;
  return {
    name,
    type: 'webhook',
    describe: () => `webhook ${safeHost(config.url)}`,
    health: () => ({ ok: true, problems: [] }),
    async send(notification: RenderedNotification, context: DeliveryContext): Promise<DeliveryResult> {
      // Only a rule's notification or a resolution: updates and summaries are for session messages.
      if (notification.kind && notification.kind !== 'resolved')
        return { ok: true, detail: `not sent: a webhook has no ${notification.kind}` };
      const body = JSON.stringify(
        notification.kind === 'resolved'
          ? resolvedPayload(notification, context, name)
          : notificationPayload(notification, context, name),
      );
      const timestamp = String(Math.floor(now() / 1000));
      const headers: Record<string, string> = {
        ...config.headers,
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'x-hookd-delivery': context.deliveryId,
        'idempotency-key': context.deliveryId,
        'x-hookd-timestamp': timestamp,
      };
      if (config.secret) headers['x-hookd-signature'] = signBody(config.secret, timestamp, body);
      const answer = await postWithTimeout(fetchImpl, config.url, body, headers, config.timeoutMs);
      const result = classifyHttp(answer, `webhook ${safeHost(config.url)}`);
      // The receiver knows a notification by its delivery id: that is what a `resolved` event names.
      return result.ok && !notification.kind ? { ...result, ref: context.deliveryId } : result;
    },
  };
}

import type { SlackChannelConfig } from '../../config/notify-schema.js';
import type { RenderedNotification } from '../notification.js';
import type { Channel, DeliveryContext, DeliveryResult } from './channel.js';
import { classifyHttp, postWithTimeout, safeHost, type FetchLike } from './http.js';
import { retryAfterMs } from '../../util/retry-after.js';
import { CHANNEL_BODY_MAX_BYTES } from '../../util/read-body.js';

/** Slack mrkdwn needs only these three escaped (https://api.slack.com/reference/surfaces/formatting). */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The Block Kit message: a header with the title, the body, and fields (project, duration...). */
export function slackMessage(notification: RenderedNotification): { text: string; blocks: unknown[] } {
  const blocks: unknown[] = [
    {
      type: 'header',
      text: { type: 'plain_text', text: clip(notification.title || 'hookd', 150), emoji: true },
    },
  ];
  if (notification.body) {
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: clip(escapeMrkdwn(notification.body), 3000) },
    });
  }
  const fields = notification.fields.slice(0, 10).map((field) => ({
    type: 'mrkdwn',
    text: clip(`*${escapeMrkdwn(field.label)}*\n${escapeMrkdwn(field.value)}`, 2000),
  }));
  if (fields.length > 0) blocks.push({ type: 'section', fields });
  const text = escapeMrkdwn(
    notification.body ? `${notification.title}: ${notification.body}` : notification.title,
  );
  return { text: clip(text, 3000), blocks };
}

/** Slack through an incoming webhook, or through chat.postMessage with one thread per session. */
export function createSlackChannel(
  name: string,
  config: SlackChannelConfig,
  options: { fetch?: FetchLike } = {},
): Channel {
  const fetchImpl = options.fetch ?? fetch;
  const useApi = Boolean(config.botToken && config.channel);
  const apiBase = config.apiBaseUrl.replace(/\/+$/, '');

  async function viaWebhook(notification: RenderedNotification): Promise<DeliveryResult> {
    const answer = await postWithTimeout(
      fetchImpl,
      config.webhookUrl!,
      JSON.stringify(slackMessage(notification)),
      { 'content-type': 'application/json' },
      config.timeoutMs,
    );
    return classifyHttp(answer, `slack webhook ${safeHost(config.webhookUrl!)}`);
  }

  async function viaApi(
    notification: RenderedNotification,
    context: DeliveryContext,
  ): Promise<DeliveryResult> {
    const threadKey =
      notification.sessionId && config.threads ? `${name}\u0000${notification.sessionId}` : undefined;
    const threadTs = threadKey ? context.threads.get(threadKey) : undefined;
    const body = {
      channel: config.channel,
      ...slackMessage(notification),
      ...(threadTs ? { thread_ts: threadTs } : {}),
    };
    const what = `slack API ${safeHost(apiBase)}`;
    const answer = await postWithTimeout(
      fetchImpl,
      `${apiBase}/chat.postMessage`,
      JSON.stringify(body),
      { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${config.botToken}` },
      config.timeoutMs,
    );
    const http = classifyHttp(answer, what);
    if (!http.ok || 'error' in answer) return http;
    let reply: { ok?: boolean; error?: string; ts?: string };
    if (answer.truncated)
      return {
        ok: false,
        retryable: true,
        error: `${what} answered with more than ${CHANNEL_BODY_MAX_BYTES / 1024} KiB: not a chat.postMessage reply`,
      };
    try {
      reply = JSON.parse(answer.text) as typeof reply;
    } catch {
      return { ok: false, retryable: true, error: `${what} answered with invalid JSON` };
    }
    if (!reply.ok) {
      const error = reply.error ?? 'unknown_error';
      const retryable = [
        'ratelimited',
        'rate_limited',
        'service_unavailable',
        'internal_error',
        'fatal_error',
        'request_timeout',
      ].includes(error);
      const wait = retryAfterMs(answer.headers.get('retry-after'));
      return {
        ok: false,
        retryable,
        error: `${what}: chat.postMessage failed: ${error}`,
        ...(wait !== undefined ? { retryAfterMs: wait } : {}),
      };
    }
    if (threadKey && !threadTs && reply.ts) await context.threads.set(threadKey, reply.ts);
    return { ok: true, detail: threadTs ? 'replied in thread' : 'posted' };
  }

  return {
    name,
    type: 'slack',
    describe: () =>
      useApi
        ? `slack API ${safeHost(apiBase)} (threads ${config.threads ? 'on' : 'off'})`
        : `slack webhook ${safeHost(config.webhookUrl ?? '')}`,
    health: () => ({ ok: true, problems: [] }),
    send: (notification, context) => (useApi ? viaApi(notification, context) : viaWebhook(notification)),
  };
}

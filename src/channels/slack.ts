import type { SlackChannelConfig } from '../config/schemas/notify-schema.js';
import type { RenderedNotification } from '../notify/notification.js';
import type { Channel, DeliveryContext, DeliveryResult } from './channel.js';
import { classifyHttp, postWithTimeout, safeHost, type FetchLike } from './http.js';
import { retryAfterMs } from '../util/retry-after.js';
import { clipText } from '../util/text/clip-text.js';
import { CHANNEL_BODY_MAX_BYTES } from '../util/read-body.js';
import { phaseLabel } from '../notify/session-message.js';

/** Slack mrkdwn needs only these three escaped (https://api.slack.com/reference/surfaces/formatting). */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The Block Kit message: a header with the title, the body, and fields (project, duration...). */
export function slackMessage(notification: RenderedNotification): { text: string; blocks: unknown[] } {
  const blocks: unknown[] = [
    {
      type: 'header',
      text: { type: 'plain_text', text: clipText(notification.title || 'hookd', 150), emoji: true },
    },
  ];
  if (notification.body) {
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: clipText(escapeMrkdwn(notification.body), 3000) },
    });
  }
  const fields = notification.fields.slice(0, 10).map((field) => ({
    type: 'mrkdwn',
    text: clipText(`*${escapeMrkdwn(field.label)}*\n${escapeMrkdwn(field.value)}`, 2000),
  }));
  if (fields.length > 0) blocks.push({ type: 'section', fields });
  const text = escapeMrkdwn(
    notification.body ? `${notification.title}: ${notification.body}` : notification.title,
  );
  return { text: clipText(text, 3000), blocks };
}

/** Slack Web API errors worth retrying (https://api.slack.com/web#evaluating_responses). */
const RETRYABLE_API_ERRORS = new Set([
  'ratelimited',
  'rate_limited',
  'service_unavailable',
  'internal_error',
  'fatal_error',
  'request_timeout',
]);

/** What a session's message is kept as: the channel id Slack answered (chat.update needs it) and the ts. */
const MESSAGE_REF = /^([A-Z0-9]{1,40}) (\d{1,20}\.\d{1,20})$/;

/** `C123 1700000000.000100` from a chat.postMessage reply, or undefined when it is not one. */
function messageRef(reply: { channel?: unknown; ts?: unknown }): string | undefined {
  const ref = `${String(reply.channel)} ${String(reply.ts)}`;
  return typeof reply.channel === 'string' && typeof reply.ts === 'string' && MESSAGE_REF.test(ref)
    ? ref
    : undefined;
}

const STATE_ICONS: Record<string, string> = {
  starting: ':hourglass_flowing_sand:',
  working: ':gear:',
  waiting: ':raised_hand:',
  done: ':white_check_mark:',
  failed: ':x:',
  interrupted: ':double_vertical_bar:',
  ended: ':checkered_flag:',
};

/** The session's message: the notification's blocks with the session's state first (docs/sessions.md). */
export function sessionMessage(notification: RenderedNotification): { text: string; blocks: unknown[] } {
  const message = slackMessage(notification);
  const snapshot = notification.session;
  if (!snapshot) return message;
  const state = `${STATE_ICONS[snapshot.phase] ?? ''} *${escapeMrkdwn(phaseLabel(snapshot))}*`.trim();
  message.blocks.splice(1, 0, { type: 'context', elements: [{ type: 'mrkdwn', text: state }] });
  return message;
}

/** A notification already shown, marked answered (chat.update of its message). */
export function resolvedMessage(notification: RenderedNotification): { text: string; blocks: unknown[] } {
  const message = slackMessage({ ...notification, title: `Answered: ${notification.title}` });
  const by = notification.resolves?.by;
  message.blocks.splice(1, 0, {
    type: 'context',
    elements: [
      {
        type: 'mrkdwn',
        text: `:white_check_mark: answered${by ? ` (${escapeMrkdwn(by.split(' ')[0]!)})` : ''}`,
      },
    ],
  });
  return message;
}

/**
 * Slack through an incoming webhook (a message per notification), or the Web API with a bot token: one
 * thread per session (`mode: thread`), or one message per session updated in place (`session-message`).
 */
export function createSlackChannel(
  name: string,
  config: SlackChannelConfig,
  options: { fetch?: FetchLike } = {},
): Channel {
  const fetchImpl = options.fetch;
  const useApi = Boolean(config.botToken && config.channel);
  const sessionMode = useApi && config.mode === 'session-message';
  const apiBase = config.apiBaseUrl.replace(/\/+$/, '');
  const what = `slack API ${safeHost(apiBase)}`;

  async function viaWebhook(notification: RenderedNotification): Promise<DeliveryResult> {
    // A webhook cannot update what it posted: updates, summaries and resolutions are not sent.
    if (notification.kind) return { ok: true, detail: `not sent: a webhook cannot ${notification.kind}` };
    const answer = await postWithTimeout(
      fetchImpl,
      config.webhookUrl!,
      JSON.stringify(slackMessage(notification)),
      { 'content-type': 'application/json' },
      config.timeoutMs,
    );
    return classifyHttp(answer, `slack webhook ${safeHost(config.webhookUrl!)}`);
  }

  /** One Web API call: the reply when Slack said ok, else the outcome for the outbox (and Slack's error). */
  async function call(
    method: string,
    body: Record<string, unknown>,
  ): Promise<
    | { reply: { ts?: unknown; channel?: unknown } }
    | { failed: DeliveryResult & { ok: false }; error?: string }
  > {
    const answer = await postWithTimeout(
      fetchImpl,
      `${apiBase}/${method}`,
      JSON.stringify(body),
      { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${config.botToken}` },
      config.timeoutMs,
    );
    const http = classifyHttp(answer, what);
    if (!http.ok) return { failed: http };
    if ('error' in answer) return { failed: { ok: false, retryable: true, error: answer.error } };
    if (answer.truncated)
      return {
        failed: {
          ok: false,
          retryable: true,
          error: `${what} answered with more than ${CHANNEL_BODY_MAX_BYTES / 1024} KiB: not a ${method} reply`,
        },
      };
    let reply: { ok?: unknown; error?: unknown; ts?: unknown; channel?: unknown };
    try {
      reply = JSON.parse(answer.text) as typeof reply;
    } catch {
      return { failed: { ok: false, retryable: true, error: `${what} answered with invalid JSON` } };
    }
    if (reply?.ok === true) return { reply };
    const error = typeof reply?.error === 'string' ? reply.error.slice(0, 100) : 'unknown_error';
    const wait = retryAfterMs(answer.headers.get('retry-after'));
    return {
      error,
      failed: {
        ok: false,
        retryable: RETRYABLE_API_ERRORS.has(error),
        error: `${what}: ${method} failed: ${error}`,
        ...(wait !== undefined ? { retryAfterMs: wait } : {}),
      },
    };
  }

  async function viaApi(
    notification: RenderedNotification,
    context: DeliveryContext,
  ): Promise<DeliveryResult> {
    if (notification.kind === 'resolved') return resolve(notification);
    if (notification.kind)
      return { ok: true, detail: `not sent: ${notification.kind} needs session-message` };
    const threadKey =
      notification.sessionId && config.threads ? `${name}\u0000${notification.sessionId}` : undefined;
    const threadTs = threadKey ? context.threads.get(threadKey) : undefined;
    const out = await call('chat.postMessage', {
      channel: config.channel,
      ...slackMessage(notification),
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
    if ('failed' in out) return out.failed;
    const ts = typeof out.reply.ts === 'string' ? out.reply.ts : undefined;
    if (threadKey && !threadTs && ts) await context.threads.set(threadKey, ts);
    const ref = messageRef(out.reply);
    return { ok: true, detail: threadTs ? 'replied in thread' : 'posted', ...(ref ? { ref } : {}) };
  }

  /** A shown message marked answered; one Slack no longer has is left alone (best-effort). */
  async function resolve(notification: RenderedNotification): Promise<DeliveryResult> {
    const ref = MESSAGE_REF.exec(notification.resolves?.ref ?? '');
    if (!ref) return { ok: true, detail: 'not resolved: no message to update' };
    const out = await call('chat.update', { channel: ref[1], ts: ref[2], ...resolvedMessage(notification) });
    if ('failed' in out)
      return out.error === 'message_not_found'
        ? { ok: true, detail: 'not resolved: the message is gone' }
        : out.failed;
    return { ok: true, detail: 'marked answered' };
  }

  /** One message per session: posted once, then updated in place; the summary goes in its thread. */
  async function viaSessionMessage(
    notification: RenderedNotification,
    context: DeliveryContext,
  ): Promise<DeliveryResult> {
    if (!notification.sessionId || notification.kind === 'resolved') return viaApi(notification, context);
    const key = `${name}\u0000message\u0000${notification.sessionId}`;
    const saved = MESSAGE_REF.exec(context.threads.get(key) ?? '');
    if (notification.kind === 'summary') {
      if (!saved) return { ok: true, detail: 'no summary: the session has no message' };
      const out = await call('chat.postMessage', {
        channel: saved[1],
        thread_ts: saved[2],
        ...slackMessage(notification),
      });
      return 'failed' in out ? out.failed : { ok: true, detail: 'summary in thread' };
    }
    if (saved) {
      const out = await call('chat.update', {
        channel: saved[1],
        ts: saved[2],
        ...sessionMessage(notification),
      });
      if (!('failed' in out)) return { ok: true, detail: 'updated' };
      // Deleted in Slack (or never there): a new message takes its place.
      if (out.error !== 'message_not_found') return out.failed;
    } else if (notification.kind === 'update') return { ok: true, detail: 'nothing to update yet' };
    const out = await call('chat.postMessage', { channel: config.channel, ...sessionMessage(notification) });
    if ('failed' in out) return out.failed;
    const ref = messageRef(out.reply);
    if (!ref)
      return { ok: false, retryable: false, error: `${what}: chat.postMessage answered no channel and ts` };
    await context.threads.set(key, ref);
    return { ok: true, detail: saved ? 'posted anew (the message was gone)' : 'posted' };
  }

  return {
    name,
    type: 'slack',
    ...(sessionMode ? { sessionMessages: true } : {}),
    describe: () =>
      useApi
        ? `slack API ${safeHost(apiBase)} (${sessionMode ? 'one message per session' : `threads ${config.threads ? 'on' : 'off'}`})`
        : `slack webhook ${safeHost(config.webhookUrl ?? '')}`,
    health: () => ({ ok: true, problems: [] }),
    send: (notification, context) =>
      sessionMode
        ? viaSessionMessage(notification, context)
        : useApi
          ? viaApi(notification, context)
          : viaWebhook(notification),
  };
}

import { NOTIFY_DEFAULTS, type NtfyChannelConfig } from '../config/schemas/notify-schema.js';
import type { RenderedNotification, Urgency } from '../notify/notification.js';
import type { Channel, DeliveryContext, DeliveryResult } from './channel.js';
import { classifyHttp, postWithTimeout, safeHost, type FetchLike } from './http.js';
import { USER_AGENT } from '../util/version.js';

/** ntfy keeps a message up to 4096 bytes as text (longer ones become an attachment). */
export const NTFY_MESSAGE_MAX_BYTES = 4096;
/** Titles are shown on one or two lines on a phone; longer ones are clipped. */
export const NTFY_TITLE_MAX_CHARS = 250;

/** `text` cut to at most `maxBytes` of UTF-8, ending with "…" when cut (never in the middle of a character). */
export function clipUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const budget = maxBytes - Buffer.byteLength('…');
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch);
    if (bytes + size > budget) break;
    out += ch;
    bytes += size;
  }
  return `${out}…`;
}

function clipChars(text: string, max: number): string {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

export function ntfyPriority(urgency: Urgency, config: Pick<NtfyChannelConfig, 'priorities'>): number {
  return config.priorities[urgency] ?? NOTIFY_DEFAULTS.ntfyPriorities[urgency];
}

/**
 * The click URL: the `click` template with {sessionId}, {project} (URL-encoded) and {appUrl} filled in;
 * undefined without a template, or when it names a session or project the notification does not have.
 */
export function ntfyClickUrl(
  template: string | undefined,
  notification: RenderedNotification,
  appUrl: string,
): string | undefined {
  if (!template) return undefined;
  const values: Record<string, string | undefined> = {
    sessionId: notification.sessionId,
    project: notification.project,
  };
  let missing = false;
  const url = template.replace(/\{(sessionId|project|appUrl)\}/g, (_, key: string) => {
    if (key === 'appUrl') return appUrl.replace(/\/+$/, '');
    const value = values[key];
    if (value === undefined) missing = true;
    return encodeURIComponent(value ?? '');
  });
  return missing ? undefined : url;
}

/** The JSON that ntfy's "publish as JSON" takes (POST to the server root). */
export function ntfyMessage(
  notification: RenderedNotification,
  config: NtfyChannelConfig,
  appUrl: string,
): Record<string, unknown> {
  const click = ntfyClickUrl(config.click, notification, appUrl);
  return {
    topic: config.topic,
    title: clipChars(notification.title || 'hookd', NTFY_TITLE_MAX_CHARS),
    message: clipUtf8(notification.body || notification.title || 'hookd', NTFY_MESSAGE_MAX_BYTES),
    priority: ntfyPriority(notification.urgency, config),
    ...(config.tags.length > 0 ? { tags: config.tags } : {}),
    ...(click ? { click } : {}),
  };
}

function authorization(config: NtfyChannelConfig): string | undefined {
  if (config.token) return `Bearer ${config.token}`;
  if (config.user && config.password)
    return `Basic ${Buffer.from(`${config.user}:${config.password}`).toString('base64')}`;
  return undefined;
}

function serverProblem(server: string): string | undefined {
  try {
    const url = new URL(server);
    if (url.protocol === 'http:' || url.protocol === 'https:') return undefined;
  } catch {}
  return 'its server is not an http(s) URL: fix notify.channels.<name>.server';
}

/** Phone push through ntfy: one JSON publish per notification; always remote (redacted first). */
export function createNtfyChannel(
  name: string,
  config: NtfyChannelConfig,
  options: { fetch?: FetchLike; appUrl?: string } = {},
): Channel {
  const fetchImpl = options.fetch;
  const appUrl = options.appUrl ?? '';
  const problem = serverProblem(config.server)?.replace('<name>', name);
  const host = safeHost(config.server);
  const publishUrl = problem ? '' : new URL('/', config.server).toString();
  return {
    name,
    type: 'ntfy',
    remote: true,
    describe: () => `ntfy ${host}`,
    health: () =>
      problem ? { ok: false, problems: [`channel "${name}": ${problem}`] } : { ok: true, problems: [] },
    async send(notification: RenderedNotification, context: DeliveryContext): Promise<DeliveryResult> {
      if (problem) return { ok: false, retryable: false, error: `channel "${name}": ${problem}` };
      const auth = authorization(config);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'x-hookd-delivery': context.deliveryId,
        ...(auth ? { authorization: auth } : {}),
      };
      const body = JSON.stringify(ntfyMessage(notification, config, appUrl));
      const answer = await postWithTimeout(fetchImpl, publishUrl, body, headers, config.timeoutMs);
      return classifyHttp(answer, `ntfy ${host}`);
    },
  };
}

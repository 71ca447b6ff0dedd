import { fetchWithTimeout, type FetchLike } from '../util/fetch-with-timeout.js';

/** The largest Web API reply read: a chat.postMessage reply echoes the message, a few KiB. */
const REPLY_MAX_BYTES = 256 * 1024;

/** Where and how the Slack answer channel calls Slack's Web API. */
export interface SlackApiTarget {
  apiBaseUrl: string;
  timeoutMs: number;
  fetch?: FetchLike;
}

export type SlackApiResult = { ok: true; reply: Record<string, unknown> } | { ok: false; error: string };

/** The host of a URL, for messages: never its path or query (a Socket Mode URL carries a ticket). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an invalid URL';
  }
}

/**
 * One Slack Web API call (POST, JSON body, `Authorization: Bearer <token>`), answered as Slack's reply
 * when it says `ok`, else a short error naming the method and Slack's error code. Never a throw, and the
 * token never appears in the error.
 */
export async function callSlack(
  target: SlackApiTarget,
  method: string,
  token: string,
  body: Record<string, unknown>,
): Promise<SlackApiResult> {
  const base = target.apiBaseUrl.replace(/\/+$/, '');
  const what = `slack ${method} at ${hostOf(base)}`;
  const answer = await fetchWithTimeout(
    target.fetch ?? fetch,
    `${base}/${method}`,
    {
      method: 'POST',
      // Slack's Web API does not redirect: a redirect is refused rather than followed with the token.
      redirect: 'error',
      headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    },
    { timeoutMs: target.timeoutMs, maxBodyBytes: REPLY_MAX_BYTES },
  );
  if (!answer.ok) return { ok: false, error: `${what}: ${answer.timedOut ? 'timed out' : answer.reason}` };
  if (answer.status < 200 || answer.status >= 300)
    return { ok: false, error: `${what}: HTTP ${answer.status}` };
  if (answer.truncated) return { ok: false, error: `${what}: a reply over ${REPLY_MAX_BYTES} bytes` };
  let reply: unknown;
  try {
    reply = JSON.parse(answer.text);
  } catch {
    return { ok: false, error: `${what}: a reply that is not JSON` };
  }
  if (!reply || typeof reply !== 'object' || Array.isArray(reply))
    return { ok: false, error: `${what}: a reply that is not an object` };
  const record = reply as Record<string, unknown>;
  if (record.ok === true) return { ok: true, reply: record };
  const code = typeof record.error === 'string' ? record.error.replace(/[^\w.-]/g, '').slice(0, 80) : '';
  return { ok: false, error: `${what} failed: ${code || 'unknown_error'}` };
}

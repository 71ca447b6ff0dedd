import type { DeliveryResult } from './channel.js';
import { CHANNEL_BODY_MAX_BYTES } from '../util/read-body.js';
import { fetchWithTimeout, type FetchLike } from '../util/fetch-with-timeout.js';
import { retryAfterMs } from '../util/retry-after.js';
import { nodeCanPost, postOverNode, type AnswerHeaders } from './node-http.js';

export type { FetchLike };

export interface HttpAnswer {
  status: number;
  headers: AnswerHeaders;
  /** At most CHANNEL_BODY_MAX_BYTES of the body. */
  text: string;
  /** The body was longer than that (the rest was never read). */
  truncated?: boolean;
}

/** A request that can never succeed as configured: dead-lettered at once, never retried. */
export interface HttpFailure {
  error: string;
  timedOut: boolean;
  permanent?: boolean;
}

/**
 * Why these headers can never be sent (undefined when they can): a value from `${VAR}` with CR, LF or NUL
 * (header injection), or a name that is not a token. Names the header, never its value (a secret).
 */
export function headerProblem(headers: Record<string, string>): string | undefined {
  for (const [name, value] of Object.entries(headers)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      return `header name ${JSON.stringify(name)} is not valid`;
    if (/[\r\n\0]/.test(value))
      return `header "${name}" has a CR, LF or NUL character, which HTTP forbids: check the value (or the variable) it comes from`;
  }
  return undefined;
}

/** Only the scheme and host of a URL, for logs and errors (paths of webhook URLs are secrets). */
export function safeHost(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * POSTs a body with a deadline; a network error or timeout is a value, never a throw. Without an injected
 * fetch (tests inject one), http and https go over node:http with a kept-alive connection (node-http.ts):
 * about 0.7 ms less than fetch from the POST to the receiver on loopback, on the path of every
 * notification. An answer that redirects is asked again through fetch, which follows redirects as before.
 */
export async function postWithTimeout(
  fetchImpl: FetchLike | undefined,
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<HttpAnswer | HttpFailure> {
  const problem = headerProblem(headers);
  if (problem)
    return { error: `cannot send to ${safeHost(url)}: ${problem}`, timedOut: false, permanent: true };
  const limits = { timeoutMs, maxBodyBytes: CHANNEL_BODY_MAX_BYTES };
  let answer;
  if (!fetchImpl && nodeCanPost(url)) {
    answer = await postOverNode(url, body, headers, limits);
    if (answer.ok && answer.status >= 300 && answer.status < 400 && answer.headers.get('location') !== null)
      answer = undefined;
  }
  answer ??= await fetchWithTimeout(fetchImpl ?? fetch, url, { method: 'POST', body, headers }, limits);
  if (answer.ok)
    return { status: answer.status, headers: answer.headers, text: answer.text, truncated: answer.truncated };
  return {
    error: answer.timedOut
      ? `no answer from ${safeHost(url)} within ${timeoutMs}ms`
      : `cannot reach ${safeHost(url)}: ${answer.reason}`,
    timedOut: answer.timedOut,
  };
}

/** The outbox's view of an HTTP answer: 2xx delivered; 429, 408 and 5xx retried; other 4xx dead-lettered. */
export function classifyHttp(answer: HttpAnswer | HttpFailure, what: string): DeliveryResult {
  if ('error' in answer) return { ok: false, retryable: !answer.permanent, error: answer.error };
  if (answer.status >= 200 && answer.status < 300)
    return { ok: true, detail: `${what} answered ${answer.status}` };
  const retryable = answer.status === 429 || answer.status === 408 || answer.status >= 500;
  const wait = retryAfterMs(answer.headers.get('retry-after'));
  const snippet = answer.text.slice(0, 200).replace(/\s+/g, ' ').trim();
  return {
    ok: false,
    retryable,
    error: `${what} answered HTTP ${answer.status}${snippet ? `: ${snippet}` : ''}`,
    ...(wait !== undefined ? { retryAfterMs: wait } : {}),
  };
}

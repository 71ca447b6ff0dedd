import type { DeliveryResult } from './channel.js';

export type FetchLike = typeof fetch;

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** Parses Retry-After (seconds or an HTTP date) into milliseconds from now. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(header);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
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

/** POSTs a body with a deadline; a network error or timeout is a value, never a throw. */
export async function postWithTimeout(
  fetchImpl: FetchLike,
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<HttpAnswer | { error: string; timedOut: boolean }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetchImpl(url, { method: 'POST', body, headers, signal: controller.signal });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text };
  } catch (error) {
    const timedOut = controller.signal.aborted;
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return {
      error: timedOut
        ? `no answer from ${safeHost(url)} within ${timeoutMs}ms`
        : `cannot reach ${safeHost(url)}: ${cause ?? (error as Error).message}`,
      timedOut,
    };
  } finally {
    clearTimeout(timer);
  }
}

/** The outbox's view of an HTTP answer: 2xx delivered; 429, 408 and 5xx retried; other 4xx dead-lettered. */
export function classifyHttp(
  answer: HttpAnswer | { error: string; timedOut: boolean },
  what: string,
): DeliveryResult {
  if ('error' in answer) return { ok: false, retryable: true, error: answer.error };
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

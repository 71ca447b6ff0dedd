import type * as z from 'zod';
import {
  NetworkError,
  PlatformError,
  ResponseValidationError,
  TimeoutError,
  httpErrorFor,
  type HttpError,
} from './errors.js';
import { errorBodySchema } from './schemas/error-body.js';
import { fieldIssuesFromZod } from './zod-issues.js';
import { redactText } from '../logging/redact.js';
import { fetchWithTimeout, type FetchLike } from '../util/fetch-with-timeout.js';
import { retryAfterMs } from '../util/retry-after.js';

/** The most of an API answer hookd reads: far above any real page, far below what hurts the daemon. */
export const PLATFORM_BODY_MAX_BYTES = 16 * 1024 * 1024;

/**
 * One HTTP exchange with the platform: the bearer header, a deadline covering headers and body,
 * retries with exponential backoff for idempotent methods, typed errors, and response validation.
 */

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT';
export type { FetchLike };

const IDEMPOTENT: ReadonlySet<HttpMethod> = new Set(['GET', 'PUT']);
const SNIPPET_CHARS = 200;
/** A Retry-After longer than this is not waited for: the 429 is returned to the caller. */
const MAX_RETRY_AFTER_MS = 30_000;

export interface TransportOptions {
  apiKey: string;
  fetch: FetchLike;
  timeoutMs: number;
  retries: number;
  /** First backoff delay; doubled at each retry (with up to 50% jitter). */
  retryBaseMs: number;
  sleep: (ms: number) => Promise<void>;
  userAgent: string;
}

export interface HttpRequest<S extends z.ZodType> {
  method: HttpMethod;
  url: URL;
  body?: unknown;
  schema: S;
}

/** Removes the key (and anything else that looks like a secret) from text that may end up in an error. */
export function scrubSecret(text: string, apiKey: string): string {
  const withoutKey = apiKey ? text.split(apiKey).join('[REDACTED]') : text;
  return redactText(withoutKey);
}

function snippet(text: string, apiKey: string): string {
  const clean = scrubSecret(text, apiKey).replace(/\s+/g, ' ').trim();
  return clean.length > SNIPPET_CHARS ? `${clean.slice(0, SNIPPET_CHARS)}…` : clean;
}

/** Turns a non-2xx answer into a typed error; copes with bodies that are not the documented shape. */
export function decodeErrorBody(
  method: string,
  path: string,
  response: { status: number; headers: Headers },
  text: string,
  apiKey: string,
): HttpError {
  let title: string | undefined;
  let detail: string | undefined;
  let requestId: string | undefined = response.headers.get('x-request-id') ?? undefined;
  let bodySnippet: string | undefined;
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(text));
    if (parsed.success && (parsed.data.title || parsed.data.detail)) {
      title = parsed.data.title && scrubSecret(parsed.data.title, apiKey);
      detail = parsed.data.detail && scrubSecret(parsed.data.detail, apiKey);
      requestId = parsed.data.requestId ?? requestId;
    } else bodySnippet = snippet(text, apiKey);
  } catch {
    bodySnippet = text ? snippet(text, apiKey) : undefined;
  }
  return httpErrorFor({
    method,
    path,
    status: response.status,
    title,
    detail,
    requestId,
    bodySnippet,
    retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
  });
}

function isRetryable(error: PlatformError): boolean {
  if (error.kind === 'network' || error.kind === 'timeout') return true;
  if (error.kind !== 'http') return false;
  const { status } = error as HttpError;
  if (status === 429) {
    const wait = (error as HttpError & { retryAfterMs?: number }).retryAfterMs;
    return wait === undefined || wait <= MAX_RETRY_AFTER_MS;
  }
  return status >= 500;
}

function backoffMs(options: TransportOptions, attempt: number, error: PlatformError): number {
  const retryAfter = (error as { retryAfterMs?: number }).retryAfterMs;
  if (retryAfter !== undefined) return retryAfter;
  const base = options.retryBaseMs * 2 ** attempt;
  return base + Math.floor(Math.random() * base * 0.5);
}

interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The body was longer than PLATFORM_BODY_MAX_BYTES (the rest was never read). */
  truncated?: boolean;
}

async function exchange(
  options: TransportOptions,
  method: HttpMethod,
  url: URL,
  body: unknown,
): Promise<RawAnswer> {
  const path = `${url.pathname}${url.search}`;
  const headers: Record<string, string> = {
    Authorization: `Bearer ${options.apiKey}`,
    Accept: 'application/json',
    'User-Agent': options.userAgent,
  };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const answer = await fetchWithTimeout(
    options.fetch,
    url.toString(),
    { method, headers, body: body === undefined ? undefined : JSON.stringify(body), redirect: 'error' },
    { timeoutMs: options.timeoutMs, maxBodyBytes: PLATFORM_BODY_MAX_BYTES },
  );
  if (!answer.ok) {
    if (answer.timedOut) throw new TimeoutError(method, path, options.timeoutMs);
    throw new NetworkError(method, path, scrubSecret(answer.reason, options.apiKey));
  }
  return { status: answer.status, headers: answer.headers, text: answer.text, truncated: answer.truncated };
}

function decodeSuccess<S extends z.ZodType>(
  options: TransportOptions,
  request: HttpRequest<S>,
  answer: RawAnswer,
): z.output<S> {
  const path = `${request.url.pathname}${request.url.search}`;
  if (answer.truncated)
    throw new ResponseValidationError(request.method, path, answer.status, [
      {
        field: '(body)',
        message: `is larger than ${PLATFORM_BODY_MAX_BYTES / (1024 * 1024)} MiB, the most hookd reads; narrow the request (a smaller page or range)`,
      },
    ]);
  let json: unknown;
  try {
    json = JSON.parse(answer.text);
  } catch {
    throw new ResponseValidationError(request.method, path, answer.status, [
      { field: '(body)', message: `is not JSON: ${JSON.stringify(snippet(answer.text, options.apiKey))}` },
    ]);
  }
  const parsed = request.schema.safeParse(json);
  if (!parsed.success) {
    throw new ResponseValidationError(request.method, path, answer.status, fieldIssuesFromZod(parsed.error));
  }
  return parsed.data as z.output<S>;
}

/** Sends one request (retrying idempotent ones) and returns the validated body. */
export async function sendRequest<S extends z.ZodType>(
  options: TransportOptions,
  request: HttpRequest<S>,
): Promise<z.output<S>> {
  const path = `${request.url.pathname}${request.url.search}`;
  const maxRetries = IDEMPOTENT.has(request.method) ? options.retries : 0;
  for (let attempt = 0; ; attempt++) {
    let failure: PlatformError;
    try {
      const answer = await exchange(options, request.method, request.url, request.body);
      if (answer.status >= 200 && answer.status < 300) return decodeSuccess(options, request, answer);
      failure = decodeErrorBody(request.method, path, answer, answer.text, options.apiKey);
    } catch (error) {
      if (!(error instanceof PlatformError) || error.kind === 'response-validation') throw error;
      failure = error;
    }
    if (attempt >= maxRetries || !isRetryable(failure)) throw failure;
    await options.sleep(backoffMs(options, attempt, failure));
  }
}

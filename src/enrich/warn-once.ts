import { redactText } from '../logging/redact.js';

/**
 * One warning per cause: a failing source (say the API answering 401) warns once, stays quiet while the
 * cause stays the same, warns again when the cause changes, and is reset by a success.
 */
export interface WarnOnce {
  /** Report a failure of `source` with `cause`; warns only when the cause is new for that source. */
  fail(source: string, cause: string, message: string): boolean;
  /** Report a success of `source`: its next failure warns again. */
  ok(source: string): void;
}

export function createWarnOnce(warn: (message: string) => void): WarnOnce {
  const current = new Map<string, string>();
  return {
    fail(source, cause, message) {
      if (current.get(source) === cause) return false;
      current.set(source, cause);
      warn(redactText(message));
      return true;
    },
    ok(source) {
      current.delete(source);
    },
  };
}

/** A short, stable name for why a call failed: `http-401`, `timeout`, `ECONNREFUSED`, ... */
export function causeOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'error';
  const e = error as {
    status?: unknown;
    statusCode?: unknown;
    code?: unknown;
    name?: unknown;
    cause?: unknown;
  };
  const status =
    typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : undefined;
  if (status !== undefined) return `http-${status}`;
  if (e.name === 'AbortError' || e.name === 'TimeoutError') return 'timeout';
  if (typeof e.code === 'string' && e.code) return e.code;
  if (e.cause && e.cause !== error) {
    const inner = causeOf(e.cause);
    if (inner !== 'error') return inner;
  }
  return typeof e.name === 'string' && e.name !== 'Error' ? e.name : 'error';
}

/** What to do about a cause, for the warning text. */
export function hintFor(cause: string): string {
  if (cause === 'http-401' || cause === 'http-403') return 'check the API key (hookd config: api)';
  if (cause.startsWith('http-5')) return 'the platform is failing; hookd keeps using local data';
  if (cause === 'timeout' || cause === 'no-answer')
    return 'the API is slow or unreachable; raise enrich.budgetMs or turn enrich.api off';
  return 'hookd keeps using local data';
}

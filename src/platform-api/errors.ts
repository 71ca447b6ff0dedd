/**
 * Every failure of the platform client is one of these typed errors. None of them ever carries the
 * Authorization header or the API key: bodies are scrubbed of the key before they are kept.
 */

/** One problem with one field, of a request (before it is sent) or of a response. */
export interface FieldIssue {
  /** Dotted path of the field, e.g. `startDate` or `data[3].by_model[0].model_id`. */
  field: string;
  message: string;
}

export type PlatformErrorKind =
  'request-validation' | 'access' | 'http' | 'response-validation' | 'network' | 'timeout' | 'pagination';

export abstract class PlatformError extends Error {
  abstract readonly kind: PlatformErrorKind;
}

function listIssues(issues: readonly FieldIssue[]): string {
  return issues.map((i) => `${i.field}: ${i.message}`).join('; ');
}

/** A request refused before it was sent: every invalid field is listed at once. */
export class RequestValidationError extends PlatformError {
  readonly kind = 'request-validation';
  constructor(
    readonly operation: string,
    readonly issues: readonly FieldIssue[],
  ) {
    super(`invalid request for ${operation}: ${listIssues(issues)}`);
    this.name = 'RequestValidationError';
  }
}

/** No usable API key or URL (missing key, unsafe key file, bad URL). */
export class ApiAccessError extends PlatformError {
  readonly kind = 'access';
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'ApiAccessError';
  }
}

export interface HttpErrorInit {
  method: string;
  /** Path and query of the request (never the key, which travels only in a header). */
  path: string;
  status: number;
  title?: string | undefined;
  detail?: string | undefined;
  requestId?: string | undefined;
  /** The start of a body that was not the documented error shape, already scrubbed of the key. */
  bodySnippet?: string | undefined;
  retryAfterMs?: number | undefined;
}

/** The server answered with a non-success status. Subclasses name the documented statuses. */
export class HttpError extends PlatformError {
  readonly kind = 'http';
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly title: string | undefined;
  readonly detail: string | undefined;
  readonly requestId: string | undefined;
  readonly bodySnippet: string | undefined;
  constructor(init: HttpErrorInit) {
    const what = [init.title, init.detail].filter(Boolean).join(': ') || init.bodySnippet || 'no details';
    const id = init.requestId ? ` (requestId ${init.requestId})` : '';
    super(`${init.method} ${init.path} failed with ${init.status}: ${what}${id}`);
    this.name = 'HttpError';
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    this.title = init.title;
    this.detail = init.detail;
    this.requestId = init.requestId;
    this.bodySnippet = init.bodySnippet;
  }
}

export class BadRequestError extends HttpError {
  override name = 'BadRequestError';
}
export class UnauthorizedError extends HttpError {
  override name = 'UnauthorizedError';
}
export class ForbiddenError extends HttpError {
  override name = 'ForbiddenError';
}
export class NotFoundError extends HttpError {
  override name = 'NotFoundError';
}
export class RateLimitError extends HttpError {
  override name = 'RateLimitError';
  readonly retryAfterMs: number | undefined;
  constructor(init: HttpErrorInit) {
    super(init);
    this.retryAfterMs = init.retryAfterMs;
  }
}
export class ServerError extends HttpError {
  override name = 'ServerError';
}

/** Picks the typed error class for a status. */
export function httpErrorFor(init: HttpErrorInit): HttpError {
  const { status } = init;
  if (status === 400) return new BadRequestError(init);
  if (status === 401) return new UnauthorizedError(init);
  if (status === 403) return new ForbiddenError(init);
  if (status === 404) return new NotFoundError(init);
  if (status === 429) return new RateLimitError(init);
  if (status >= 500) return new ServerError(init);
  return new HttpError(init);
}

/** The server answered 2xx with a body that does not match the contract; names each bad field. */
export class ResponseValidationError extends PlatformError {
  readonly kind = 'response-validation';
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly issues: readonly FieldIssue[],
  ) {
    super(`unexpected response from ${method} ${path} (${status}): ${listIssues(issues.slice(0, 5))}`);
    this.name = 'ResponseValidationError';
  }
}

/** The request never got an answer (DNS, refused connection, reset). */
export class NetworkError extends PlatformError {
  readonly kind = 'network';
  constructor(
    readonly method: string,
    readonly path: string,
    reason: string,
  ) {
    super(`${method} ${path} could not reach the server: ${reason}`);
    this.name = 'NetworkError';
  }
}

export class TimeoutError extends PlatformError {
  readonly kind = 'timeout';
  constructor(
    readonly method: string,
    readonly path: string,
    readonly timeoutMs: number,
  ) {
    super(`${method} ${path} timed out after ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

/** The server's cursors went round in a circle; iteration stops instead of looping forever. */
export class PaginationError extends PlatformError {
  readonly kind = 'pagination';
  constructor(
    readonly operation: string,
    readonly cursor: string,
  ) {
    super(
      `${operation}: the server returned cursor ${JSON.stringify(cursor)} twice; stopping to avoid a loop`,
    );
    this.name = 'PaginationError';
  }
}

import { describe, expect, it } from 'vitest';
import { decodeErrorBody, scrubSecret } from '../../../src/platform-api/http.js';
import {
  BadRequestError,
  ForbiddenError,
  HttpError,
  NotFoundError,
  RateLimitError,
  ServerError,
  UnauthorizedError,
} from '../../../src/platform-api/errors.js';

const KEY = 'fk-live-0123456789abcdef';
const answer = (status: number, headers: Record<string, string> = {}) => ({
  status,
  headers: new Headers(headers),
});

describe('decodeErrorBody', () => {
  it('types each documented status', () => {
    const body = JSON.stringify({ title: 't', detail: 'd', status: 0, requestId: 'r' });
    expect(decodeErrorBody('GET', '/p', answer(400), body, KEY)).toBeInstanceOf(BadRequestError);
    expect(decodeErrorBody('GET', '/p', answer(401), body, KEY)).toBeInstanceOf(UnauthorizedError);
    expect(decodeErrorBody('GET', '/p', answer(403), body, KEY)).toBeInstanceOf(ForbiddenError);
    expect(decodeErrorBody('GET', '/p', answer(404), body, KEY)).toBeInstanceOf(NotFoundError);
    expect(decodeErrorBody('GET', '/p', answer(429), body, KEY)).toBeInstanceOf(RateLimitError);
    expect(decodeErrorBody('GET', '/p', answer(503), body, KEY)).toBeInstanceOf(ServerError);
    const other = decodeErrorBody('GET', '/p', answer(409), body, KEY);
    expect(other).toBeInstanceOf(HttpError);
    expect(other).toMatchObject({ status: 409, title: 't', detail: 'd', requestId: 'r' });
  });

  it('falls back to the x-request-id header and a scrubbed snippet', () => {
    const error = decodeErrorBody('GET', '/p', answer(500, { 'x-request-id': 'hdr' }), `oops ${KEY}`, KEY);
    expect(error.requestId).toBe('hdr');
    expect(error.bodySnippet).toBe('oops [REDACTED]');
    expect(error.message).not.toContain(KEY);
  });

  it('scrubs the key from a documented body too', () => {
    const error = decodeErrorBody(
      'GET',
      '/p',
      answer(401),
      JSON.stringify({ title: 'bad key', detail: `key ${KEY} revoked` }),
      KEY,
    );
    expect(error.detail).toBe('key [REDACTED] revoked');
  });

  it('reads Retry-After in seconds', () => {
    expect(
      (decodeErrorBody('GET', '/p', answer(429, { 'retry-after': '3' }), '', KEY) as RateLimitError)
        .retryAfterMs,
    ).toBe(3000);
  });

  it('scrubSecret removes every occurrence', () => {
    expect(scrubSecret(`${KEY}/${KEY}`, KEY)).toBe('[REDACTED]/[REDACTED]');
  });
});

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { PlatformClient } from '../../../src/platform-api/api-client.js';
import {
  ApiAccessError,
  HttpError,
  NetworkError,
  PaginationError,
  RateLimitError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
} from '../../../src/platform-api/errors.js';
import { collect } from '../../../src/platform-api/pagination.js';
import { NOW, useSimulator } from './sim-fixture.js';

function everythingAbout(error: unknown): string {
  const e = error as Error;
  return [e.message, e.stack, JSON.stringify(e), String(e)].join('\n');
}

describe('transport: timeouts, retries, error bodies, secrecy', () => {
  const f = useSimulator();

  it('sends the bearer key', async () => {
    await f.client('member').listComputers();
    expect(f.sim.requests[0]!.role).toBe('Member');
  });

  it('times out a slow answer with a typed error', async () => {
    f.sim.injectFault({ path: '/api/v0/computers', delayMs: 2000 });
    const error = await f
      .client('owner', { timeoutMs: 50, retries: 0 })
      .listComputers()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(50);
  });

  it('retries an idempotent GET after 5xx with growing backoff, then succeeds', async () => {
    f.sim.injectFault({ path: '/api/v0/computers', status: 503, body: { title: 'Unavailable' }, times: 2 });
    const sleeps: number[] = [];
    const client = f.client('owner', {
      retries: 2,
      retryBaseMs: 100,
      sleep: async (ms) => void sleeps.push(ms),
    });
    const computers = await client.listComputers();
    expect(computers.length).toBeGreaterThan(0);
    expect(f.sim.requests.map((r) => r.status)).toEqual([503, 503, 200]);
    expect(sleeps).toHaveLength(2);
    expect(sleeps[0]).toBeGreaterThanOrEqual(100);
    expect(sleeps[1]).toBeGreaterThanOrEqual(200);
  });

  it('gives up after the configured retries with a typed ServerError', async () => {
    f.sim.injectFault({
      path: '/api/v0/computers',
      status: 500,
      body: { title: 'Internal', detail: 'boom', status: 500, requestId: 'r1' },
      times: Infinity,
    });
    const error = await f
      .client('owner', { retries: 1, sleep: async () => {} })
      .listComputers()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ status: 500, title: 'Internal', detail: 'boom', requestId: 'r1' });
    expect(f.sim.requests).toHaveLength(2);
  });

  it('never retries a POST or PATCH', async () => {
    f.sim.injectFault({ path: '/api/v0/computers', method: 'POST', status: 503, times: Infinity });
    const client = f.client('owner', { retries: 3, sleep: async () => {} });
    await expect(client.createComputer({ name: 'x', remoteUser: 'y' })).rejects.toBeInstanceOf(ServerError);
    expect(f.sim.requests).toHaveLength(1);
  });

  it('retries a PUT (idempotent)', async () => {
    f.sim.injectFault({ path: '/api/v0/organization/usage/limits/users', status: 502, times: 1 });
    const client = f.client('owner', { retries: 1, sleep: async () => {} });
    const result = await client.setCreditLimits([{ email: f.sim.state.users[0]!.loginEmail, limit: 5 }]);
    expect(result.updated).toHaveLength(1);
    expect(f.sim.requests.map((r) => r.status)).toEqual([502, 200]);
  });

  it('429: honours Retry-After when retrying, and surfaces it when not', async () => {
    f.sim.injectFault({
      path: '/api/v0/computers',
      status: 429,
      headers: { 'retry-after': '2' },
      body: { title: 'Slow down' },
    });
    const sleeps: number[] = [];
    await f.client('owner', { retries: 1, sleep: async (ms) => void sleeps.push(ms) }).listComputers();
    expect(sleeps).toEqual([2000]);
    f.sim.injectFault({ path: '/api/v0/computers', status: 429, headers: { 'retry-after': '7' } });
    const error = await f
      .client('owner', { retries: 0 })
      .listComputers()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(7000);
  });

  it('a non-JSON error body becomes a typed error with a truncated snippet and never the key', async () => {
    const key = f.sim.keys.owner;
    f.sim.injectFault({
      path: '/api/v0/computers',
      status: 502,
      rawBody: `<html>bad gateway, you sent ${key} ${'x'.repeat(500)}</html>`,
    });
    const error = await f
      .client('owner', { retries: 0 })
      .listComputers()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    const snippet = (error as HttpError).bodySnippet!;
    expect(snippet).toContain('bad gateway');
    expect(snippet.length).toBeLessThanOrEqual(201);
    expect(everythingAbout(error)).not.toContain(key);
  });

  it('a JSON error body of another shape is kept as a snippet', async () => {
    f.sim.injectFault({ path: '/api/v0/computers', status: 404, body: { error: { message: 'gone' } } });
    const error = await f
      .client()
      .listComputers()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(404);
    expect((error as HttpError).bodySnippet).toContain('gone');
  });

  it('a non-JSON success body is a ResponseValidationError on (body)', async () => {
    f.sim.injectFault({ path: '/api/v0/computers', status: 200, rawBody: 'OK' });
    const error = await f
      .client()
      .listComputers()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues[0]!.field).toBe('(body)');
  });

  it('a refused connection is a NetworkError without the key', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const client = new PlatformClient({
      baseUrl: `http://127.0.0.1:${port}`,
      appUrl: `http://127.0.0.1:${port}`,
      apiKey: 'fk-secret-key-abcdef123456',
      retries: 0,
      now: () => NOW,
    });
    const error = await client.listComputers().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(everythingAbout(error)).not.toContain('fk-secret-key-abcdef123456');
    expect(JSON.stringify(client)).not.toContain('fk-secret');
  });

  it('stops when the server repeats a cursor instead of looping', async () => {
    f.sim.injectFault({
      path: '/api/v0/organization/users',
      status: 200,
      body: { users: [], pagination: { hasMore: true, nextCursor: 'same' } },
      times: Infinity,
    });
    await expect(collect(f.client().iterateOrganizationUsers())).rejects.toBeInstanceOf(PaginationError);
    expect(f.sim.requests).toHaveLength(2);
  });

  it('accepts base URLs with a trailing slash; refuses bad URLs and keys without echoing the key', async () => {
    const client = f.client('owner', { baseUrl: `${f.sim.baseUrl}/` });
    expect((await client.listComputers()).length).toBeGreaterThan(0);
    expect(() => new PlatformClient({ baseUrl: 'ftp://x', appUrl: f.sim.appUrl, apiKey: 'k' })).toThrow(
      ApiAccessError,
    );
    const error = (() => {
      try {
        return new PlatformClient({ baseUrl: f.sim.baseUrl, appUrl: f.sim.appUrl, apiKey: 'fk-secret\n' });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ApiAccessError);
    expect(everythingAbout(error)).not.toContain('fk-secret');
  });
});

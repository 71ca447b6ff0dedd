import { describe, expect, it } from 'vitest';
import { messageFetcher } from '../../../src/daemon/lifecycle/run-foreground.js';
import { httpErrorFor, NotFoundError } from '../../../src/platform-api/errors.js';
import type { PlatformClient } from '../../../src/platform-api/api-client.js';

const failingWith = (error: unknown) =>
  ({
    getMessage: () => Promise.reject(error),
  }) as unknown as PlatformClient;

const http = (status: number) =>
  httpErrorFor({
    method: 'GET',
    path: '/m',
    status,
    title: undefined,
    detail: undefined,
    requestId: undefined,
  });

describe('messageFetcher', () => {
  it('reads a NotFoundError (the platform has no such message) as none', async () => {
    const error = http(404);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(await messageFetcher(failingWith(error))('s', 'm')).toBeNull();
  });

  it('passes every other failure on, even one that merely carries a status 404 field', async () => {
    await expect(messageFetcher(failingWith(http(500)))('s', 'm')).rejects.toThrow(/500/);
    await expect(messageFetcher(failingWith({ status: 404 }))('s', 'm')).rejects.toEqual({ status: 404 });
  });
});

import { describe, expect, it } from 'vitest';
import {
  HttpError,
  NotFoundError,
  RequestValidationError,
  ResponseValidationError,
} from '../../../src/platform-api/errors.js';
import { useSimulator } from './sim-fixture.js';

const HOST_ID = '123e4567-e89b-42d3-a456-426614174000';

describe('computers contract', () => {
  let nowMs = Date.parse('2026-11-20T12:00:00Z');
  const f = useSimulator({ now: () => new Date(nowMs), provisionStepMs: 1000 });

  it('lists seeded computers in every status, with provisioning steps', async () => {
    const computers = await f.client('member').listComputers();
    expect(new Set(computers.map((c) => c.status))).toEqual(new Set(['active', 'provisioning', 'error']));
    const broken = computers.find((c) => c.status === 'error')!;
    const failed = broken.provisioningSteps!.find((s) => s.status === 'failed')!;
    expect(failed.name).toBe('install-deps');
    expect(failed.error).toContain('exited with code 1');
    // Fields the spec does not list are tolerated.
    expect((broken as Record<string, unknown>).repos).toEqual(['https://github.com/acme/fail-deps']);
  });

  it('creates (201), reads by id and by name, and progresses on the simulator clock', async () => {
    const client = f.client();
    const created = await client.createComputer({
      name: 'box',
      remoteUser: 'dev',
      repos: ['https://github.com/acme/api'],
    });
    expect(created).toMatchObject({
      name: 'box',
      remoteUser: 'dev',
      providerType: 'e2b',
      status: 'provisioning',
    });
    expect(f.sim.requests.at(-1)!.status).toBe(201);
    expect((await client.getComputer(created.id)).name).toBe('box');
    expect((await client.getComputerByName('box')).id).toBe(created.id);
    nowMs += 3000;
    const later = await client.getComputer(created.id);
    expect(later.status).toBe('active');
    expect(later.provisioningSteps!.every((s) => s.status === 'completed')).toBe(true);
    expect(later.relayClientUrl).toMatch(/^wss:/);
  });

  it('a BYOM computer waits for its host until PATCH sets hostId; renames too', async () => {
    const client = f.client();
    const created = await client.createComputer({ name: 'laptop', remoteUser: 'me', provider: 'byom' });
    nowMs += 60_000;
    expect((await client.getComputer(created.id)).status).toBe('provisioning');
    const patched = await client.updateComputer(created.id, {
      hostId: HOST_ID,
      name: 'laptop-2',
      remoteUser: 'dev',
    });
    expect(patched).toMatchObject({ hostId: HOST_ID, name: 'laptop-2', remoteUser: 'dev' });
    nowMs += 3000;
    expect((await client.getComputerByName('laptop-2')).status).toBe('active');
  });

  it('retrying install-deps (202) turns an error computer back to provisioning, then active', async () => {
    const client = f.client();
    const broken = (await client.listComputers()).find((c) => c.status === 'error')!;
    const retried = await client.retryInstallDeps(broken.id);
    expect(f.sim.requests.at(-1)!.status).toBe(202);
    expect(retried.status).toBe('provisioning');
    nowMs += 1000;
    expect((await client.getComputer(broken.id)).status).toBe('active');
  });

  it('errors: 404 for unknown id and name, 409 for a duplicate name', async () => {
    const client = f.client();
    await expect(client.getComputer('cmp_missing')).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.getComputerByName('missing')).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.updateComputer('cmp_missing', { name: 'x' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.retryInstallDeps('cmp_missing')).rejects.toBeInstanceOf(NotFoundError);
    const dup = await client.createComputer({ name: 'dev-box', remoteUser: 'dev' }).catch((e: unknown) => e);
    expect(dup).toBeInstanceOf(HttpError);
    expect((dup as HttpError).status).toBe(409);
  });

  it('refuses invalid input before sending, listing every problem', () => {
    const client = f.client();
    let error: unknown;
    try {
      void client.createComputer({
        name: 'x'.repeat(64),
        remoteUser: '',
        hostId: 'not-a-uuid',
        repos: Array.from({ length: 21 }, (_, i) => `https://github.com/acme/r${i}`),
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((i) => i.field).sort()).toEqual([
      'hostId',
      'name',
      'remoteUser',
      'repos',
    ]);
    expect(() =>
      client.createComputer({
        name: 'ok',
        remoteUser: 'ok',
        repos: [`https://x.example/${'a'.repeat(2048)}`],
      }),
    ).toThrow(/repos\[0\]: must be at most 2048/);
    expect(() => client.updateComputer('cmp_1', { hostId: 'zzz' })).toThrow(/hostId/);
    expect(() => client.getComputerByName('')).toThrow(/name/);
    expect(() => client.getComputer('')).toThrow(/computerId/);
    expect(f.sent).toEqual([]);
  });

  it('a computer with an unknown providerType becomes a typed error naming the field', async () => {
    f.sim.injectFault({
      path: '/api/v0/computers',
      method: 'GET',
      transform: (body) => {
        (body as { computers: Record<string, unknown>[] }).computers[0]!.providerType = 'mainframe';
        return body;
      },
    });
    const error = await f
      .client()
      .listComputers()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues[0]!.field).toBe('computers[0].providerType');
  });
});

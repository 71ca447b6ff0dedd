import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ForbiddenError,
  RequestValidationError,
  ResponseValidationError,
} from '../../../src/platform-api/errors.js';
import { collect } from '../../../src/platform-api/pagination.js';
import { useSimulator } from './sim-fixture.js';

describe('organization contract', () => {
  const f = useSimulator();

  it('users: iterates pagination.nextCursor across pages, nothing skipped or repeated', async () => {
    const pages: number[] = [];
    const users = await collect(
      f.client('member').iterateOrganizationUsers({ pageSize: 10, onPage: (p) => pages.push(p.pageItems) }),
    );
    expect(pages).toEqual([10, 10, 10, 10, 2]);
    expect(users.map((u) => u.id)).toEqual(f.sim.state.users.map((u) => u.id));
    expect(f.sim.requests.every((r) => r.query.includes('limit=10'))).toBe(true);
    // role is not in the spec: kept.
    expect((users[0] as Record<string, unknown>).role).toBeDefined();
  });

  it('users: default page of 20 with a string-typed limit accepted', async () => {
    const page = await f.client().listOrganizationUsers();
    expect(page.users).toHaveLength(20);
    expect(page.pagination.hasMore).toBe(true);
    const second = await f
      .client()
      .listOrganizationUsers({ limit: '20', cursor: page.pagination.nextCursor! });
    expect(second.users[0]!.id).toBe(f.sim.state.users[20]!.id);
  });

  it('users: a bad cursor is a 400 with the documented body', async () => {
    const error = await f
      .client()
      .listOrganizationUsers({ cursor: 'garbage' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).requestId).toMatch(/^req_/);
  });

  it('enterprise history: newest revision first, every revision once, the policy spelling kept', async () => {
    const changes = await collect(f.client('manager').iterateEnterpriseControlHistory({ pageSize: 20 }));
    expect(changes.map((c) => c.revision)).toEqual(Array.from({ length: 45 }, (_, i) => 45 - i));
    expect(changes[0]!.settings.modelPolicy).toHaveProperty('allowAllFactoryModels');
    expect(changes[0]!.user.email).toContain('@');
  });

  it('enterprise history and credit limits need Manager or Owner', async () => {
    await expect(f.client('member').listEnterpriseControlHistory()).rejects.toBeInstanceOf(ForbiddenError);
    await expect(
      f.client('member').setCreditLimits([{ email: 'a@acme.example', limit: 1 }]),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('credit limits: updated and errors are both surfaced, and the state changes', async () => {
    const known = f.sim.state.users[3]!.loginEmail;
    const result = await f.client('owner').setCreditLimits([
      { email: known, limit: 500 },
      { email: 'ghost@acme.example', limit: 10 },
      { email: f.sim.state.users[4]!.loginEmail, limit: -1 },
    ]);
    expect(result.updated).toEqual([{ email: known, limit: 500 }]);
    expect(result.errors.map((e) => e.email)).toEqual([
      'ghost@acme.example',
      f.sim.state.users[4]!.loginEmail,
    ]);
    expect(f.sim.state.creditLimits.get(known)).toBe(500);
  });

  it('refuses invalid pages and limit lists before sending', () => {
    const client = f.client();
    expect(() => client.listOrganizationUsers({ limit: '0' })).toThrow(/limit/);
    expect(() => client.listEnterpriseControlHistory({ limit: 'ten' })).toThrow(/limit/);
    expect(() => client.setCreditLimits([])).toThrow(/users: must hold 1-100 entries/);
    const many = Array.from({ length: 101 }, (_, i) => ({ email: `u${i}@acme.example`, limit: 1 }));
    expect(() => client.setCreditLimits(many)).toThrow(RequestValidationError);
    expect(() => client.setCreditLimits([{ email: 'not-an-email', limit: 1.5 }])).toThrow(
      /users\[0\]\.email.*users\[0\]\.limit/,
    );
    expect(() =>
      client.setCreditLimits([
        { email: 'a@acme.example', limit: 1 },
        { email: 'A@acme.example', limit: 2 },
      ]),
    ).toThrow(/listed twice/);
    expect(f.sent).toEqual([]);
  });

  it('a credit-limit response missing errors becomes a typed error naming the field', async () => {
    f.sim.injectFault({
      path: '/api/v0/organization/usage/limits/users',
      status: 200,
      body: { updated: [] },
    });
    const error = await f
      .client()
      .setCreditLimits([{ email: 'a@acme.example', limit: 1 }])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues[0]!.field).toBe('errors');
  });
});

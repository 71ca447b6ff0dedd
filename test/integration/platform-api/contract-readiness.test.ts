import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  RequestValidationError,
  ResponseValidationError,
  ServerError,
  UnauthorizedError,
} from '../../../src/platform-api/errors.js';
import { collect } from '../../../src/platform-api/pagination.js';
import { useSimulator } from './sim-fixture.js';

describe('readiness reports contract (app host)', () => {
  const f = useSimulator();

  it('lists reports from the app URL, newest first, with unknown fields kept', async () => {
    const { reports } = await f.client('member').listReadinessReports({ limit: 5 });
    expect(reports).toHaveLength(5);
    expect(f.sent[0]).toContain(f.sim.appUrl);
    const created = reports.map((r) => r.createdAt);
    expect(created).toEqual([...created].sort((a, b) => b - a));
    const first = reports[0]!;
    expect(first.reportId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.values(first.report)[0]).toHaveProperty('rationale');
    // repoId is not in the spec's report: tolerated and passed through.
    expect((first as Record<string, unknown>).repoId).toMatch(/^repo_/);
  });

  it('is not served on the base host', async () => {
    const res = await fetch(`${f.sim.baseUrl}/api/organization/maturity-level-reports`, {
      headers: { Authorization: `Bearer ${f.sim.keys.owner}` },
    });
    expect(res.status).toBe(404);
  });

  it('iterates with startAfter across several pages, nothing skipped or repeated, stopping on a short page', async () => {
    const client = f.client();
    const all = await collect(client.iterateReadinessReports({ pageSize: 10 }));
    expect(all).toHaveLength(f.sim.state.reports.length);
    expect(new Set(all.map((r) => r.reportId)).size).toBe(all.length);
    const requests = f.sim.requests.filter((r) => r.path.endsWith('maturity-level-reports'));
    expect(requests).toHaveLength(Math.ceil(all.length / 10));
    expect(requests[1]!.query).toContain(`startAfter=${all[9]!.reportId}`);
  });

  it('stops on an empty page when the last page is exactly full', async () => {
    const repoId = 'repo_acme_api';
    const count = f.sim.state.reports.filter((r) => r.repoId === repoId).length;
    const pages: number[] = [];
    const all = await collect(
      f.client().iterateReadinessReports({ repoId, pageSize: count, onPage: (p) => pages.push(p.pageItems) }),
    );
    expect(all).toHaveLength(count);
    expect(all.every((r) => r.repoUrl === 'https://github.com/acme/api')).toBe(true);
    expect(pages).toEqual([count, 0]);
  });

  it('documented errors: 400 on an unknown startAfter, 401 on a bad key', async () => {
    const error = await f
      .client()
      .listReadinessReports({ startAfter: 'no-such-report' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).detail).toContain('startAfter');
    await expect(
      f.client('owner', { apiKey: 'wrong-key-000000000' }).listReadinessReports(),
    ).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('documented error: 500 becomes a ServerError', async () => {
    f.sim.injectFault({
      host: 'app',
      path: '/api/organization/maturity-level-reports',
      status: 500,
      rawBody: 'upstream died',
    });
    const error = await f
      .client('owner', { retries: 0 })
      .listReadinessReports()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).bodySnippet).toBe('upstream died');
  });

  it('refuses a non-positive limit before sending', () => {
    expect(() => f.client().listReadinessReports({ limit: 0 })).toThrow(RequestValidationError);
    expect(() => f.client().listReadinessReports({ limit: 1.5 })).toThrow(/limit/);
    expect(f.sent).toEqual([]);
  });

  it('a report without its required apps becomes a typed error naming the field', async () => {
    f.sim.injectFault({
      host: 'app',
      path: '/api/organization/maturity-level-reports',
      transform: (body) => {
        delete (body as { reports: Record<string, unknown>[] }).reports[2]!.apps;
        return body;
      },
    });
    const error = await f
      .client()
      .listReadinessReports({ limit: 3 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues.map((i) => i.field)).toEqual(['reports[2].apps']);
  });
});

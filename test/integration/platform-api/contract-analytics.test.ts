import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ForbiddenError,
  RequestValidationError,
  ResponseValidationError,
  ServerError,
  UnauthorizedError,
} from '../../../src/platform-api/errors.js';
import { collect } from '../../../src/platform-api/pagination.js';
import { NOW, YESTERDAY, useSimulator } from './sim-fixture.js';

const range = { startDate: '2026-11-01', endDate: '2026-11-07' };

describe('analytics contract', () => {
  const f = useSimulator();

  it('tokens: one row per day with nested breakdowns whose totals agree', async () => {
    const res = await f.client('owner').getTokens(range);
    expect(res.data.map((r) => r.date)).toEqual([
      '2026-11-01',
      '2026-11-02',
      '2026-11-03',
      '2026-11-04',
      '2026-11-05',
      '2026-11-06',
      '2026-11-07',
    ]);
    expect(res.meta).toMatchObject({ start_date: range.startDate, end_date: range.endDate });
    expect(res.meta.org_id).toMatch(/^org_/);
    for (const row of res.data) {
      expect(row.by_model.reduce((s, m) => s + m.billable_tokens, 0)).toBe(row.billable_tokens);
      expect(row.by_user.reduce((s, u) => s + u.billable_tokens, 0)).toBe(row.billable_tokens);
      expect(row.cache_read_tokens).toBeGreaterThanOrEqual(0);
      for (const m of row.by_model) expect(['standard', 'thinking']).toContain(m.model_tier);
    }
  });

  it('tokens grouped by model: one row per day and model, flattened', async () => {
    const client = f.client('manager');
    const plain = await client.getTokens({ startDate: YESTERDAY, endDate: YESTERDAY });
    const grouped = await client.getTokens({ startDate: YESTERDAY, endDate: YESTERDAY, groupBy: 'model' });
    expect(f.sent.at(-1)).toContain('group_by=model');
    expect(grouped.data.map((r) => r.group_key).sort()).toEqual(
      plain.data[0]!.by_model.map((m) => m.model_id).sort(),
    );
    for (const row of grouped.data) {
      expect(row).not.toHaveProperty('by_model');
      const m = plain.data[0]!.by_model.find((x) => x.model_id === row.group_key)!;
      expect(row.billable_tokens).toBe(m.billable_tokens);
    }
  });

  it('tools, ungrouped and grouped by tool_name, with the documented quirks kept', async () => {
    const client = f.client();
    // 2026-01-21 is a day with a guaranteed tool-name parsing artifact.
    const tools = await client.getTools({ startDate: '2026-01-21', endDate: '2026-01-21' });
    const row = tools.data[0]!;
    expect(row.by_tool.reduce((s, t) => s + t.invocations, 0)).toBe(row.tool_calls);
    expect(row.by_tool.some((t) => /["\]}]/.test(t.tool))).toBe(true);
    const servers = row.mcp_by_server.map((s) => s.server);
    expect(servers).toContain('github');
    expect(servers).toContain('GitHub');
    expect(row.tool_autonomy_level_ratio).toHaveProperty('auto_high');
    const grouped = await client.getTools({
      startDate: '2026-01-21',
      endDate: '2026-01-21',
      groupBy: 'tool_name',
    });
    expect(grouped.data.map((g) => [g.group_key, g.tool_calls])).toEqual(
      row.by_tool.map((t) => [t.tool, t.invocations]),
    );
  });

  it('activity, ungrouped and grouped by client', async () => {
    const client = f.client();
    const activity = await client.getActivity(range);
    for (const row of activity.data) {
      expect(row.weekly_active_users).toBeGreaterThanOrEqual(row.daily_active_users);
      expect(row.monthly_active_users).toBeGreaterThanOrEqual(row.weekly_active_users);
      expect(Object.keys(row.daily_active_users_by_client).sort()).toEqual([
        'non-interactive-cli',
        'terminal-ui',
        'web',
      ]);
    }
    const grouped = await client.getActivity({ ...range, groupBy: 'client' });
    expect(grouped.data).toHaveLength(7 * 3);
    const first = activity.data[0]!;
    expect(grouped.data.find((g) => g.date === first.date && g.group_key === 'web')?.daily_active_users).toBe(
      first.daily_active_users_by_client.web,
    );
  });

  it('productivity', async () => {
    const res = await f.client().getProductivity(range);
    expect(res.data).toHaveLength(7);
    for (const row of res.data) {
      expect(row.by_language.reduce((s, l) => s + l.count, 0)).toBe(
        row.by_extension.reduce((s, e) => s + e.count, 0),
      );
    }
  });

  it('days before the earliest data exist in the range but have no rows (the client refuses them first)', async () => {
    const raw = await fetch(
      `${f.sim.baseUrl}/api/v1/analytics/productivity?startDate=2026-01-10&endDate=2026-01-15`,
      {
        headers: { Authorization: `Bearer ${f.sim.keys.owner}` },
      },
    );
    const body = (await raw.json()) as { data: { date: string }[] };
    expect(body.data.map((r) => r.date)).toEqual(['2026-01-14', '2026-01-15']);
  });

  it('users: iterates every page with nothing skipped or repeated', async () => {
    const client = f.client();
    const pages: number[] = [];
    const rows = await collect(
      client.iterateAnalyticsUsers({ ...range, pageSize: 5, onPage: (p) => pages.push(p.pageItems) }),
    );
    expect(pages.length).toBeGreaterThanOrEqual(3);
    const keys = rows.map((r) => `${r.user_id}/${r.date}`);
    expect(new Set(keys).size).toBe(keys.length);
    // The same rows as the single-day token breakdowns, user by user.
    const tokens = await client.getTokens(range);
    const expected = tokens.data.flatMap((d) => d.by_user.map((u) => `${u.user_id}/${d.date}`));
    expect([...keys].sort()).toEqual([...expected].sort());
    // Cursors were followed: every request after the first carried the previous next_cursor.
    const userRequests = f.sent.filter((s) => s.includes('/analytics/users'));
    expect(userRequests).toHaveLength(pages.length);
    expect(userRequests.slice(1).every((s) => s.includes('cursor='))).toBe(true);
    // The documented null e-mail occurs.
    expect(rows.some((r) => r.user_email === null)).toBe(true);
  });

  it('users: a single page reports has_more and next_cursor', async () => {
    const page = await f.client().getAnalyticsUsers({ ...range, limit: 3 });
    expect(page.meta.has_more).toBe(true);
    expect(page.meta.next_cursor).toBe(page.data.at(-1)!.user_id);
  });

  it('members get 403, a bad key 401', async () => {
    await expect(f.client('member').getTokens(range)).rejects.toBeInstanceOf(ForbiddenError);
    const bad = f.client('owner', { apiKey: 'fk-not-a-real-key-123456' });
    const error = await bad.getProductivity(range).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as UnauthorizedError).requestId).toMatch(/^req_/);
    expect((error as UnauthorizedError).title).toBe('Unauthorized');
  });

  it('a clock ahead of the server still gets the documented 400 for the 24-hour lag', async () => {
    // The client believes today is 2026-11-21 and sends 2026-11-20, which is the server's today.
    const client = f.client('owner', { now: () => new Date('2026-11-21T01:00:00Z') });
    const error = await client
      .getTokens({ startDate: '2026-11-20', endDate: '2026-11-20' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).status).toBe(400);
    expect((error as BadRequestError).detail).toContain('24-hour lag');
  });

  it('server-side 400s have the documented body (bypassing client validation)', async () => {
    const get = async (query: string) => {
      const res = await fetch(`${f.sim.baseUrl}/api/v1/analytics/${query}`, {
        headers: { Authorization: `Bearer ${f.sim.keys.owner}` },
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    for (const query of [
      'tokens?startDate=2026/11/01&endDate=2026-11-02',
      `tokens?startDate=2026-11-01&endDate=${NOW.toISOString().slice(0, 10)}`,
      'users?startDate=2026-11-01&endDate=2026-11-02&limit=101',
      'tools?startDate=2026-11-01&endDate=2026-11-02&group_by=model',
    ]) {
      const { status, body } = await get(query);
      expect(status, query).toBe(400);
      expect(Object.keys(body).sort()).toEqual(['detail', 'requestId', 'status', 'title']);
      expect(body.status).toBe(400);
    }
  });

  it('invalid requests are refused before anything is sent', () => {
    const client = f.client();
    const cases: [() => unknown, string][] = [
      [() => client.getTokens({ startDate: '2026-11-1', endDate: '2026-11-02' }), 'startDate'],
      [() => client.getTokens({ startDate: '2026-11-01', endDate: '2026-11-20' }), 'endDate'],
      [() => client.getTools({ startDate: '2026-01-13', endDate: '2026-01-20' }), 'startDate'],
      [() => client.getActivity({ startDate: '2026-11-05', endDate: '2026-11-01' }), 'startDate'],
      [() => client.getProductivity({ startDate: '2026-02-30', endDate: '2026-03-01' }), 'startDate'],
      [() => client.getAnalyticsUsers({ ...range, limit: 0 }), 'limit'],
      [() => client.getAnalyticsUsers({ ...range, limit: 101 }), 'limit'],
      [() => client.getTools({ ...range, groupBy: 'model' as never }), 'groupBy'],
      [() => client.iterateAnalyticsUsers({ ...range, pageSize: 500 }), 'limit'],
    ];
    for (const [call, field] of cases) {
      let error: unknown;
      try {
        void (call() as Promise<unknown>)?.catch?.(() => undefined);
      } catch (e) {
        error = e;
      }
      // Validation is synchronous: the error is thrown at the call, not later.
      expect(error, field).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).issues.map((i) => i.field)).toContain(field);
    }
    expect(f.sent).toEqual([]);
    expect(f.sim.requests).toEqual([]);
  });

  it('a 500 becomes a ServerError carrying the documented body', async () => {
    f.sim.injectFault({
      path: '/api/v1/analytics/activity',
      status: 500,
      body: {
        title: 'Internal Server Error',
        detail: 'warehouse unavailable',
        status: 500,
        requestId: 'req_x',
      },
      times: Infinity,
    });
    const error = await f
      .client('owner', { retries: 1, sleep: async () => {} })
      .getActivity(range)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ status: 500, detail: 'warehouse unavailable', requestId: 'req_x' });
    expect(f.sim.requests).toHaveLength(2);
  });

  it('keeps fields the spec does not list', async () => {
    const res = await f.client().getProductivity(range);
    expect((res.meta as Record<string, unknown>).generated_at).toBeTypeOf('string');
  });

  it('a malformed analytics row becomes a typed error naming the field', async () => {
    f.sim.injectFault({
      path: '/api/v1/analytics/tokens',
      transform: (body) => {
        const b = body as { data: Record<string, unknown>[] };
        delete b.data[1]!.billable_tokens;
        return b;
      },
    });
    const error = await f
      .client()
      .getTokens(range)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues[0]!.field).toBe('data[1].billable_tokens');
    expect((error as Error).message).toContain('data[1].billable_tokens');
  });
});

import { EARLIEST_ANALYTICS_DAY, addDays, daysBetween, isCalendarDay, utcDay } from '../dates.js';
import { requireAdmin, SimHttpError, type Route, type RouteContext } from './context.js';
import type { TokenRow, UserRow } from '../schemas/analytics.js';

/** GET {base}/api/v1/analytics/{tokens,tools,activity,productivity,users}: Manager or Owner only. */

interface Range {
  start: string;
  end: string;
  days: string[];
}

function readRange(ctx: RouteContext): Range {
  requireAdmin(ctx, 'Analytics');
  const start = ctx.query.get('startDate');
  const end = ctx.query.get('endDate');
  for (const [name, value] of [
    ['startDate', start],
    ['endDate', end],
  ] as const) {
    if (value === null) throw new SimHttpError(400, `${name} is required (YYYY-MM-DD, UTC)`);
    if (!isCalendarDay(value))
      throw new SimHttpError(400, `Invalid date format for ${name}: ${value}; expected YYYY-MM-DD`);
  }
  const today = utcDay(new Date(ctx.nowMs));
  for (const day of [start!, end!]) {
    if (day >= today) {
      throw new SimHttpError(
        400,
        `Data for ${day} is not available: analytics data has a 24-hour lag; the latest queryable date is ${addDays(today, -1)}`,
      );
    }
  }
  if (start! > end!) throw new SimHttpError(400, `startDate ${start} is after endDate ${end}`);
  // Days before the earliest data are accepted and simply have no rows.
  const first = start! < EARLIEST_ANALYTICS_DAY ? EARLIEST_ANALYTICS_DAY : start!;
  return { start: start!, end: end!, days: first <= end! ? daysBetween(first, end!) : [] };
}

function readGroupBy(ctx: RouteContext, allowed: string | null): string | null {
  const groupBy = ctx.query.get('group_by');
  if (groupBy === null) return null;
  if (allowed === null) throw new SimHttpError(400, 'group_by is not supported on this endpoint');
  if (groupBy !== allowed)
    throw new SimHttpError(400, `Invalid group_by: ${groupBy}; the only value is ${allowed}`);
  return groupBy;
}

function envelope(ctx: RouteContext, range: Range, data: unknown[], extra: Record<string, unknown> = {}) {
  return {
    status: 200,
    body: {
      data,
      meta: {
        org_id: ctx.state.orgId,
        start_date: range.start,
        end_date: range.end,
        ...extra,
        // Not in the spec: the platform adds fields; clients must tolerate them.
        generated_at: new Date(ctx.nowMs).toISOString(),
      },
    },
  };
}

/** A day's token row with the credits a script added (simulator.script.addUsage). */
function withExtraCredits(ctx: RouteContext, row: TokenRow): TokenRow {
  const extra = ctx.state.extraCredits.get(row.date);
  if (!extra || extra.size === 0) return row;
  const byUser = row.by_user.map((u) => ({ ...u }));
  let total = row.billable_tokens;
  for (const [userId, credits] of extra) {
    total += credits;
    const entry = byUser.find((u) => u.user_id === userId);
    if (entry) entry.billable_tokens += credits;
    else {
      const user = ctx.state.users.find((u) => u.id === userId);
      byUser.push({
        user_id: userId,
        user_email: user?.loginEmail ?? userId,
        billable_tokens: credits,
        by_model: [],
      });
    }
  }
  return { ...row, billable_tokens: total, by_user: byUser };
}

function tokens(ctx: RouteContext) {
  const range = readRange(ctx);
  const grouped = readGroupBy(ctx, 'model');
  const days = range.days.map((d) => withExtraCredits(ctx, ctx.analytics.day(d).tokens));
  if (!grouped) return envelope(ctx, range, days);
  return envelope(
    ctx,
    range,
    days.flatMap((row) =>
      row.by_model.map((m) => ({
        date: row.date,
        group_key: m.model_id,
        billable_tokens: m.billable_tokens,
        input_tokens: m.input_tokens,
        output_tokens: m.output_tokens,
      })),
    ),
  );
}

function tools(ctx: RouteContext) {
  const range = readRange(ctx);
  const grouped = readGroupBy(ctx, 'tool_name');
  const days = range.days.map((d) => ctx.analytics.day(d).tools);
  if (!grouped) return envelope(ctx, range, days);
  return envelope(
    ctx,
    range,
    days.flatMap((row) =>
      row.by_tool.map((t) => ({ date: row.date, group_key: t.tool, tool_calls: t.invocations })),
    ),
  );
}

function activity(ctx: RouteContext) {
  const range = readRange(ctx);
  const grouped = readGroupBy(ctx, 'client');
  const days = range.days.map((d) => ctx.analytics.day(d).activity);
  if (!grouped) return envelope(ctx, range, days);
  return envelope(
    ctx,
    range,
    days.flatMap((row) =>
      Object.entries(row.daily_active_users_by_client).map(([client, count]) => ({
        date: row.date,
        group_key: client,
        daily_active_users: count,
      })),
    ),
  );
}

function productivity(ctx: RouteContext) {
  const range = readRange(ctx);
  readGroupBy(ctx, null);
  return envelope(
    ctx,
    range,
    range.days.map((d) => ctx.analytics.day(d).productivity),
  );
}

/** A page holds every row of up to `limit` users (ordered by user ID); the cursor is the last user's ID. */
function users(ctx: RouteContext) {
  const range = readRange(ctx);
  readGroupBy(ctx, null);
  const limitText = ctx.query.get('limit') ?? '20';
  const limit = /^\d+$/.test(limitText) ? Number(limitText) : NaN;
  if (!(limit >= 1 && limit <= 100))
    throw new SimHttpError(400, `limit out of range: ${limitText}; use 1-100`);
  const cursor = ctx.query.get('cursor');
  const byUser = new Map<string, UserRow[]>();
  for (const day of range.days) {
    for (const row of ctx.analytics.day(day).users) {
      const list = byUser.get(row.user_id) ?? [];
      list.push(row);
      byUser.set(row.user_id, list);
    }
  }
  const ids = [...byUser.keys()].sort().filter((id) => cursor === null || id > cursor);
  const page = ids.slice(0, limit);
  const hasMore = ids.length > limit;
  return envelope(
    ctx,
    range,
    page.flatMap((id) => byUser.get(id)!),
    { has_more: hasMore, ...(hasMore ? { next_cursor: page[page.length - 1] } : {}) },
  );
}

const A = /^\/api\/v1\/analytics/.source;

export const analyticsRoutes: Route[] = [
  { method: 'GET', host: 'base', pattern: new RegExp(`${A}/tokens$`), handler: tokens },
  { method: 'GET', host: 'base', pattern: new RegExp(`${A}/tools$`), handler: tools },
  { method: 'GET', host: 'base', pattern: new RegExp(`${A}/activity$`), handler: activity },
  { method: 'GET', host: 'base', pattern: new RegExp(`${A}/productivity$`), handler: productivity },
  { method: 'GET', host: 'base', pattern: new RegExp(`${A}/users$`), handler: users },
];

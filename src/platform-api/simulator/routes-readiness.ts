import { SimHttpError, type Route, type RouteContext } from './context.js';

/**
 * GET {app}/api/organization/maturity-level-reports. Any role may read. Order: newest first (createdAt
 * descending, then reportId). `limit` defaults to 20 and has no upper bound; an unknown `startAfter` is a 400.
 */
function listReports(ctx: RouteContext) {
  const repoId = ctx.query.get('repoId');
  const limitText = ctx.query.get('limit');
  const startAfter = ctx.query.get('startAfter');
  let limit = 20;
  if (limitText !== null) {
    limit = /^\d+$/.test(limitText) ? Number(limitText) : NaN;
    if (!(limit >= 1)) throw new SimHttpError(400, `limit must be a positive integer, got ${limitText}`);
  }
  let reports = ctx.state.reports.filter((r) => repoId === null || r.repoId === repoId);
  if (startAfter !== null) {
    const index = reports.findIndex((r) => r.reportId === startAfter);
    if (index < 0)
      throw new SimHttpError(400, `startAfter ${startAfter} does not name a report of this listing`);
    reports = reports.slice(index + 1);
  }
  return { status: 200, body: { reports: reports.slice(0, limit).map((r) => r.body) } };
}

export const readinessRoutes: Route[] = [
  {
    method: 'GET',
    host: 'app',
    pattern: /^\/api\/organization\/maturity-level-reports$/,
    handler: listReports,
  },
];

import type { AnalyticsData } from './analytics-data.js';
import type { SimState, SimUser } from './seed.js';

/** What a simulator route handler sees, and how it answers. */

export interface RouteContext {
  state: SimState;
  analytics: AnalyticsData;
  user: SimUser;
  nowMs: number;
  query: URLSearchParams;
  /** Decoded path parameters, in the order of the route pattern's groups. */
  params: string[];
  body: unknown;
  stepMs: number;
}

export interface RouteResult {
  status: number;
  body: unknown;
}

export type Handler = (ctx: RouteContext) => RouteResult;

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  host: 'base' | 'app';
  pattern: RegExp;
  handler: Handler;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

export function statusTitle(status: number): string {
  return TITLES[status] ?? 'Error';
}

/** Thrown by handlers; the server turns it into the documented error body. */
export class SimHttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
  }
}

export function requireAdmin(ctx: RouteContext, what: string): void {
  if (ctx.user.role === 'Member') {
    throw new SimHttpError(403, `${what} requires the Manager or Owner role; this key belongs to a Member`);
  }
}

import type * as z from 'zod';
import { ApiAccessError } from './errors.js';
import { sendRequest, type FetchLike, type HttpMethod, type TransportOptions } from './http.js';
import { paginate, type PageInfo } from './pagination.js';
import { utcDay } from './dates.js';
import {
  activityQuerySchema,
  analyticsUsersQuerySchema,
  computerNameSchema,
  createComputerSchema,
  creditLimitsSchema,
  orgPageQuerySchema,
  pathIdSchema,
  productivityQuerySchema,
  readinessQuerySchema,
  tokensQuerySchema,
  toolsQuerySchema,
  updateComputerSchema,
  updateSessionSchema,
  validateRequest,
  type ActivityQuery,
  type AnalyticsUsersQuery,
  type CreateComputerInput,
  type CreditLimitEntry,
  type DateRange,
  type OrgPageQuery,
  type ReadinessQuery,
  type TokensQuery,
  type ToolsQuery,
  type UpdateComputerInput,
  type UpdateSessionInput,
} from './requests.js';
import {
  activityResponseSchema,
  groupedActivityResponseSchema,
  groupedTokensResponseSchema,
  groupedToolsResponseSchema,
  productivityResponseSchema,
  tokensResponseSchema,
  toolsResponseSchema,
  usersResponseSchema,
  type ActivityRow,
  type AnalyticsEnvelope,
  type GroupedActivityRow,
  type GroupedTokenRow,
  type GroupedToolRow,
  type ProductivityRow,
  type TokenRow,
  type ToolRow,
  type UserRow,
} from './schemas/analytics.js';
import {
  readinessReportsResponseSchema,
  type ReadinessReport,
  type ReadinessReportsResponse,
} from './schemas/readiness.js';
import { computerListResponseSchema, computerSchema, type Computer } from './schemas/computers.js';
import { messageSchema, sessionSchema, type Message, type Session } from './schemas/sessions.js';
import {
  creditLimitsResponseSchema,
  enterpriseHistoryResponseSchema,
  organizationUsersResponseSchema,
  type CreditLimitsResponse,
  type EnterpriseControlChange,
  type EnterpriseHistoryResponse,
  type OrganizationUser,
  type OrganizationUsersResponse,
} from './schemas/organization.js';
import { USER_AGENT } from '../util/version.js';

export interface PlatformClientOptions {
  /** API host: analytics (/api/v1/analytics) and management (/api/v0). E.g. https://api.factory.ai */
  baseUrl: string;
  /** Web application host: readiness reports. E.g. https://app.factory.ai */
  appUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; never logged, never part of an error. */
  apiKey: string;
  /** The fetch implementation (default: Node's global fetch). */
  fetch?: FetchLike | undefined;
  /** Deadline of one attempt, headers and body included (default 15000). */
  timeoutMs?: number | undefined;
  /** Retries of idempotent requests (GET, PUT) after network errors, timeouts, 429 and 5xx (default 2). */
  retries?: number | undefined;
  /** The clock used for the analytics date rules ("today" is its UTC day). */
  now?: (() => Date) | undefined;
  /** First backoff delay in ms, doubled at each retry (default 250). */
  retryBaseMs?: number | undefined;
  /** How the client waits between retries (tests may pass a recorder). */
  sleep?: ((ms: number) => Promise<void>) | undefined;
}

export interface IterateOptions {
  /** Items asked for per request (the endpoint's `limit`). */
  pageSize?: number | undefined;
  onPage?: ((info: PageInfo) => void) | undefined;
}

export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_RETRIES = 2;
const DEFAULT_READINESS_PAGE = 50;
const ANALYTICS = '/api/v1/analytics';

function checkUrl(label: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ApiAccessError(
      `${label} ${JSON.stringify(value)} is not a URL`,
      'use a URL such as https://api.factory.ai',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ApiAccessError(`${label} ${JSON.stringify(value)} must use http or https`);
  }
  return value.replace(/\/+$/, '');
}

function defined(query: Record<string, string | number | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) if (value !== undefined) out[key] = String(value);
  return out;
}

/**
 * The platform API client: one method per endpoint, requests validated before they are sent, responses
 * validated against the contract, async iterators for the paged lists.
 */
export class PlatformClient {
  readonly baseUrl: string;
  readonly appUrl: string;
  readonly #transport: TransportOptions;
  readonly #now: () => Date;

  constructor(options: PlatformClientOptions) {
    this.baseUrl = checkUrl('baseUrl', options.baseUrl);
    this.appUrl = checkUrl('appUrl', options.appUrl);
    if (!options.apiKey) throw new ApiAccessError('the API key is empty');
    if (/[\s\p{Cc}]/u.test(options.apiKey)) {
      throw new ApiAccessError(
        'the API key contains whitespace or control characters',
        'check the key for a stray newline',
      );
    }
    this.#now = options.now ?? (() => new Date());
    this.#transport = {
      apiKey: options.apiKey,
      fetch: options.fetch ?? ((input, init) => fetch(input, init)),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retries: options.retries ?? DEFAULT_RETRIES,
      retryBaseMs: options.retryBaseMs ?? 250,
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      userAgent: USER_AGENT,
    };
  }

  /** Not the key: a client printed or logged by accident shows only its hosts. */
  toJSON(): { baseUrl: string; appUrl: string } {
    return { baseUrl: this.baseUrl, appUrl: this.appUrl };
  }

  #today(): string {
    return utcDay(this.#now());
  }

  #send<S extends z.ZodType>(
    method: HttpMethod,
    host: 'base' | 'app',
    path: string,
    schema: S,
    options: { query?: Record<string, string>; body?: unknown } = {},
  ): Promise<z.output<S>> {
    const url = new URL(`${host === 'base' ? this.baseUrl : this.appUrl}${path}`);
    for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value);
    return sendRequest(this.#transport, { method, url, body: options.body, schema });
  }

  // ---- analytics -------------------------------------------------------------------------------

  /** A groupable analytics endpoint: the response schema follows the presence of group_by. */
  #analytics<Plain extends z.ZodType, Grouped extends z.ZodType>(
    endpoint: string,
    querySchema: (today: string) => z.ZodType<DateRange & { groupBy?: string | undefined }>,
    plain: Plain,
    grouped: Grouped,
    query: DateRange & { groupBy?: string | undefined },
  ): Promise<z.output<Plain> | z.output<Grouped>> {
    const path = `${ANALYTICS}/${endpoint}`;
    const q = validateRequest(`GET ${path}`, querySchema(this.#today()), query);
    return this.#send<Plain | Grouped>('GET', 'base', path, q.groupBy ? grouped : plain, {
      query: defined({ startDate: q.startDate, endDate: q.endDate, group_by: q.groupBy }),
    });
  }

  /** GET /api/v1/analytics/tokens: one row per day, or one per day and model with groupBy 'model'. */
  getTokens(query: DateRange & { groupBy: 'model' }): Promise<AnalyticsEnvelope<GroupedTokenRow>>;
  getTokens(query: DateRange & { groupBy?: undefined }): Promise<AnalyticsEnvelope<TokenRow>>;
  getTokens(query: TokensQuery): Promise<AnalyticsEnvelope<TokenRow | GroupedTokenRow>>;
  getTokens(query: TokensQuery): Promise<AnalyticsEnvelope<TokenRow | GroupedTokenRow>> {
    return this.#analytics(
      'tokens',
      tokensQuerySchema,
      tokensResponseSchema,
      groupedTokensResponseSchema,
      query,
    );
  }

  /** GET /api/v1/analytics/tools: one row per day, or one per day and tool with groupBy 'tool_name'. */
  getTools(query: DateRange & { groupBy: 'tool_name' }): Promise<AnalyticsEnvelope<GroupedToolRow>>;
  getTools(query: DateRange & { groupBy?: undefined }): Promise<AnalyticsEnvelope<ToolRow>>;
  getTools(query: ToolsQuery): Promise<AnalyticsEnvelope<ToolRow | GroupedToolRow>>;
  getTools(query: ToolsQuery): Promise<AnalyticsEnvelope<ToolRow | GroupedToolRow>> {
    return this.#analytics('tools', toolsQuerySchema, toolsResponseSchema, groupedToolsResponseSchema, query);
  }

  /** GET /api/v1/analytics/activity: one row per day, or one per day and client with groupBy 'client'. */
  getActivity(query: DateRange & { groupBy: 'client' }): Promise<AnalyticsEnvelope<GroupedActivityRow>>;
  getActivity(query: DateRange & { groupBy?: undefined }): Promise<AnalyticsEnvelope<ActivityRow>>;
  getActivity(query: ActivityQuery): Promise<AnalyticsEnvelope<ActivityRow | GroupedActivityRow>>;
  getActivity(query: ActivityQuery): Promise<AnalyticsEnvelope<ActivityRow | GroupedActivityRow>> {
    return this.#analytics(
      'activity',
      activityQuerySchema,
      activityResponseSchema,
      groupedActivityResponseSchema,
      query,
    );
  }

  /** GET /api/v1/analytics/productivity (no grouping). */
  getProductivity(query: DateRange): Promise<AnalyticsEnvelope<ProductivityRow>> {
    const q = validateRequest(`GET ${ANALYTICS}/productivity`, productivityQuerySchema(this.#today()), query);
    return this.#send('GET', 'base', `${ANALYTICS}/productivity`, productivityResponseSchema, {
      query: { startDate: q.startDate, endDate: q.endDate },
    });
  }

  /** GET /api/v1/analytics/users: one page; `meta.has_more` and `meta.next_cursor` lead to the next. */
  getAnalyticsUsers(query: AnalyticsUsersQuery): Promise<AnalyticsEnvelope<UserRow>> {
    const q = validateRequest(`GET ${ANALYTICS}/users`, analyticsUsersQuerySchema(this.#today()), query);
    return this.#send('GET', 'base', `${ANALYTICS}/users`, usersResponseSchema, {
      query: defined({ startDate: q.startDate, endDate: q.endDate, limit: q.limit, cursor: q.cursor }),
    });
  }

  /** Every per-user row of the range, following `meta.next_cursor` while `meta.has_more`. */
  iterateAnalyticsUsers(query: DateRange & IterateOptions): AsyncGenerator<UserRow, void> {
    const { pageSize, onPage, ...range } = query;
    // Validate now, so a bad range fails at the call rather than at the first `next()`.
    validateRequest(`GET ${ANALYTICS}/users`, analyticsUsersQuerySchema(this.#today()), {
      ...range,
      limit: pageSize,
    });
    return paginate({
      operation: `GET ${ANALYTICS}/users`,
      fetchPage: (cursor) => this.getAnalyticsUsers({ ...range, limit: pageSize, cursor }),
      itemsOf: (page) => page.data,
      nextCursor: (page) => (page.meta.has_more ? (page.meta.next_cursor ?? undefined) : undefined),
      onPage,
    });
  }

  // ---- readiness reports (app host) -------------------------------------------------------------

  /** GET {appUrl}/api/organization/maturity-level-reports: one page of reports. */
  listReadinessReports(query: ReadinessQuery = {}): Promise<ReadinessReportsResponse> {
    const path = '/api/organization/maturity-level-reports';
    const q = validateRequest(`GET ${path}`, readinessQuerySchema, query);
    return this.#send('GET', 'app', path, readinessReportsResponseSchema, {
      query: defined({ repoId: q.repoId, limit: q.limit, startAfter: q.startAfter }),
    });
  }

  /** Every report: `startAfter` is the last reportId of a page; a short or empty page is the last. */
  iterateReadinessReports(
    query: { repoId?: string | undefined } & IterateOptions = {},
  ): AsyncGenerator<ReadinessReport, void> {
    const pageSize = query.pageSize ?? DEFAULT_READINESS_PAGE;
    validateRequest('GET /api/organization/maturity-level-reports', readinessQuerySchema, {
      repoId: query.repoId,
      limit: pageSize,
    });
    return paginate({
      operation: 'GET /api/organization/maturity-level-reports',
      fetchPage: (startAfter) =>
        this.listReadinessReports({ repoId: query.repoId, limit: pageSize, startAfter }),
      itemsOf: (page) => page.reports,
      nextCursor: (_page, items) => (items.length < pageSize ? undefined : items[items.length - 1]?.reportId),
      onPage: query.onPage,
    });
  }

  // ---- computers -------------------------------------------------------------------------------

  /** POST /api/v0/computers (201). */
  createComputer(input: CreateComputerInput): Promise<Computer> {
    const body = validateRequest('POST /api/v0/computers', createComputerSchema, input);
    return this.#send('POST', 'base', '/api/v0/computers', computerSchema, { body });
  }

  /** GET /api/v0/computers. */
  async listComputers(): Promise<Computer[]> {
    const body = await this.#send('GET', 'base', '/api/v0/computers', computerListResponseSchema);
    return body.computers;
  }

  /** GET /api/v0/computers/{computerId}. */
  getComputer(computerId: string): Promise<Computer> {
    const id = validateRequest('GET /api/v0/computers/{computerId}', pathIdSchema, computerId, 'computerId');
    return this.#send('GET', 'base', `/api/v0/computers/${encodeURIComponent(id)}`, computerSchema);
  }

  /** GET /api/v0/computers/name/{name}. */
  getComputerByName(name: string): Promise<Computer> {
    const n = validateRequest('GET /api/v0/computers/name/{name}', computerNameSchema, name, 'name');
    return this.#send('GET', 'base', `/api/v0/computers/name/${encodeURIComponent(n)}`, computerSchema);
  }

  /** PATCH /api/v0/computers/{computerId}: name, hostId, remoteUser. */
  updateComputer(computerId: string, patch: UpdateComputerInput): Promise<Computer> {
    const op = 'PATCH /api/v0/computers/{computerId}';
    const id = validateRequest(op, pathIdSchema, computerId, 'computerId');
    const body = validateRequest(op, updateComputerSchema, patch);
    return this.#send('PATCH', 'base', `/api/v0/computers/${encodeURIComponent(id)}`, computerSchema, {
      body,
    });
  }

  /** POST /api/v0/computers/{computerId}/install-deps (202): retries the install-dependencies step. */
  retryInstallDeps(computerId: string): Promise<Computer> {
    const id = validateRequest(
      'POST /api/v0/computers/{computerId}/install-deps',
      pathIdSchema,
      computerId,
      'computerId',
    );
    return this.#send(
      'POST',
      'base',
      `/api/v0/computers/${encodeURIComponent(id)}/install-deps`,
      computerSchema,
    );
  }

  // ---- sessions and messages -------------------------------------------------------------------

  /** PATCH /api/v0/sessions/{sessionId}: writable sessionSettings members only. */
  updateSession(sessionId: string, input: UpdateSessionInput): Promise<Session> {
    const op = 'PATCH /api/v0/sessions/{sessionId}';
    const id = validateRequest(op, pathIdSchema, sessionId, 'sessionId');
    const body = validateRequest(op, updateSessionSchema, input);
    return this.#send('PATCH', 'base', `/api/v0/sessions/${encodeURIComponent(id)}`, sessionSchema, { body });
  }

  /** GET /api/v0/sessions/{sessionId}/messages/{messageId}. */
  getMessage(
    sessionId: string,
    messageId: string,
    options: { computerId?: string | undefined } = {},
  ): Promise<Message> {
    const op = 'GET /api/v0/sessions/{sessionId}/messages/{messageId}';
    const sid = validateRequest(op, pathIdSchema, sessionId, 'sessionId');
    const mid = validateRequest(op, pathIdSchema, messageId, 'messageId');
    if (options.computerId !== undefined) validateRequest(op, pathIdSchema, options.computerId, 'computerId');
    return this.#send(
      'GET',
      'base',
      `/api/v0/sessions/${encodeURIComponent(sid)}/messages/${encodeURIComponent(mid)}`,
      messageSchema,
      { query: defined({ computerId: options.computerId }) },
    );
  }

  // ---- organization ----------------------------------------------------------------------------

  /** GET /api/v0/organization/users: one page. */
  listOrganizationUsers(query: OrgPageQuery = {}): Promise<OrganizationUsersResponse> {
    const path = '/api/v0/organization/users';
    const q = validateRequest(`GET ${path}`, orgPageQuerySchema, query);
    return this.#send('GET', 'base', path, organizationUsersResponseSchema, {
      query: defined({ limit: q.limit, cursor: q.cursor }),
    });
  }

  /** Every organization user, following `pagination.nextCursor`. */
  iterateOrganizationUsers(options: IterateOptions = {}): AsyncGenerator<OrganizationUser, void> {
    validateRequest('GET /api/v0/organization/users', orgPageQuerySchema, { limit: options.pageSize });
    return paginate({
      operation: 'GET /api/v0/organization/users',
      fetchPage: (cursor) => this.listOrganizationUsers({ limit: options.pageSize, cursor }),
      itemsOf: (page) => page.users,
      nextCursor: (page) => (page.pagination.hasMore ? page.pagination.nextCursor : undefined),
      onPage: options.onPage,
    });
  }

  /** GET /api/v0/organization/enterprise-controls/history: one page. */
  listEnterpriseControlHistory(query: OrgPageQuery = {}): Promise<EnterpriseHistoryResponse> {
    const path = '/api/v0/organization/enterprise-controls/history';
    const q = validateRequest(`GET ${path}`, orgPageQuerySchema, query);
    return this.#send('GET', 'base', path, enterpriseHistoryResponseSchema, {
      query: defined({ limit: q.limit, cursor: q.cursor }),
    });
  }

  /** Every enterprise-control change record, following `pagination.nextCursor`. */
  iterateEnterpriseControlHistory(
    options: IterateOptions = {},
  ): AsyncGenerator<EnterpriseControlChange, void> {
    const op = 'GET /api/v0/organization/enterprise-controls/history';
    validateRequest(op, orgPageQuerySchema, { limit: options.pageSize });
    return paginate({
      operation: op,
      fetchPage: (cursor) => this.listEnterpriseControlHistory({ limit: options.pageSize, cursor }),
      itemsOf: (page) => page.changes,
      nextCursor: (page) => (page.pagination.hasMore ? page.pagination.nextCursor : undefined),
      onPage: options.onPage,
    });
  }

  /** PUT /api/v0/organization/usage/limits/users: 1-100 entries; per-user failures come back in `errors`. */
  setCreditLimits(users: readonly CreditLimitEntry[]): Promise<CreditLimitsResponse> {
    const path = '/api/v0/organization/usage/limits/users';
    const entries = validateRequest(`PUT ${path}`, creditLimitsSchema, users, 'users');
    return this.#send('PUT', 'base', path, creditLimitsResponseSchema, { body: { users: entries } });
  }
}

export { resolveApiAccess, readKeyFile, type ApiAccess } from './access.js';
export type { PageInfo } from './pagination.js';

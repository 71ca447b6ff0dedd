import * as z from 'zod';
import { createRng } from './random.js';
import { makeSteps, scheduleSteps, type SimComputer, type SimSession } from './seed.js';
import { computerStatus, viewComputer } from './computer-view.js';
import { requireAdmin, SimHttpError, type Route, type RouteContext, type RouteResult } from './context.js';
import { createComputerSchema, updateComputerSchema, updateSessionSchema } from '../requests.js';
import { fieldIssuesFromZod } from '../zod-issues.js';

/**
 * /api/v0: computers, sessions, messages, organization users, enterprise-control history, credit limits.
 * Roles (not documented; chosen here): any role may use computers, sessions, messages and the user list;
 * enterprise-control history and credit limits need Manager or Owner.
 */

function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (!result.success) {
    const detail = fieldIssuesFromZod(result.error)
      .map((i) => `${i.field}: ${i.message}`)
      .join('; ');
    throw new SimHttpError(400, `Invalid request body: ${detail}`);
  }
  return result.data as z.output<S>;
}

function findComputer(ctx: RouteContext, id: string): SimComputer {
  const computer = ctx.state.computers.find((c) => c.id === id);
  if (!computer) throw new SimHttpError(404, `No computer with id ${id}`);
  return computer;
}

function nameTaken(ctx: RouteContext, name: string, except?: SimComputer): boolean {
  return ctx.state.computers.some((c) => c !== except && c.name === name);
}

const ok = (body: unknown, status = 200): RouteResult => ({ status, body });

function createComputer(ctx: RouteContext): RouteResult {
  const input = parseBody(createComputerSchema, ctx.body);
  if (nameTaken(ctx, input.name))
    throw new SimHttpError(409, `A computer named ${input.name} already exists`);
  const serial = ++ctx.state.serial;
  const rng = createRng(ctx.state.seed, 'computer', serial);
  // Default provider when omitted (not documented): e2b, the managed one.
  const provider = input.provider ?? 'e2b';
  const repos = input.repos ?? [];
  const computer: SimComputer = {
    id: `cmp_${rng.hex(16)}`,
    name: input.name,
    providerType: provider,
    createdAt: ctx.nowMs,
    hostId: input.hostId,
    hostname: input.hostId ? `host-${input.hostId.slice(0, 8)}` : undefined,
    remoteUser: input.remoteUser,
    repos,
    autoInstallDeps: input.autoInstallDeps ?? true,
    ownerId: input.serviceAccountId ?? ctx.user.id,
    ownerPrincipalKind: input.serviceAccountId ? 'service_account' : 'user',
    steps: makeSteps(rng, provider, ctx.stepMs).filter(
      (s) => s.name !== 'install-deps' || input.autoInstallDeps !== false,
    ),
  };
  const install = computer.steps.find((s) => s.name === 'install-deps');
  if (install) {
    install.installSessionId = `sess_${rng.hex(16)}`;
    // Simulator convention: a repository whose URL contains "fail" makes dependency installation fail.
    if (repos.some((r) => r.includes('fail'))) install.failWith = 'npm ci exited with code 1';
  }
  // A BYOM computer without a host waits for one (PATCH hostId); the others start provisioning now.
  if (provider === 'e2b' || computer.hostId) scheduleSteps(computer.steps, 0, ctx.nowMs);
  ctx.state.computers.push(computer);
  return ok(viewComputer(computer, ctx.nowMs), 201);
}

function listComputers(ctx: RouteContext): RouteResult {
  return ok({ computers: ctx.state.computers.map((c) => viewComputer(c, ctx.nowMs)) });
}

function getComputer(ctx: RouteContext): RouteResult {
  return ok(viewComputer(findComputer(ctx, ctx.params[0]!), ctx.nowMs));
}

function getComputerByName(ctx: RouteContext): RouteResult {
  const name = ctx.params[0]!;
  if (name.length < 1 || name.length > 63) throw new SimHttpError(400, 'name must be 1-63 characters');
  const computer = ctx.state.computers.find((c) => c.name === name);
  if (!computer) throw new SimHttpError(404, `No computer named ${name}`);
  return ok(viewComputer(computer, ctx.nowMs));
}

function updateComputer(ctx: RouteContext): RouteResult {
  const computer = findComputer(ctx, ctx.params[0]!);
  const patch = parseBody(updateComputerSchema, ctx.body);
  if (patch.name !== undefined && nameTaken(ctx, patch.name, computer)) {
    throw new SimHttpError(409, `A computer named ${patch.name} already exists`);
  }
  if (patch.name !== undefined) computer.name = patch.name;
  if (patch.remoteUser !== undefined) computer.remoteUser = patch.remoteUser;
  if (patch.hostId !== undefined) {
    computer.hostId = patch.hostId;
    computer.hostname = `host-${patch.hostId.slice(0, 8)}`;
    // The host this computer was waiting for has connected: provisioning starts now.
    if (computer.steps[0]?.startAt === undefined) scheduleSteps(computer.steps, 0, ctx.nowMs);
  }
  return ok(viewComputer(computer, ctx.nowMs));
}

function retryInstallDeps(ctx: RouteContext): RouteResult {
  const computer = findComputer(ctx, ctx.params[0]!);
  if (computer.steps[0]?.startAt === undefined) {
    throw new SimHttpError(409, `Computer ${computer.id} has no host yet; set hostId first`);
  }
  if (computerStatus(computer, ctx.nowMs) === 'provisioning') {
    throw new SimHttpError(409, `Computer ${computer.id} is still provisioning`);
  }
  let index = computer.steps.findIndex((s) => s.name === 'install-deps');
  if (index < 0) {
    computer.steps.push({
      id: `step_${createRng(ctx.state.seed, 'step', ++ctx.state.serial).hex(10)}`,
      name: 'install-deps',
      durationMs: ctx.stepMs,
    });
    index = computer.steps.length - 1;
  }
  const step = computer.steps[index]!;
  // The retry succeeds: the simulated cause of the failure is gone.
  step.failWith = undefined;
  step.installSessionId = `sess_${createRng(ctx.state.seed, 'install', ++ctx.state.serial).hex(16)}`;
  scheduleSteps(computer.steps, index, ctx.nowMs);
  return ok(viewComputer(computer, ctx.nowMs), 202);
}

function findSession(ctx: RouteContext): SimSession {
  const session = ctx.state.sessions.get(ctx.params[0]!);
  if (!session) throw new SimHttpError(404, `No session with id ${ctx.params[0]}`);
  return session;
}

function viewSession(session: SimSession): Record<string, unknown> {
  const { messages, ...rest } = session;
  return { ...rest, messageCount: messages.length };
}

function updateSession(ctx: RouteContext): RouteResult {
  const session = findSession(ctx);
  const input = parseBody(updateSessionSchema, ctx.body);
  if (input.sessionSettings) Object.assign(session.sessionSettings, input.sessionSettings);
  session.updatedAt = ctx.nowMs;
  return ok(viewSession(session));
}

function getMessage(ctx: RouteContext): RouteResult {
  const session = findSession(ctx);
  const computerId = ctx.query.get('computerId');
  if (computerId !== null) findComputer(ctx, computerId);
  const message = session.messages.find((m) => m.id === ctx.params[1]);
  if (!message) throw new SimHttpError(404, `No message ${ctx.params[1]} in session ${session.sessionId}`);
  return ok(message);
}

/** `limit` is a string 1-100 (default 20); cursors are opaque (base64url of an offset). */
function readPage(ctx: RouteContext, total: number): { offset: number; end: number; nextCursor?: string } {
  const limitText = ctx.query.get('limit') ?? '20';
  const limit = /^\d+$/.test(limitText) ? Number(limitText) : NaN;
  if (!(limit >= 1 && limit <= 100))
    throw new SimHttpError(400, `limit must be between 1 and 100, got ${limitText}`);
  let offset = 0;
  const cursor = ctx.query.get('cursor');
  if (cursor !== null) {
    const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
    offset = /^o:\d+$/.test(decoded) ? Number(decoded.slice(2)) : NaN;
    if (!Number.isInteger(offset) || offset > total) throw new SimHttpError(400, `Invalid cursor: ${cursor}`);
  }
  const end = Math.min(total, offset + limit);
  return end < total
    ? { offset, end, nextCursor: Buffer.from(`o:${end}`).toString('base64url') }
    : { offset, end };
}

function pagination(page: { nextCursor?: string }) {
  return page.nextCursor ? { hasMore: true, nextCursor: page.nextCursor } : { hasMore: false };
}

function listUsers(ctx: RouteContext): RouteResult {
  const users = ctx.state.users;
  const page = readPage(ctx, users.length);
  return ok({
    users: users.slice(page.offset, page.end).map((u) => ({
      id: u.id,
      email: u.loginEmail,
      createdAt: u.createdAt,
      metadata: { department: u.role === 'Member' ? 'engineering' : 'management' },
      firstName: u.firstName,
      lastName: u.lastName,
      lastSignInAt: u.lastSignInAt,
      // Not in the spec: the platform adds fields; clients must tolerate them.
      role: u.role,
    })),
    pagination: pagination(page),
  });
}

function enterpriseHistory(ctx: RouteContext): RouteResult {
  requireAdmin(ctx, 'Enterprise-control history');
  const page = readPage(ctx, ctx.state.changes.length);
  return ok({ changes: ctx.state.changes.slice(page.offset, page.end), pagination: pagination(page) });
}

const creditLimitsBody = z.strictObject({
  users: z
    .array(z.looseObject({ email: z.email(), limit: z.number().int() }))
    .min(1)
    .max(100),
});

function setCreditLimits(ctx: RouteContext): RouteResult {
  requireAdmin(ctx, 'Setting credit limits');
  const input = parseBody(creditLimitsBody, ctx.body);
  const updated: { email: string; limit: number }[] = [];
  const errors: { email: string; error: string }[] = [];
  for (const entry of input.users) {
    const user = ctx.state.users.find((u) => u.loginEmail.toLowerCase() === entry.email.toLowerCase());
    // Bounds of a limit are not documented; the simulator refuses negative values per user.
    if (!user)
      errors.push({ email: entry.email, error: 'No user with this e-mail address in the organization' });
    else if (entry.limit < 0) errors.push({ email: entry.email, error: 'Limit must be zero or more' });
    else {
      ctx.state.creditLimits.set(user.loginEmail, entry.limit);
      updated.push({ email: entry.email, limit: entry.limit });
    }
  }
  return ok({ updated, errors });
}

const SEG = '([^/]+)';

export const managementRoutes: Route[] = [
  { method: 'POST', host: 'base', pattern: /^\/api\/v0\/computers$/, handler: createComputer },
  { method: 'GET', host: 'base', pattern: /^\/api\/v0\/computers$/, handler: listComputers },
  {
    method: 'GET',
    host: 'base',
    pattern: new RegExp(`^/api/v0/computers/name/${SEG}$`),
    handler: getComputerByName,
  },
  { method: 'GET', host: 'base', pattern: new RegExp(`^/api/v0/computers/${SEG}$`), handler: getComputer },
  {
    method: 'PATCH',
    host: 'base',
    pattern: new RegExp(`^/api/v0/computers/${SEG}$`),
    handler: updateComputer,
  },
  {
    method: 'POST',
    host: 'base',
    pattern: new RegExp(`^/api/v0/computers/${SEG}/install-deps$`),
    handler: retryInstallDeps,
  },
  { method: 'PATCH', host: 'base', pattern: new RegExp(`^/api/v0/sessions/${SEG}$`), handler: updateSession },
  {
    method: 'GET',
    host: 'base',
    pattern: new RegExp(`^/api/v0/sessions/${SEG}/messages/${SEG}$`),
    handler: getMessage,
  },
  { method: 'GET', host: 'base', pattern: /^\/api\/v0\/organization\/users$/, handler: listUsers },
  {
    method: 'GET',
    host: 'base',
    pattern: /^\/api\/v0\/organization\/enterprise-controls\/history$/,
    handler: enterpriseHistory,
  },
  {
    method: 'PUT',
    host: 'base',
    pattern: /^\/api\/v0\/organization\/usage\/limits\/users$/,
    handler: setCreditLimits,
  },
];

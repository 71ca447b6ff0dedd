import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnalyticsData } from './analytics-data.js';
import { createState, type SimState } from './seed.js';
import { SimHttpError, statusTitle, type Route, type RouteContext } from './context.js';
import { analyticsRoutes } from './routes-analytics.js';
import { createScript, type SimulatorScript } from './script.js';
import { managementRoutes } from './routes-management.js';
import { readinessRoutes } from './routes-readiness.js';

/**
 * The platform simulator: two loopback listeners, one for {base_url} (analytics, v0) and one for
 * {app_url} (readiness reports), sharing one seeded organization.
 */

export interface SimulatorOptions {
  /** Port of the base URL listener (0 or absent: any free port). */
  port?: number | undefined;
  /** Port of the app URL listener (absent: port + 1 when port is set, else any free port). */
  appPort?: number | undefined;
  seed?: string | number | undefined;
  /** The simulator's clock: "today", the 24-hour lag rule and provisioning progress use it. */
  now?: (() => Date) | undefined;
  /** How long each provisioning step of a computer takes on the simulator's clock (default 2000). */
  provisionStepMs?: number | undefined;
}

/** A scripted misbehaviour for tests: answer with a status/body, delay, or rewrite the real answer. */
export interface SimulatorFault {
  path: string | RegExp;
  method?: string | undefined;
  host?: 'base' | 'app' | undefined;
  status?: number | undefined;
  /** JSON body to answer with (with `status`, default 200). */
  body?: unknown;
  /** Raw text to answer with instead of JSON. */
  rawBody?: string | undefined;
  headers?: Record<string, string> | undefined;
  /** Rewrites the body of the real answer (to drop a required field, for instance). */
  transform?: ((body: unknown) => unknown) | undefined;
  /** Wait before answering. */
  delayMs?: number | undefined;
  /** How many requests the fault applies to (default 1; Infinity for all). */
  times?: number | undefined;
}

export interface SimulatorRequest {
  host: 'base' | 'app';
  method: string;
  path: string;
  query: string;
  status: number;
  /** The role of the key, when it was valid. */
  role?: string | undefined;
}

export interface Simulator {
  baseUrl: string;
  appUrl: string;
  keys: { owner: string; manager: string; member: string };
  /** The live state (tests may inspect it). */
  state: SimState;
  /** Every request received, in order. */
  requests: SimulatorRequest[];
  /** Scripted changes to the organization (docs/watch.md): what the next request sees. */
  script: SimulatorScript;
  injectFault(fault: SimulatorFault): void;
  clearFaults(): void;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;
const MAX_LOGGED_REQUESTS = 10_000;
const ROUTES: Route[] = [...analyticsRoutes, ...managementRoutes, ...readinessRoutes];

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES)
        reject(new SimHttpError(413, `Request body exceeds ${MAX_BODY_BYTES} bytes`));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const seed = String(options.seed ?? 'hookd');
  const now = options.now ?? (() => new Date());
  const stepMs = options.provisionStepMs ?? 2000;
  const state = createState(seed, now().getTime(), stepMs);
  const analytics = new AnalyticsData(seed, state.users);
  const faults: (SimulatorFault & { left: number })[] = [];
  const requests: SimulatorRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let counter = 0;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  function takeFault(host: 'base' | 'app', method: string, path: string) {
    const index = faults.findIndex(
      (f) =>
        (!f.host || f.host === host) &&
        (!f.method || f.method.toUpperCase() === method) &&
        (typeof f.path === 'string' ? f.path === path : f.path.test(path)),
    );
    if (index < 0) return undefined;
    const fault = faults[index]!;
    if (--fault.left <= 0) faults.splice(index, 1);
    return fault;
  }

  function route(host: 'base' | 'app', method: string, path: string): { route: Route; params: string[] } {
    const onPath = ROUTES.filter((r) => r.host === host && r.pattern.test(path));
    if (onPath.length === 0) throw new SimHttpError(404, `No route for ${path}`);
    const chosen = onPath.find((r) => r.method === method);
    if (!chosen) throw new SimHttpError(405, `${method} is not allowed on ${path}`);
    const match = chosen.pattern.exec(path)!;
    try {
      return { route: chosen, params: match.slice(1).map((p) => decodeURIComponent(p)) };
    } catch {
      throw new SimHttpError(400, `Malformed path ${path}`);
    }
  }

  async function handle(host: 'base' | 'app', req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = `req_${seed.replace(/[^A-Za-z0-9]/g, '').slice(0, 8) || 'sim'}_${String(++counter).padStart(6, '0')}`;
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://simulator.invalid');
    const record: SimulatorRequest = { host, method, path: url.pathname, query: url.search, status: 0 };
    if (requests.length < MAX_LOGGED_REQUESTS) requests.push(record);

    const send = (status: number, body: unknown, raw?: string, headers: Record<string, string> = {}) => {
      record.status = status;
      if (res.writableEnded || res.destroyed) return;
      res.writeHead(status, {
        'content-type': raw === undefined ? 'application/json' : 'text/plain',
        'x-request-id': requestId,
        ...headers,
      });
      res.end(raw ?? JSON.stringify(body));
    };
    const sendError = (status: number, detail: string, headers?: Record<string, string>) =>
      send(status, { title: statusTitle(status), detail, status, requestId }, undefined, headers);

    try {
      const text = await readBody(req);
      const fault = takeFault(host, method, url.pathname);
      if (fault?.delayMs) await sleep(fault.delayMs);
      if (fault && (fault.status !== undefined || fault.body !== undefined || fault.rawBody !== undefined)) {
        return send(fault.status ?? 200, fault.body, fault.rawBody, fault.headers);
      }
      const auth = req.headers.authorization ?? '';
      const key = /^Bearer (\S+)$/.exec(auth)?.[1];
      const user = key ? state.userByKey.get(key) : undefined;
      if (!user)
        return sendError(401, auth ? 'Invalid API key' : 'Missing Authorization header (Bearer API key)');
      record.role = user.role;
      const found = route(host, method, url.pathname);
      let body: unknown;
      if (text.trim()) {
        try {
          body = JSON.parse(text);
        } catch {
          throw new SimHttpError(400, 'Request body is not valid JSON');
        }
      }
      const ctx: RouteContext = {
        state,
        analytics,
        user,
        nowMs: now().getTime(),
        query: url.searchParams,
        params: found.params,
        body,
        stepMs,
      };
      const result = found.route.handler(ctx);
      send(
        result.status,
        fault?.transform ? fault.transform(result.body) : result.body,
        undefined,
        fault?.headers,
      );
    } catch (error) {
      if (error instanceof SimHttpError) return sendError(error.status, error.detail);
      sendError(500, `Internal error: ${(error as Error).message}`);
    }
  }

  const servers = {
    base: createServer((req, res) => void handle('base', req, res)),
    app: createServer((req, res) => void handle('app', req, res)),
  };
  const basePort = await listen(servers.base, options.port ?? 0);
  let appPort: number;
  try {
    appPort = await listen(servers.app, options.appPort ?? (options.port ? options.port + 1 : 0));
  } catch (error) {
    await closeServer(servers.base);
    throw error;
  }

  return {
    baseUrl: `http://127.0.0.1:${basePort}`,
    appUrl: `http://127.0.0.1:${appPort}`,
    keys: { ...state.keys },
    state,
    requests,
    script: createScript(state, () => now().getTime()),
    injectFault: (fault) => faults.push({ ...fault, left: fault.times ?? 1 }),
    clearFaults: () => void faults.splice(0),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.all([closeServer(servers.base), closeServer(servers.app)]);
    },
  };
}

import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { ConfigMemory, loadConfig, type LoadedConfig } from '../config/load.js';
import { validator } from '../config/resolve.js';
import { runEvent, type HandOff } from '../hook/process-event.js';
import { createLineLoggerPool } from '../logging/line-logger.js';
import { logFilePath, userConfigPath, type Env } from '../paths.js';
import type { SpawnLike } from '../runner/run-command.js';
import { HTTP_HOOK_PATH, ensureHttpToken } from './http-credential.js';

/**
 * The listener of Claude Code's `type: "http"` hooks (docs/hook.md, "Claude Code's http hooks"): Claude
 * POSTs the event JSON to http://127.0.0.1:<port>/hookd/v1/claude with `Authorization: Bearer <token>`.
 * The port is the config's (stable: the URL is in Claude's settings) and the token is the state dir's
 * (stable across restarts: Claude fills headers once per session). Only observe-only events come this
 * way; the event is parsed and handed to ingest (the journal) exactly as the hook's hand-off, then the
 * answer is 200 `{}`. 401 without the token, 413 over the body cap, 400 for what is not an event,
 * 404/405 elsewhere; each refusal is logged (without the presented token).
 */

export const HTTP_HOOK_MAX_BYTES = 8 * 1024 * 1024;
/** Request bodies held at once, all requests together; past it a request is refused (503, busy). */
export const HTTP_HOOK_MAX_INFLIGHT_BYTES = 32 * 1024 * 1024;

export interface HttpHooksOptions {
  env: Env;
  port: number;
  /** 127.0.0.1 unless a test says otherwise. */
  host?: string;
  logger: Logger;
  /** The config the daemon holds, when it is in force. */
  heldConfig: () => LoadedConfig | undefined;
  /** Hands the event to rules and the ledger (ingest -> journal -> pipeline). */
  handOff: HandOff;
  /** The project dir of a session, when the daemon knows it (its SessionStart came through a command). */
  projectDirOf?: (sessionId: string) => string | undefined;
  stopping: () => boolean;
  maxBodyBytes?: number;
  maxInflightBytes?: number;
  now?: () => number;
  /** How commands start, should an event that came over http run any (the daemon's spawner). */
  spawn?: SpawnLike;
}

export interface HttpHooksServer {
  port: number;
  close(): Promise<void>;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time check of an Authorization header against the token. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const presented = /^Bearer (\S+)$/.exec(header ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(presented), digest(token)) && presented.length > 0;
}

function reply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * Reads the body up to `max` bytes, each chunk reserved from the listener's budget of bytes held at once
 * (`reserve` false: refused as busy). What is not kept is drained. The reservation is the caller's to release.
 */
function readBody(
  req: IncomingMessage,
  max: number,
  reserve: (bytes: number) => boolean,
): Promise<{ body: Buffer; held: number } | { refused: 'too large' | 'busy'; held: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let held = 0;
    let refused: 'too large' | 'busy' | undefined;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (refused) return;
      if (size > max) refused = 'too large';
      else if (!reserve(chunk.length)) refused = 'busy';
      if (refused) {
        chunks.length = 0;
        return;
      }
      held += chunk.length;
      chunks.push(chunk);
    });
    req.on('end', () => resolve(refused ? { refused, held } : { body: Buffer.concat(chunks), held }));
    req.on('error', reject);
  });
}

/** The session id and cwd of a payload, read leniently (for the env an http event lacks). */
function sessionFields(bytes: Buffer): { sessionId?: string; cwd?: string } {
  try {
    const p = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    return {
      ...(typeof p.session_id === 'string' ? { sessionId: p.session_id } : {}),
      ...(typeof p.cwd === 'string' ? { cwd: p.cwd } : {}),
    };
  } catch {
    return {};
  }
}

/** Starts the listener on 127.0.0.1:<port>; the token is read (or created) once, at start. */
export async function startHttpHooks(options: HttpHooksOptions): Promise<HttpHooksServer> {
  const log = options.logger;
  const max = options.maxBodyBytes ?? HTTP_HOOK_MAX_BYTES;
  // Memory is bounded whatever local peers send: bodies held at once, across all requests.
  const maxInflight = options.maxInflightBytes ?? HTTP_HOOK_MAX_INFLIGHT_BYTES;
  let inflight = 0;
  const { token } = ensureHttpToken(options.env);
  const sockets = new Set<Socket>();

  // Validated configs per project dir, checked by stats on each event (an edit is seen at once).
  const configMemory = new ConfigMemory(64);
  // The hook log kept open across events (reopened every second: rotations by other processes).
  const lineLoggers = createLineLoggerPool();
  const configFor = (projectDir: string | undefined, env: Env): LoadedConfig => {
    const held = options.heldConfig();
    if (held && projectDir === undefined && userConfigPath(env) === userConfigPath(options.env)) return held;
    return loadConfig({ env, projectDir, validator: () => validator, memory: configMemory });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const remote = `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`;
    const refuse = (status: number, reason: string) => {
      log.warn({ kind: 'http-hook', remote, status, reason }, `http hook request refused: ${reason}`);
      req.resume();
      reply(res, status, JSON.stringify({ error: reason }));
    };
    const path = (req.url ?? '').split('?')[0];
    if (path !== HTTP_HOOK_PATH) return refuse(404, 'not found');
    if (req.method !== 'POST') return refuse(405, 'only POST');
    if (!bearerMatches(req.headers.authorization, token))
      return refuse(401, req.headers.authorization ? 'wrong token' : 'no token');
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
      return refuse(400, 'Content-Type must be application/json');
    if (Number(req.headers['content-length'] ?? 0) > max) return refuse(413, 'body too large');
    if (options.stopping()) return refuse(503, 'stopping');
    const read = await readBody(req, max, (bytes) => {
      if (inflight + bytes > maxInflight) return false;
      inflight += bytes;
      return true;
    });
    try {
      if ('refused' in read)
        return refuse(
          read.refused === 'busy' ? 503 : 413,
          read.refused === 'busy' ? 'busy' : 'body too large',
        );
      await runOne(res, read.body, refuse);
    } finally {
      inflight -= read.held;
    }
  };

  /** Runs one event's bytes as the hook would, hands it to ingest, answers. */
  const runOne = async (
    res: ServerResponse,
    body: Buffer,
    refuse: (status: number, reason: string) => void,
  ): Promise<void> => {
    // An http event carries no environment: the session's project dir (or the payload's cwd) stands in.
    const { sessionId, cwd } = sessionFields(body);
    const projectDir = (sessionId && options.projectDirOf?.(sessionId)) || cwd;
    const env: Env = { ...options.env, HOOKD_AGENT: 'claude', HOOKD_TRANSPORT: 'http' };
    // The daemon's own environment says nothing about this session; the event is already at the daemon.
    delete env.CLAUDE_PROJECT_DIR;
    delete env.HOOKD_DAEMON;
    if (projectDir) env.CLAUDE_PROJECT_DIR = projectDir;
    const lineLogger = lineLoggers.get(logFilePath(options.env));
    const ran = await runEvent(
      { bytes: body, env, cwd: cwd ?? options.env.HOME ?? '/', agent: 'claude' },
      {
        logger: lineLogger,
        validator: () => validator,
        loadConfig: configFor,
        handOff: options.handOff,
        ...(options.now ? { now: options.now } : {}),
        ...(options.spawn ? { spawn: options.spawn } : {}),
      },
    );
    const { report } = ran;
    if (report.rejected) return refuse(400, `not an event: ${report.rejected.reason}`);
    if (report.ran.length > 0)
      log.warn(
        { kind: 'http-hook', event: report.event?.name, commands: report.ran.length },
        'an event that came over http ran commands: their decisions cannot reach Claude Code; run `hookd install --agent claude --transport http` again',
      );
    if (report.handoff?.outcome !== 'acked')
      return refuse(503, `event not taken: ${report.handoff?.error ?? 'hand-off off'}`);
    log.debug(
      {
        kind: 'http-hook',
        event: report.event?.name,
        eventId: report.event?.id,
        sessionId: report.event?.sessionId,
      },
      'event taken over http',
    );
    reply(res, 200, '{}');
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      log.error({ kind: 'http-hook', error: error.message }, 'http hook request failed');
      if (!res.headersSent) reply(res, 500, '{"error":"internal"}');
      else res.destroy();
    });
  });
  // Bounded whatever a local peer does: few connections, short-lived, headers capped by node:http.
  server.maxConnections = 256;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: options.host ?? '127.0.0.1', port: options.port }, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  log.info({ kind: 'http-hook', port }, 'http hook listener ready on 127.0.0.1');
  return {
    port,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      lineLoggers.close();
    },
  };
}

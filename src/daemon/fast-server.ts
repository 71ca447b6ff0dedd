import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import { validator } from '../config/resolve.js';
import type { DeclaredAgent } from '../events/parse.js';
import type { EventHandoff } from '../events/types.js';
import { runEvent, type HandOff } from '../hook/process-event.js';
import { createLineLogger } from '../logging/line-logger.js';
import { logFilePath, userConfigPath, type Env } from '../paths.js';
import { writePrivateFileAtomic } from '../util/private-fs.js';

/**
 * The fast listener (issue 12, experimental): the bash client (bin/hookd-client.bash) forwards one
 * event, the daemon runs it with `runEvent` and answers. Protocol, one event per connection:
 *
 *   daemon: `HOOKD-FAST1 <daemon secret>\n`               (the client sends nothing until this matches)
 *   client: five lines `<token>\n<agent>\n<umask>\n<ppid>\n<stdin bytes>\n` (what `umask` and `wc -c`
 *           print), then <cwd>\0 <NAME=value\0>... \0 (an empty entry ends it), then the stdin bytes
 *   daemon: `ACK <request id>\n`  or  `DENY <reason>\n` and close
 *   client: `GO\n`                                        (the client's point of no return)
 *   daemon: `RESULT <exit code> <stdout bytes> <stderr bytes>\n` <stdout> <stderr>, close
 *
 * A request is run only after GO: a client that gave up before the ACK (a stopped daemon) has closed
 * the connection and fallen back to the Node path, and never sends it, so no command runs twice.
 */

export const FAST_PROTOCOL = 'HOOKD-FAST1';
/** The listener file in the private runtime dir: `<port> <daemon secret> <client token>\n`, 0600. */
export const FAST_FILE = 'hookd.fast';

export interface FastLimits {
  /** The stdin bytes of one event (the hook's own default limit). */
  maxPayloadBytes: number;
  /** cwd and environment together. */
  maxEnvBytes: number;
  /** From connect to the whole request, and from ACK to GO. */
  requestTimeoutMs: number;
}

export const FAST_LIMITS: FastLimits = {
  maxPayloadBytes: 8 * 1024 * 1024,
  maxEnvBytes: 1024 * 1024,
  requestTimeoutMs: 10_000,
};
const MAX_HEADER_BYTES = 512;

export interface FastServerOptions {
  env: Env;
  runtimeDir: string;
  logger: Logger;
  /** The config the daemon holds (the whole file, validated as the hook does), when it is in force. */
  heldConfig: () => LoadedConfig | undefined;
  /** Hands the event to rules and the ledger (ingest -> journal -> pipeline). */
  handOff: HandOff;
  stopping: () => boolean;
  limits?: Partial<FastLimits>;
}

export interface FastServer {
  port: number;
  file: string;
  close(): Promise<void>;
  /** Events whose commands are running now. */
  running(): number;
}

export interface FastRequest {
  token: string;
  agent: DeclaredAgent | undefined;
  umask: number | undefined;
  ppid: number | undefined;
  cwd: string;
  env: Env;
  bytes: Buffer;
}

const digest = (s: string | Buffer) => createHash('sha256').update(s).digest();

/** Constant-time comparison of a presented token with the expected one (hashed: equal lengths). */
export function tokenMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

/** Parses `cwd\0 NAME=value\0 ... \0` (the section ends with an empty entry). */
export function parseEnvSection(section: Buffer): { cwd: string; env: Env } {
  const parts = section.toString('utf8').split('\0');
  const cwd = parts[0] ?? '';
  const env: Env = Object.create(null) as Env;
  for (const entry of parts.slice(1)) {
    const eq = entry.indexOf('=');
    if (eq <= 0) continue;
    env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return { cwd, env: { ...env } };
}

/**
 * Reads one request from a socket with bounded memory: the header line (at most 512 bytes, checked
 * before anything else is kept), then the env section (at most maxEnvBytes), then exactly the announced
 * stdin bytes (at most maxPayloadBytes).
 */
class RequestReader {
  private chunks: Buffer[] = [];
  private size = 0;
  header: string[] | undefined;
  private headerBytes = 0;
  private envEnd = -1;
  private lastByte = -1;
  private payloadBytes = 0;
  constructor(
    private readonly limits: FastLimits,
    /** The token check, done on the first line before anything else is read. */
    private readonly tokenOk: (presented: string) => boolean,
  ) {}

  /** Feeds a chunk: 'more', 'done' (with what follows the request), or a refusal reason. */
  push(
    chunk: Buffer,
  ): { state: 'more' } | { state: 'done'; rest: Buffer } | { state: 'bad'; reason: string } {
    this.chunks.push(chunk);
    const before = this.size;
    this.size += chunk.length;
    if (!this.header) {
      const all = Buffer.concat(this.chunks);
      this.chunks = [all];
      const first = all.indexOf(10);
      if (
        first >= 0 &&
        (first > MAX_HEADER_BYTES || !this.tokenOk(all.subarray(0, first).toString('latin1')))
      )
        return { state: 'bad', reason: 'bad token' };
      let nl = -1;
      for (let line = 0; line < 5; line++) {
        nl = all.indexOf(10, nl + 1);
        if (nl < 0 || nl > MAX_HEADER_BYTES) break;
      }
      if (nl < 0)
        return all.length > MAX_HEADER_BYTES
          ? { state: 'bad', reason: 'header too long' }
          : { state: 'more' };
      if (nl > MAX_HEADER_BYTES) return { state: 'bad', reason: 'header too long' };
      this.header = all
        .subarray(0, nl)
        .toString('latin1')
        .split('\n')
        .map((field) => field.trim());
      this.headerBytes = nl + 1;
      const len = this.header[4];
      if (!len || !/^\d{1,9}$/.test(len)) return { state: 'bad', reason: 'bad header' };
      this.payloadBytes = Number(len);
      if (this.payloadBytes > this.limits.maxPayloadBytes)
        return { state: 'bad', reason: 'payload too large' };
      return this.scan(this.headerBytes);
    }
    return this.scan(before);
  }

  /** Looks for the end of the env section (`\0\0`) from `from`, then waits for the payload bytes. */
  private scan(from: number): ReturnType<RequestReader['push']> {
    if (this.envEnd < 0) {
      let offset = 0;
      for (const chunk of this.chunks) {
        const end = offset + chunk.length;
        if (end > from) {
          for (let i = Math.max(from - offset, 0); i < chunk.length; i++) {
            const b = chunk[i]!;
            const at = offset + i;
            if (b === 0 && this.lastByte === 0 && at > this.headerBytes + 1) {
              this.envEnd = at + 1;
              break;
            }
            this.lastByte = b;
          }
        }
        if (this.envEnd >= 0) break;
        offset = end;
      }
      if (this.envEnd < 0) {
        return this.size - this.headerBytes > this.limits.maxEnvBytes
          ? { state: 'bad', reason: 'environment too large' }
          : { state: 'more' };
      }
      if (this.envEnd - this.headerBytes > this.limits.maxEnvBytes)
        return { state: 'bad', reason: 'environment too large' };
    }
    const total = this.envEnd + this.payloadBytes;
    if (this.size < total) return { state: 'more' };
    const all = Buffer.concat(this.chunks);
    this.chunks = [all];
    return { state: 'done', rest: all.subarray(total) };
  }

  request(): FastRequest {
    const all = this.chunks[0]!;
    const h = this.header!;
    const section = all.subarray(this.headerBytes, this.envEnd - 1);
    const { cwd, env: forwarded } = parseEnvSection(section);
    // As `hookd hook` does (src/bin/hook.ts): a default the forwarded environment may override.
    const bin = process.argv[1];
    const env: Env = bin ? { HOOKD_HOOKS_DIR: join(dirname(bin), '..', 'hooks'), ...forwarded } : forwarded;
    const agent = h[1] === 'droid' || h[1] === 'claude' ? h[1] : undefined;
    const umask = /^[0-7]{1,4}$/.test(h[2] ?? '') ? parseInt(h[2]!, 8) : undefined;
    const ppid = /^\d{1,10}$/.test(h[3] ?? '') ? Number(h[3]) : undefined;
    return {
      token: h[0]!,
      agent,
      umask,
      ppid,
      cwd,
      env,
      bytes: Buffer.from(all.subarray(this.envEnd, this.envEnd + this.payloadBytes)),
    };
  }
}

/**
 * Starts the fast listener on 127.0.0.1 (port 0) and writes its port and two fresh secrets to the
 * private runtime dir. The secrets are never logged.
 */
export async function startFastServer(options: FastServerOptions): Promise<FastServer> {
  const limits: FastLimits = { ...FAST_LIMITS, ...options.limits };
  const log = options.logger;
  const daemonSecret = randomBytes(24).toString('hex');
  const token = randomBytes(24).toString('hex');
  const greeting = Buffer.from(`${FAST_PROTOCOL} ${daemonSecret}\n`);
  const sockets = new Set<Socket>();
  let running = 0;
  let requests = 0;

  const configFor = (projectDir: string | undefined, env: Env): LoadedConfig => {
    const held = options.heldConfig();
    if (held && projectDir === undefined && userConfigPath(env) === userConfigPath(options.env)) return held;
    return loadConfig({ env, projectDir, validator: () => validator });
  };

  const serve = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.setNoDelay(true);
    const remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    const abort = new AbortController();
    let phase: 'request' | 'acked' | 'running' | 'done' = 'request';
    const reader = new RequestReader(limits, (presented) => tokenMatches(presented, token));
    let request: FastRequest | undefined;
    let after = Buffer.alloc(0);
    const timer = setTimeout(() => {
      if (phase === 'request' || phase === 'acked')
        log.warn({ kind: 'fast', remote, phase }, 'fast client request timed out; closed');
      if (phase !== 'running') socket.destroy(); // also a refused peer that does not hang up
    }, limits.requestTimeoutMs);
    timer.unref();
    socket.once('close', () => {
      clearTimeout(timer);
      if (phase === 'running') {
        log.warn({ kind: 'fast', remote }, 'fast client went away before the answer; killing the event');
        abort.abort();
      } else if (phase === 'acked') {
        log.info({ kind: 'fast', remote }, 'fast client closed before GO; the event was not run here');
      }
    });
    const refuse = (reason: string) => {
      phase = 'done';
      log.warn({ kind: 'fast', remote, reason }, 'fast client request refused');
      socket.end(`DENY ${reason.replace(/\s+/g, '-')}\n`);
    };
    const onGo = (rest: Buffer) => {
      after = Buffer.concat([after, rest]);
      if (after.length < 3) return;
      if (after.subarray(0, 3).toString('latin1') !== 'GO\n') {
        socket.destroy();
        phase = 'done';
        return;
      }
      phase = 'running';
      clearTimeout(timer);
      void run(request!);
    };
    const run = async (req: FastRequest) => {
      running++;
      const lineLogger = createLineLogger(logFilePath(req.env));
      try {
        let reply: { exitCode: number; stdout: string; stderr: string };
        if (req.env.HOOKD === '0') reply = { exitCode: 0, stdout: '', stderr: '' };
        else if (Number(req.env.HOOKD_DEPTH ?? 0) >= 4) {
          lineLogger.log(
            'warn',
            { kind: 'recursion', depth: req.env.HOOKD_DEPTH },
            'hookd called from its own commands 4 levels deep; ignoring the event',
          );
          reply = { exitCode: 0, stdout: '', stderr: '' };
        } else {
          reply = await runEvent(
            { bytes: req.bytes, env: req.env, cwd: req.cwd, umask: req.umask, agent: req.agent },
            {
              logger: lineLogger,
              validator: () => validator,
              loadConfig: configFor,
              handOff: options.handOff,
              signal: abort.signal,
            },
          );
        }
        if (socket.destroyed) return;
        const out = Buffer.from(reply.stdout);
        const err = Buffer.from(reply.stderr);
        socket.end(
          Buffer.concat([Buffer.from(`RESULT ${reply.exitCode} ${out.length} ${err.length}\n`), out, err]),
        );
      } catch (error) {
        log.error({ kind: 'fast', error: (error as Error).message }, 'fast event failed');
        socket.destroy();
      } finally {
        phase = 'done';
        running--;
        lineLogger.close();
      }
    };
    socket.on('data', (chunk: Buffer) => {
      if (phase === 'acked') return onGo(chunk);
      if (phase !== 'request') return;
      const r = reader.push(chunk);
      if (r.state === 'more') return;
      if (r.state === 'bad') return refuse(r.reason);
      if (options.stopping()) return refuse('stopping');
      request = reader.request();
      const id = `f${process.pid}-${++requests}`;
      phase = 'acked';
      socket.write(`ACK ${id}\n`);
      if (r.rest.length > 0) onGo(r.rest);
    });
    socket.write(greeting);
  };

  const server: Server = createServer({ allowHalfOpen: false }, serve);
  // Bounded whatever local peers do: at most this many connections, each capped in size and time.
  server.maxConnections = 1024;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const file = join(options.runtimeDir, FAST_FILE);
  writePrivateFileAtomic(file, `${port} ${daemonSecret} ${token}\n`, { ensureDir: false });
  log.info({ kind: 'fast', port }, 'fast listener ready on 127.0.0.1');

  return {
    port,
    file,
    running: () => running,
    close: async () => {
      rmSync(file, { force: true });
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

export type { EventHandoff };

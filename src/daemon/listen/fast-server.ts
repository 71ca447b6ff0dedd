import { isAgentId } from '../../agents/ids.js';
import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ConfigMemory, loadConfig, type LoadedConfig } from '../../config/load.js';
import { validator } from '../../config/resolve.js';
import { parseEvent, type DeclaredAgent, type ParseResult } from '../../events/parse.js';
import type { EventHandoff } from '../../events/types.js';
import { runEvent, type HandOff } from '../../hook-path/process-event.js';
import { guardsAtStake, identifyUnreadable } from '../../hook-path/unreadable.js';
import { scanJson } from '../../events/json-scan.js';
import { DEFAULTS } from '../../config/defaults.js';
import { configWarningPending } from '../../hook-path/config-report.js';
import { createLineLoggerPool } from '../../logging/line-logger.js';
import { planCommands } from '../../runner/route.js';
import type { SpawnLike } from '../../runner/run-command.js';
import { logFilePath, type Env } from '../../paths.js';
import { writePrivateFileAtomic } from '../../util/private-fs.js';
import { readStdinCopy, releaseStdinCopy, sweepStdinCopies } from '../../util/stdin-copy.js';
import { listenInDir } from '../../util/unix-socket.js';
import { hookdLocation } from '../../util/hookd-location.js';
import {
  FAST_HELLO,
  FAST_PROTOCOL,
  FAST_CLIENT_VERSIONS,
  FAST_SOCKET,
  LEGACY_FAST_FILE,
  FAST_STATUS_FILE,
  FAST_INLINE_MAX,
  FAST_LINE_MAX,
} from '../../link/wire.js';
import type { FastStatus } from '../../link/fast-status.js';
import { clearInflight, diedOutcome, recordInflight } from '../../journal/inflight.js';
import { sessionOf } from './accepted.js';
import { OnceBook, onceKey, type Follow, type Lead, type OnceReply } from './once.js';

/**
 * The fast listener: the native client (native/hookd-client.c) forwards one event over the unix socket
 * `fast.sock` in the private runtime dir, the daemon runs it with `runEvent` and answers. Only this user
 * can reach the socket (the runtime dir is 0700 and theirs), and the client checks, before it sends a
 * byte, that the dir and socket are the user's own and that the process listening runs as the user
 * (SO_PEERCRED / getpeereid): no port, no secret on the wire, nothing another user can squat or replay.
 * Protocol 3, one event per connection:
 *
 *   client: `HOOKD-FAST <protocol> <client version>\n<agent>\n<event>\n<umask>\n<stdin>\n` (agent
 *           `droid`, `claude` or `-`; event the name install put on the command line or `-`; umask as
 *           `umask` prints it; stdin `eof`, or `timeout` when the agent did not close it within
 *           HOOKD_STDIN_TIMEOUT_MS of its last byte: the bytes are what came), then `<cwd>\0<stdin copy path>\0`, then the environment as `NAME=value\0`...
 *           and an empty entry `\0`; with `-` for the copy's path, the stdin bytes follow inline, ended
 *           by a NUL (the client sends inline a stdin of at most 60 KiB without a NUL byte)
 *   daemon: `DENY <reason>\n` (versions, caps, a stdin copy that is not one), or
 *           `LOCAL\n` (a command of this event is marked "local": the client runs the Node path), or
 *           `ACK <lost code> <event id>\n`, followed at once by `RESULT 0 0 0\n` when the event runs no
 *           command; <lost code> is the exit code for a client that loses the daemon after GO: 2 when
 *           a planned command is a blocking guard with `"onError": "block"` (fail closed), else 1
 *   client: `GO\n`                                (the client's point of no return)
 *   daemon: `RESULT <exit code> <stdout bytes> <stderr bytes>\n` <stdout> <stderr>, close
 *
 * The event is run, and its stdin copy unlinked, only after GO: a client that gave up before the ACK (a
 * stopped daemon) has closed the connection and run the Node path, and never sends it, so no command
 * runs twice. After DENY or LOCAL the client runs the Node path with the copy as its stdin.
 *
 * Before the ACK the event is recorded as in flight (inflightDir; src/journal/inflight.ts), and the record
 * is removed once the event's hand-off is done (or it was not run): a daemon killed in between leaves it
 * for the next daemon, which journals the event at start. So an observe-only event (no command planned)
 * whose record was written is answered with its ACK (`RESULT 0 0 0` in the same write) and handed off
 * only after GO, and an event with commands is answered once they ran, before its hand-off; without a
 * record (none kept, not written, no hand-off) an event is answered after its hand-off.
 */

/** A stdin copy older than this is what a killed client left behind. */
const STALE_COPY_MS = 60_000;

export interface FastLimits {
  /** The stdin bytes of one event (the hook's own default limit). */
  maxPayloadBytes: number;
  /** cwd and environment together. */
  maxEnvBytes: number;
  /** From connect to the whole request. */
  requestTimeoutMs: number;
  /**
   * From the ACK to GO. The client sends GO as soon as it reads the ACK, so only a starved or stopped
   * client takes long; one that gave up has closed the socket. Closing early would lose an event whose
   * GO is already on its way (the client never falls back after GO), so this limit is generous.
   */
  goTimeoutMs: number;
}

export const FAST_LIMITS: FastLimits = {
  maxPayloadBytes: 8 * 1024 * 1024,
  maxEnvBytes: 1024 * 1024,
  requestTimeoutMs: 10_000,
  goTimeoutMs: 120_000,
};
const HEADER_LINES = 5;

export interface FastServerOptions {
  env: Env;
  runtimeDir: string;
  logger: Logger;
  /** Hands the event to rules and the ledger (ingest -> journal -> pipeline). */
  handOff: HandOff;
  stopping: () => boolean;
  /** Where acknowledged events are recorded until their hand-off is done (none: not recorded). */
  inflightDir?: string;
  limits?: Partial<FastLimits>;
  now?: () => number;
  /** How the events' commands start (the daemon's spawner, src/spawner/spawner.ts); default child_process. */
  spawn?: SpawnLike;
  /** The book of events running now, shared with the daemon's socket (once.ts); default a book of its own. */
  once?: OnceBook;
}

export interface FastServer {
  /** The unix socket it listens on. */
  socket: string;
  close(): Promise<void>;
  /** Events whose commands are running now. */
  running(): number;
}

export interface FastRequest {
  protocol: string;
  clientVersion: string;
  agent: DeclaredAgent | undefined;
  /** The event name on the client's command line (install writes it), when valid. */
  declaredEvent: string | undefined;
  umask: number | undefined;
  cwd: string;
  /** The stdin copy's path; `-` when the bytes came inline. */
  stdinPath: string;
  /** The stdin bytes sent inline (a small stdin without a NUL byte: no copy). */
  inline: Buffer | undefined;
  /** The client's environment, as the agent gave it. */
  env: Env;
  /** `timeout`: the agent did not close stdin in time; the bytes are what came (a guard fails closed). */
  stdin: 'eof' | 'timeout';
}

/** `NAME=value` entries (NUL-separated) into an environment; entries without a name are skipped. */
export function parseEnvEntries(entries: readonly string[]): Env {
  const env: Env = Object.create(null) as Env;
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq <= 0) continue;
    env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return { ...env };
}

/** Why a client's versions are not served here; undefined when they are. */
export function versionProblem(protocol: string, client: string): string | undefined {
  if (protocol !== String(FAST_PROTOCOL)) return `client protocol ${protocol}, daemon ${FAST_PROTOCOL}`;
  const v = /^\d{1,6}$/.test(client) ? Number(client) : NaN;
  if (!(v >= FAST_CLIENT_VERSIONS.min && v <= FAST_CLIENT_VERSIONS.max))
    return `client version ${client}, daemon serves ${FAST_CLIENT_VERSIONS.min}-${FAST_CLIENT_VERSIONS.max}`;
  return undefined;
}

type Pushed =
  | { state: 'more' }
  | { state: 'done'; rest: Buffer }
  | { state: 'bad'; reason: string; version?: { protocol: string; client: string } };

/**
 * Reads one request from a socket with bounded memory: the header lines (at most 512 bytes; the token
 * is checked on the first line and the versions on the second before anything else is kept), then the
 * NUL-separated section (at most maxEnvBytes) up to its empty entry.
 */
class RequestReader {
  private buf: Buffer = Buffer.alloc(0);
  private header: string[] | undefined;
  private headerBytes = 0;
  private fieldStart = 0;
  private fields: string[] = [];
  /** Where the inline stdin bytes start, when the request carries them (`-` for the copy's path). */
  private sectionEnd = -1;
  private inline: Buffer | undefined;
  private helloChecked = false;
  constructor(private readonly limits: FastLimits) {}

  push(chunk: Buffer): Pushed {
    const from = this.buf.length;
    this.buf = from === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    if (!this.header) {
      // The first line says who speaks: `HOOKD-FAST <protocol> <client version>`, checked before anything
      // else is kept.
      const first = this.buf.indexOf(10);
      if (!this.helloChecked && first >= 0) {
        const [hello = '', protocol = '', client = '', ...more] = this.buf
          .subarray(0, Math.min(first, FAST_LINE_MAX))
          .toString('latin1')
          .split(' ');
        if (first > FAST_LINE_MAX || hello !== FAST_HELLO || more.length > 0)
          return { state: 'bad', reason: 'not a fast client request' };
        const problem = versionProblem(protocol, client);
        if (problem) return { state: 'bad', reason: `version: ${problem}`, version: { protocol, client } };
        this.helloChecked = true;
      } else if (!this.helloChecked && this.buf.length > FAST_LINE_MAX) {
        return { state: 'bad', reason: 'not a fast client request' };
      }
      let nl = -1;
      for (let line = 0; line < HEADER_LINES; line++) {
        nl = this.buf.indexOf(10, nl + 1);
        if (nl < 0 || nl > FAST_LINE_MAX) break;
      }
      if (nl < 0 && this.buf.length <= FAST_LINE_MAX) return { state: 'more' };
      if (nl < 0 || nl > FAST_LINE_MAX) return { state: 'bad', reason: 'header too long' };
      this.header = this.buf.subarray(0, nl).toString('latin1').split('\n');
      this.headerBytes = nl + 1;
      this.fieldStart = this.headerBytes;
      return this.scan(this.headerBytes);
    }
    return this.scan(from);
  }

  /** Collects NUL-terminated fields from `from`; the section ends with an empty field after the first two. */
  private scan(from: number): Pushed {
    for (
      let i = this.buf.indexOf(0, Math.max(from, this.fieldStart));
      i >= 0;
      i = this.buf.indexOf(0, i + 1)
    ) {
      if (this.sectionEnd >= 0) {
        // The inline stdin bytes (`-` for the copy's path): raw, up to their NUL (the client sends inline
        // only stdin without a NUL byte).
        this.inline = Buffer.from(this.buf.subarray(this.sectionEnd, i));
        return { state: 'done', rest: this.buf.subarray(i + 1) };
      }
      const field = this.buf.subarray(this.fieldStart, i).toString('utf8');
      this.fieldStart = i + 1;
      if (field === '' && this.fields.length >= 2) {
        if (this.fields[1] !== '-') return { state: 'done', rest: this.buf.subarray(i + 1) };
        this.sectionEnd = i + 1;
        continue;
      }
      this.fields.push(field);
    }
    if (this.sectionEnd >= 0)
      return this.buf.length - this.sectionEnd > FAST_INLINE_MAX
        ? { state: 'bad', reason: 'payload too large' }
        : { state: 'more' };
    return this.buf.length - this.headerBytes > this.limits.maxEnvBytes
      ? { state: 'bad', reason: 'environment too large' }
      : { state: 'more' };
  }

  request(): FastRequest {
    const h = this.header!;
    const [, protocol = '', clientVersion = ''] = (h[0] ?? '').split(' ');
    const event = h[2] ?? '';
    return {
      protocol,
      clientVersion,
      agent: isAgentId(h[1]) ? h[1] : undefined,
      declaredEvent: /^[A-Za-z]{1,64}$/.test(event) ? event : undefined,
      umask: /^[0-7]{1,4}$/.test(h[3] ?? '') ? parseInt(h[3]!, 8) : undefined,
      stdin: h[4] === 'timeout' ? 'timeout' : 'eof',
      cwd: this.fields[0] ?? '',
      stdinPath: this.fields[1] ?? '',
      inline: this.inline,
      env: parseEnvEntries(this.fields.slice(2)),
    };
  }
}

/**
 * Starts the fast listener on `<runtime dir>/fast.sock` (0600 in the private 0700 runtime dir), removing
 * a socket a dead daemon left and the loopback listener file of older versions.
 */
export async function startFastServer(options: FastServerOptions): Promise<FastServer> {
  const limits: FastLimits = { ...FAST_LIMITS, ...options.limits };
  const log = options.logger;
  const now = options.now ?? Date.now;
  const sockets = new Set<Socket>();
  const status: FastStatus = {
    v: 1,
    protocol: FAST_PROTOCOL,
    clientVersions: { ...FAST_CLIENT_VERSIONS },
    mismatches: 0,
  };
  const statusFile = join(options.runtimeDir, FAST_STATUS_FILE);
  const writeStatus = () =>
    writePrivateFileAtomic(statusFile, `${JSON.stringify(status)}\n`, { ensureDir: false });
  let running = 0;
  let requests = 0;
  let connections = 0;
  // As `hookd hook` does (src/entry/hook.ts): a default the forwarded environment may override.
  const hooksDir = process.argv[1] ? hookdLocation().hooks : undefined;

  // Validated configs per project dir, checked by stats on each event (an edit is seen at once).
  const configMemory = new ConfigMemory(64);
  // The hook log(s) kept open across events (reopened every second: rotations by other processes).
  const lineLoggers = createLineLoggerPool();
  // Each event loads its config as the hook would, through the memory: an edit is seen by the next event,
  // not only once the daemon's own watcher applied it.
  const configFor = (projectDir: string | undefined, env: Env): LoadedConfig =>
    loadConfig({ env, projectDir, validator: () => validator, memory: configMemory });
  // The same event twice (an agent running one hookd entry from two settings files) runs once, whichever
  // transport each call came on: the daemon's socket asks the same book for the hook processes.
  const once = options.once ?? new OnceBook(now);

  const serve = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    // Which connection, for the log (a unix socket has no peer address).
    const remote = `#${++connections}`;
    const abort = new AbortController();
    let phase: 'request' | 'acked' | 'running' | 'done' = 'request';
    const reader = new RequestReader(limits);
    let prepared: Prepared | undefined;
    /** The client has its answer (the RESULT went out): its going away is no longer a reason to kill. */
    let replied = false;
    let after: Buffer = Buffer.alloc(0);
    /** The in-flight record of the acknowledged event, until its hand-off is done or it is not run. */
    let inflight: string | undefined;
    /** This call's place among the calls of the same event: the first runs it, a copy waits for it. */
    let turn: Lead | Follow | undefined;
    const settle = (reply: OnceReply | undefined) => {
      if (turn?.lead !== true) return;
      turn.settle(reply);
      turn = undefined;
    };
    const dropInflight = () => {
      if (inflight === undefined || !options.inflightDir) return;
      clearInflight(options.inflightDir, inflight);
      inflight = undefined;
    };
    // One limit for the request (from connect) and a fresh, longer one from the ACK to GO: a request that
    // took most of its limit (a loaded machine) must not lose the event to the timer after its ACK went
    // out, when the client may already have sent GO and counts on the daemon running it.
    const arm = (ms: number) => {
      const t = setTimeout(() => {
        if (phase === 'request' || phase === 'acked')
          log.warn({ kind: 'fast', remote, phase }, 'fast client request timed out; closed');
        if (phase !== 'running') socket.destroy(); // also a refused peer that does not hang up
      }, ms);
      t.unref();
      return t;
    };
    let timer = arm(limits.requestTimeoutMs);
    socket.once('close', () => {
      clearTimeout(timer);
      if (phase !== 'running') dropInflight();
      if (phase === 'acked') settle(undefined); // not run here: its copies run themselves
      if (phase === 'running' && !replied) {
        log.warn({ kind: 'fast', remote }, 'fast client went away before the answer; killing the event');
        abort.abort();
      } else if (phase === 'acked') {
        log.info({ kind: 'fast', remote }, 'fast client closed before GO; the event was not run here');
      }
    });
    const refuse = (reason: string, fields: Record<string, unknown> = {}) => {
      phase = 'done';
      log.warn({ kind: 'fast', remote, reason, ...fields }, 'fast client request refused');
      socket.end(`DENY ${reason.replace(/\s+/g, '-')}\n`);
    };
    const onGo = (rest: Buffer) => {
      after = after.length === 0 ? rest : Buffer.concat([after, rest]);
      if (after.length < 3) return;
      if (after.subarray(0, 3).toString('latin1') !== 'GO\n') {
        socket.destroy();
        phase = 'done';
        return;
      }
      phase = 'running';
      clearTimeout(timer);
      if (!prepared!.req.inline) releaseStdinCopy(prepared!.req.stdinPath, options.runtimeDir);
      // Answered with the ACK: nothing more to say; the event is run (handed off) from here on.
      if (replied) socket.end();
      void run(prepared!);
    };
    const run = async (p: Prepared) => {
      running++;
      const lineLogger = lineLoggers.get(logFilePath(p.env));
      const answer = (reply: { exitCode: number; stdout: string; stderr: string }) => {
        if (replied || socket.destroyed) return;
        replied = true;
        const out = Buffer.from(reply.stdout);
        const err = Buffer.from(reply.stderr);
        socket.end(
          Buffer.concat([Buffer.from(`RESULT ${reply.exitCode} ${out.length} ${err.length}\n`), out, err]),
        );
      };
      try {
        if (p.skip) {
          if (p.skip === 'depth')
            lineLogger.log(
              'warn',
              { kind: 'recursion', depth: p.env.HOOKD_DEPTH },
              'hookd called from its own commands 4 levels deep; ignoring the event',
            );
          answer({ exitCode: 0, stdout: '', stderr: '' });
          return;
        }
        if (turn?.lead === false) {
          const first = await turn.result;
          if (first) {
            lineLogger.log(
              'info',
              {
                kind: 'duplicate',
                event: p.parsed.ok ? p.parsed.event.name : undefined,
                exitCode: first.exitCode,
              },
              "the same event came twice (one hookd entry in two settings files); answered with the first call's result",
            );
            answer(first);
            return;
          }
        }
        const reply = await runEvent(
          {
            bytes: p.bytes,
            env: p.env,
            cwd: p.req.cwd,
            umask: p.req.umask,
            agent: p.req.agent,
            parsed: p.parsed.ok ? p.parsed : undefined,
            declaredEvent: p.req.declaredEvent,
            ...(p.readFailure ? { readFailure: p.readFailure } : {}),
          },
          {
            logger: lineLogger,
            validator: () => validator,
            loadConfig: p.config,
            handOff: options.handOff,
            signal: abort.signal,
            ...(options.spawn ? { spawn: options.spawn } : {}),
            // With its in-flight record kept, the event's answer goes out as soon as it is decided: a
            // daemon killed before the hand-off leaves the record (the next daemon journals it).
            onReply: (decided) => {
              if (!abort.signal.aborted) settle(decided);
              if (inflight !== undefined) answer(decided);
            },
          },
        );
        settle(abort.signal.aborted ? undefined : reply);
        answer(reply);
      } catch (error) {
        log.error({ kind: 'fast', error: (error as Error).message }, 'fast event failed');
        if (!replied) socket.destroy();
      } finally {
        settle(undefined);
        phase = 'done';
        dropInflight();
        running--;
      }
    };
    const onRequest = (req: FastRequest, rest: Buffer) => {
      if (options.stopping()) return refuse('stopping');
      const copy = req.inline
        ? { ok: true as const, bytes: req.inline }
        : readStdinCopy(req.stdinPath, options.runtimeDir, limits.maxPayloadBytes);
      if (!copy.ok) return refuse(`stdin copy: ${copy.problem}`);
      const env: Env = hooksDir ? { HOOKD_HOOKS_DIR: hooksDir, ...req.env } : req.env;
      const p = prepare(req, env, copy.bytes);
      if (p === 'local') {
        phase = 'done';
        log.info(
          { kind: 'fast', remote },
          'this event runs in the hook process (a command marked "local", or a prompt for remote answers)',
        );
        socket.end('LOCAL\n');
        return;
      }
      prepared = p;
      phase = 'acked';
      replied = p.answered;
      const id = p.parsed.ok ? p.parsed.event.id : `f${process.pid}-${++requests}`;
      // Its session and id: a copy that comes just after it answered still gets its answer (once.ts).
      const call = p.parsed.ok
        ? { session: sessionOf(p.parsed.event.sessionId), id: p.parsed.event.id }
        : undefined;
      turn = p.onceKey !== undefined ? once.claim(p.onceKey, call) : undefined;
      if (turn?.lead === false)
        log.info(
          { kind: 'fast', remote, duplicate: true },
          turn.answered
            ? 'the same event was answered just before: gives its answer'
            : 'the same event is running: waits for its answer',
        );
      // A copy is not recorded in flight: the first call's record stands for the event.
      if (p.inflight && options.inflightDir && turn?.lead !== false) {
        try {
          inflight = recordInflight(options.inflightDir, now(), p.inflight);
        } catch (error) {
          log.warn({ kind: 'fast', error: (error as Error).message }, 'cannot record the event in flight');
        }
      }
      // An observe-only event is answered at once when its in-flight record is written: GO still decides
      // whether it is run here (exactly once), and the record whether a daemon killed before its hand-off
      // loses it (the next daemon journals it). Without a record it is answered after its hand-off.
      if (p.observeOnly && inflight !== undefined && turn?.lead !== false) replied = true;
      clearTimeout(timer);
      timer = arm(limits.goTimeoutMs);
      const ack = `ACK ${p.lostCode} ${id}\n`;
      socket.write(replied ? `${ack}RESULT 0 0 0\n` : ack);
      if (rest.length > 0) onGo(rest);
    };
    socket.on('data', (chunk: Buffer) => {
      if (phase === 'acked') return onGo(chunk);
      if (phase !== 'request') return;
      const r = reader.push(chunk);
      if (r.state === 'more') return;
      if (r.state === 'bad') {
        if (r.version) {
          status.mismatches++;
          status.lastMismatch = {
            at: now(),
            protocol: r.version.protocol.slice(0, 64),
            client: r.version.client.slice(0, 64),
          };
          writeStatus();
        }
        return refuse(r.reason, r.version ? { client: r.version } : {});
      }
      onRequest(reader.request(), r.rest);
    });
  };

  interface Prepared {
    req: FastRequest;
    env: Env;
    bytes: Buffer;
    parsed: ParseResult;
    config: (projectDir: string | undefined, env: Env) => LoadedConfig;
    /** Answered with the ACK: the event is not run at all (HOOKD=0, too deep). */
    answered: boolean;
    /** The event plans no command: its answer is known before it runs (silent, exit 0). */
    observeOnly?: boolean;
    /** The client's exit code when it loses the daemon after GO (sent with the ACK). */
    lostCode: 1 | 2;
    /** stdin was not read whole (the agent did not close it in time). */
    readFailure?: { reason: 'timeout'; detail: string };
    /** The in-flight record (the hand-off the event gets if the daemon dies while running it). */
    inflight?: EventHandoff;
    /** What makes another call the same event (once.ts). */
    onceKey?: string;
    skip?: 'off' | 'depth';
  }

  /** Parses and plans the event before the ACK: its id, whether it runs commands, whether one is local. */
  const prepare = (req: FastRequest, env: Env, bytes: Buffer): Prepared | 'local' => {
    const readFailure =
      req.stdin === 'timeout'
        ? {
            reason: 'timeout' as const,
            detail: `stdin was not closed within ${Number(env.HOOKD_STDIN_TIMEOUT_MS) || DEFAULTS.stdinTimeoutMs} ms of its last byte`,
          }
        : undefined;
    const parsed: ParseResult = readFailure
      ? { ok: false, reason: 'not-json', detail: readFailure.detail } // cut short: not parsed
      : parseEvent(bytes, env, undefined, req.agent);
    const base = { req, env, bytes, parsed, lostCode: 1 as const, ...(readFailure ? { readFailure } : {}) };
    if (env.HOOKD === '0') return { ...base, config: configFor, answered: true, skip: 'off' };
    if (Number(env.HOOKD_DEPTH ?? 0) >= 4)
      return { ...base, config: configFor, answered: true, skip: 'depth' };
    if (!parsed.ok) {
      // Input hookd cannot read: a guard marked "onError": "block" at stake makes the answer exit 2, and
      // a client that loses the daemon after GO exits 2 too.
      let lostCode: 1 | 2 = 1;
      try {
        const unreadable = identifyUnreadable(scanJson(bytes), env, {
          event: req.declaredEvent,
          agent: req.agent,
        });
        if (guardsAtStake(unreadable, configFor(unreadable.projectDir, env)).length > 0) lostCode = 2;
      } catch {
        // No config: nothing to run, the answer is exit 0.
      }
      return { ...base, lostCode, config: configFor, answered: false };
    }
    let loaded: LoadedConfig;
    try {
      loaded = configFor(parsed.event.projectDir, env);
    } catch (error) {
      const fail = () => {
        throw error;
      };
      return { ...base, config: fail, answered: true };
    }
    // A permission prompt that may wait for a remote answer (docs/remote.md) runs in the hook process,
    // whose wait the agent's own hook timeout bounds, not the fast client's.
    if (parsed.event.name === 'PermissionRequest' && loaded.config.remote?.enabled) return 'local';
    const planned = planCommands(parsed.event, loaded.config, loaded).commands;
    if (planned.some((c) => c.spec.local === true)) return 'local';
    const lostCode = planned.some((c) => c.spec.blocking && c.spec.onError === 'block') ? 2 : 1;
    // As runEvent hands off: the record is the hand-off it would make, its outcomes "not known to run".
    const handsOff = loaded.config.daemon.enabled && env.HOOKD_DAEMON !== '0';
    const inflight: EventHandoff | undefined = handsOff
      ? {
          v: 1,
          type: 'event',
          event: parsed.event,
          results: planned.map((c) =>
            diedOutcome({
              name: c.name,
              command: c.spec.command,
              blocking: c.spec.blocking,
              origin: c.origin,
            }),
          ),
        }
      : undefined;
    return {
      ...base,
      lostCode,
      config: () => loaded,
      answered: false,
      // A config file whose commands do not run, this session not yet told of: the event's answer says it.
      observeOnly: planned.length === 0 && !configWarningPending(env, loaded, parsed.event.sessionId),
      ...(inflight ? { inflight } : {}),
      onceKey: onceKey(
        parsed.event,
        { bytes, cwd: req.cwd, env },
        planned.map((c) => [c.origin, c.name, c.spec.command]),
      ),
    };
  };

  const server: Server = createServer({ allowHalfOpen: false }, serve);
  // Bounded whatever a peer does: at most this many connections, each capped in size and time.
  server.maxConnections = 1024;
  const socketFile = join(options.runtimeDir, FAST_SOCKET);
  // The daemon holds the one-daemon lock: a socket here is a dead daemon's. So is a listener file of
  // an older version, which its clients would still read.
  rmSync(socketFile, { force: true });
  rmSync(join(options.runtimeDir, LEGACY_FAST_FILE), { force: true });
  rmSync(statusFile, { force: true }); // a previous daemon's; written again at the first mismatch
  await listenInDir(server, options.runtimeDir, FAST_SOCKET, 1024);
  chmodSync(socketFile, 0o600);
  const swept = sweepStdinCopies(options.runtimeDir, now(), STALE_COPY_MS);
  if (swept > 0) log.info({ kind: 'fast', swept }, 'removed stdin copies left by killed fast clients');
  const sweeper = setInterval(
    () => sweepStdinCopies(options.runtimeDir, now(), STALE_COPY_MS),
    STALE_COPY_MS,
  );
  sweeper.unref();
  log.info({ kind: 'fast', socket: socketFile, protocol: FAST_PROTOCOL }, 'fast listener ready');

  return {
    socket: socketFile,
    running: () => running,
    close: async () => {
      clearInterval(sweeper);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      lineLoggers.close();
    },
  };
}

export type { EventHandoff };

import { lstatSync } from 'node:fs';
import { basename } from 'node:path';
import type { Env } from '../paths.js';
import type { EventHandoff } from '../events/types.js';
import {
  claimStart,
  daemonFiles,
  ensurePrivateDir,
  isProcessAlive,
  readPidFile,
  socketTrustProblem,
} from './runtime-files.js';
import { spoolEvent } from './spool.js';
import { spawnDetached } from '../process/run.js';
import { socketAddress } from '../util/unix-socket.js';
import type {
  AskRemote,
  ClaimOnce,
  HandOff,
  HandOffOptions,
  HandOffResult,
  OnceAnswer,
  OnceTurn,
  RemoteAskMessage,
  RemoteAskResult,
} from '../hook-path/hand-off.js';

// On the hook's start-up path: Node built-ins, src/paths.ts and types only. No zod, no pino.

export const PROTOCOL_VERSION = 1;

export type { HandOffOptions, HandOffResult };

export type DaemonReply = { v: number; ok: boolean; [key: string]: unknown };

const NOT_RUNNING_NO_SOCKET = 'the daemon is not running (no socket)';

/** True when nothing is at `path` (a link counts as something). */
function noEntry(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) === undefined;
  } catch {
    return false;
  }
}

/**
 * Where to reach the daemon's socket, or why not to: nothing is sent to a socket in a folder another
 * user owns or can write to (see socketTrustProblem), and a missing socket is said without loading
 * node:net (the hook's fallback meets this on every event while the daemon is down).
 */
function daemonAddress(options: {
  env?: Env;
  socketPath?: string;
}): { path: string; release: () => void } | { error: string; code: string } {
  if (options.socketPath) return { path: options.socketPath, release: () => {} };
  const files = daemonFiles(options.env ?? process.env);
  const problem = socketTrustProblem(files);
  if (problem) return { error: `not talking to ${files.socket}: ${problem}`, code: 'EUNSAFE' };
  if (noEntry(files.socket)) return { error: NOT_RUNNING_NO_SOCKET, code: 'ENOENT' };
  // A runtime dir too long for a socket address is reached through the folder (Linux).
  return socketAddress(files.dir, basename(files.socket));
}

/**
 * Sends one JSON line to the daemon and waits for one JSON line back, within timeoutMs. Never throws.
 * Nothing is sent to a socket in a folder another user owns or can write to (see socketTrustProblem).
 */
export async function requestDaemon(
  message: object,
  options: { env?: Env; timeoutMs?: number; socketPath?: string; exitAfter?: boolean } = {},
): Promise<{ ok: true; reply: DaemonReply } | { ok: false; error: string; code?: string }> {
  const address = daemonAddress(options);
  if ('error' in address) return { ok: false, ...address };
  // The longest reply line read back (a status, a session list).
  const line = daemonLine(address, 64 * 1024 * 1024);
  const said = await line.ask(message, options.timeoutMs ?? 1000);
  // A caller that exits next leaves an answered connection to its exit (HandOffOptions.exitAfter).
  if (!('reply' in said) || !options.exitAfter) line.close();
  return 'reply' in said ? { ok: true, reply: said.reply } : { ok: false, ...said };
}

/** A reply line, or why there is none (with a code, as Node's errors have). */
type Said = { reply: DaemonReply } | { error: string; code: string };

/** Why a connection ended, in words for the user. */
function endedBecause(error: NodeJS.ErrnoException): Said {
  const code = error.code ?? 'ERROR';
  if (code === 'ENOENT') return { error: NOT_RUNNING_NO_SOCKET, code };
  if (code === 'ECONNREFUSED') return { error: 'the daemon is not running (stale socket)', code };
  return { error: error.message, code };
}

/**
 * One connection to the daemon, asked one request at a time: every request of the hook and the CLI goes
 * through it. Lines are read up to `maxLine` bytes (a longer one ends the connection), and a request
 * not answered in time ends it too (a late answer could not be told from the next one's). The socket
 * never keeps the process alive by itself: a wait holds it with its own timer.
 */
function daemonLine(address: { path: string; release: () => void }, maxLine: number) {
  const socket = process.getBuiltinModule('node:net').createConnection(address.path);
  socket.unref();
  socket.once('connect', address.release);
  // Bytes, not text: a line is decoded once whole (no decoder on the stream, which costs the hook a
  // fraction of a millisecond to set up).
  let held: Buffer[] = [];
  let heldBytes = 0;
  let gone: Said | undefined;
  let waiting: ((said: Said) => void) | undefined;
  const deliver = (said: Said) => {
    const w = waiting;
    waiting = undefined;
    w?.(said);
  };
  const end = (why: Said) => {
    gone ??= why;
    address.release();
    socket.destroy();
    deliver(gone);
  };
  socket.on('data', (chunk: Buffer) => {
    // Only the new bytes can hold the line's end: a long reply is not searched again and again.
    let from = 0;
    let newline: number;
    while ((newline = chunk.indexOf(0x0a, from)) !== -1) {
      held.push(chunk.subarray(from, newline));
      const text = Buffer.concat(held).toString('utf8');
      held = [];
      heldBytes = 0;
      from = newline + 1;
      let reply: unknown;
      try {
        reply = JSON.parse(text);
      } catch {}
      deliver(
        reply !== null && typeof reply === 'object' && !Array.isArray(reply)
          ? { reply: reply as DaemonReply }
          : { error: 'the daemon answered with invalid JSON', code: 'EPROTO' },
      );
    }
    if (from < chunk.length) {
      held.push(chunk.subarray(from));
      heldBytes += chunk.length - from;
    }
    if (heldBytes > maxLine) end({ error: 'the daemon answered with too long a line', code: 'EPROTO' });
  });
  socket.on('error', (error: Error) => end(endedBecause(error)));
  socket.on('close', () =>
    end({ error: 'the daemon closed the connection without answering', code: 'ECONNRESET' }),
  );
  return {
    ask(message: object, timeoutMs: number): Promise<Said> {
      if (gone !== undefined) return Promise.resolve(gone);
      return new Promise((resolve) => {
        const timer = setTimeout(
          () => end({ error: `no answer from the daemon within ${timeoutMs}ms`, code: 'ETIMEDOUT' }),
          timeoutMs,
        );
        waiting = (said) => {
          clearTimeout(timer);
          resolve(said);
        };
        socket.write(`${JSON.stringify(message)}\n`);
      });
    },
    close: () => end({ error: 'closed', code: 'ECLOSED' }),
  };
}

/**
 * Starts `hookd daemon run` detached (own process group, stdio ignored, unref'd), unless a daemon holds
 * the lock or another hook is already starting one.
 */
export function startDaemonInBackground(
  argv: readonly string[],
  env: Env,
): { started: boolean; reason: string } {
  const files = daemonFiles(env);
  const holder = readPidFile(files.lock);
  if (holder !== undefined && isProcessAlive(holder))
    return { started: false, reason: `daemon already running (pid ${holder})` };
  try {
    ensurePrivateDir(files.dir);
    if (!claimStart(files)) return { started: false, reason: 'another process is starting the daemon' };
    const { pid } = spawnDetached(argv, env);
    return { started: true, reason: `started pid ${pid ?? '?'}` };
  } catch (error) {
    return { started: false, reason: `cannot start the daemon: ${(error as Error).message}` };
  }
}

/**
 * Hands one event to the daemon. Acked when the daemon made it durable; otherwise the event is
 * written to the spool (and the daemon started, if allowed), so nothing is lost. Never throws.
 */
export async function handOff(message: EventHandoff, options: HandOffOptions = {}): Promise<HandOffResult> {
  const env = options.env ?? process.env;
  const reply = await requestDaemon(message, {
    env,
    timeoutMs: options.timeoutMs ?? 250,
    ...(options.exitAfter ? { exitAfter: true } : {}),
  });
  if (reply.ok && reply.reply.ok === true && reply.reply.id === message.event.id) return { outcome: 'acked' };
  const reason = reply.ok
    ? `the daemon refused the event: ${String(reply.reply.error ?? 'no reason given')}`
    : reply.error;
  try {
    spoolEvent(message, env, options.fsync ?? true);
  } catch (error) {
    return { outcome: 'failed', error: `${reason}; and the spool write failed: ${(error as Error).message}` };
  }
  let started = false;
  if (options.autoStart && options.daemonArgv && options.daemonArgv.length > 0) {
    started = startDaemonInBackground(options.daemonArgv, env).started;
  }
  return { outcome: 'spooled', error: reason, ...(started ? { started } : {}) };
}

// The client implements the hook's contract (src/hook-path/hand-off.ts).
const _handOffImplementsContract: HandOff = handOff;

/**
 * Asks the daemon to send a permission prompt away and waits for its answer, at most `waitMs` (the
 * daemon answers a second before). Any failure is "no decision": the agent's own prompt decides.
 */
export async function askRemote(
  message: RemoteAskMessage,
  options: { env?: Env } = {},
): Promise<RemoteAskResult> {
  const reply = await requestDaemon(message, { env: options.env ?? process.env, timeoutMs: message.waitMs });
  if (!reply.ok) return { reason: `no answer from the daemon: ${reply.error}` };
  const { decision, by, via, ask, reason } = reply.reply;
  const text = (value: unknown) => (typeof value === 'string' ? value.slice(0, 200) : undefined);
  const result: RemoteAskResult = {};
  if (decision === 'allow' || decision === 'deny') result.decision = decision;
  for (const [key, value] of [
    ['by', by],
    ['via', via],
    ['ask', ask],
    ['reason', reply.reply.ok === true ? reason : (reply.reply.error ?? reason)],
  ] as const) {
    const t = text(value);
    if (t !== undefined) result[key] = t;
  }
  return result;
}

const _askRemoteImplementsContract: AskRemote = askRemote;

/** The largest answer (stdout and stderr together, in characters) a call gives its copies over the socket. */
export const ONCE_ANSWER_MAX_CHARS = 1024 * 1024;
/** The longest reply line read back for a `once` request, in bytes (a copy's answer, JSON-escaped). */
const ONCE_LINE_MAX = 8 * ONCE_ANSWER_MAX_CHARS;

/** The first call's answer in a daemon's reply, when it holds a valid one. */
function answerIn(said: Said): OnceAnswer | undefined {
  if (!('reply' in said) || said.reply.ok !== true || said.reply.answered !== true) return undefined;
  const { exitCode, stdout, stderr } = said.reply;
  if (exitCode !== 0 && exitCode !== 1 && exitCode !== 2) return undefined;
  if (typeof stdout !== 'string' || typeof stderr !== 'string') return undefined;
  return { exitCode, stdout, stderr };
}

const why = (said: Said) =>
  'reply' in said ? String(said.reply.reason ?? said.reply.error ?? 'the daemon gave no turn') : said.error;

/**
 * The same event twice (docs/daemon.md, "The same event twice"): asks the daemon whether a call of this
 * event runs already. The first call leads: it keeps the connection open while it runs, and its answer
 * (or the connection closing, when it dies) goes to the copies. A copy waits for that answer, at most
 * `waitMs`; every other reply comes within `askMs`. Anything else (no daemon, an older one, a first call that died) is "alone": run the event
 * here. Never throws.
 */
export async function claimOnce(
  key: string,
  options: { env?: Env; askMs: number; waitMs: number; budgetMs?: number; session?: string; id?: string },
): Promise<OnceTurn> {
  const address = daemonAddress({ env: options.env ?? process.env });
  if ('error' in address) return { role: 'alone', reason: address.error };
  const line = daemonLine(address, ONCE_LINE_MAX);
  const { budgetMs, session, id } = options;
  const said = await line.ask(
    { v: PROTOCOL_VERSION, type: 'once', key, budgetMs, session, id },
    options.askMs,
  );
  const claimed = 'reply' in said && said.reply.ok === true ? said.reply.role : undefined;
  if (claimed === 'lead') {
    return {
      role: 'lead',
      settle: async (answer) => {
        const fits = answer && answer.stdout.length + answer.stderr.length <= ONCE_ANSWER_MAX_CHARS;
        await line.ask(
          { v: PROTOCOL_VERSION, type: 'once-done', key, ...(fits ? answer : {}) },
          options.askMs,
        );
        line.close();
      },
    };
  }
  if (claimed === 'copy') {
    const first = await line.ask({ v: PROTOCOL_VERSION, type: 'once-wait', key }, options.waitMs);
    line.close();
    const answer = answerIn(first);
    if (answer) return { role: 'copy', answer };
    return { role: 'alone', reason: why(first), waited: true };
  }
  line.close();
  return { role: 'alone', reason: why(said) };
}

const _claimOnceImplementsContract: ClaimOnce = claimOnce;

import { WebSocket, type RawData } from 'ws';
import { realTimers, type Timers } from '../util/timers.js';
import { callSlack, hostOf, type SlackApiTarget } from './slack-socket-api.js';

/**
 * A Slack Socket Mode client (https://api.slack.com/apis/socket-mode): the app-level token buys a
 * one-time websocket URL from `apps.connections.open`, the client connects out to it (nothing listens on
 * this machine), Slack says `hello`, then sends envelopes that the client acknowledges by their
 * `envelope_id`. A `disconnect` envelope (a refresh, or a warning before Slack closes the link) or a lost
 * connection makes the client connect again with a fresh URL, after a growing, jittered wait when the
 * attempts fail. Every message is bounded (`maxMessageBytes`) and parsed as data only: a message that is
 * too large, not JSON or of an unknown shape is dropped and logged, never fatal.
 */

/** What the client logs through: the daemon's pino logger fits. */
export interface SlackLog {
  debug(fields: Record<string, unknown>, msg: string): void;
  info(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
}

export const SOCKET_DEFAULTS = {
  /** The largest websocket message accepted; a larger one closes the link (and a fresh one is opened). */
  maxMessageBytes: 1024 * 1024,
  /** The first wait after a failed attempt; each further failure doubles it, up to `maxBackoffMs`. */
  initialBackoffMs: 1000,
  maxBackoffMs: 60_000,
  /** A ping this often; a link that answered none since the last one is dropped and opened again. */
  heartbeatMs: 30_000,
  /** The websocket's opening handshake is abandoned after this long. */
  handshakeTimeoutMs: 10_000,
} as const;

/** The longest `envelope_id` acknowledged (Slack's are UUIDs). */
const ENVELOPE_ID = /^[\w.:-]{1,128}$/;
/** The longest Socket Mode URL taken from `apps.connections.open`. */
const URL_MAX = 4096;

export interface SlackSocketOptions extends SlackApiTarget {
  appToken: string;
  log: SlackLog;
  /** An envelope of `type` (after its ack): `interactive` carries a `block_actions` payload. */
  onEnvelope(type: string, payload: unknown): void;
  timers?: Timers;
  /** 0 <= random() < 1, for the jitter of the backoff. */
  random?: () => number;
  maxMessageBytes?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  heartbeatMs?: number;
  handshakeTimeoutMs?: number;
}

export type SlackSocketState = 'idle' | 'connecting' | 'open' | 'waiting' | 'closed';

/**
 * Only a `wss:` URL is used, or a `ws:` one on the loopback interface (a local test server): the URL
 * is a credential for one connection, never sent in clear over a network.
 */
export function socketUrlAllowed(url: string): boolean {
  if (url.length > URL_MAX) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === 'wss:') return true;
  return parsed.protocol === 'ws:' && ['127.0.0.1', '[::1]', 'localhost'].includes(parsed.hostname);
}

export class SlackSocket {
  private readonly options: SlackSocketOptions;
  private readonly timers: Timers;
  private readonly random: () => number;
  private socket: WebSocket | undefined;
  private retryTimer: unknown;
  private heartbeatTimer: unknown;
  private alive = false;
  private failures = 0;
  private currentState: SlackSocketState = 'idle';
  private firstAttempt: (() => void) | undefined;
  /** How many links said hello (tests and the log read it). */
  connections = 0;

  constructor(options: SlackSocketOptions) {
    this.options = options;
    this.timers = options.timers ?? realTimers;
    this.random = options.random ?? Math.random;
  }

  get state(): SlackSocketState {
    return this.currentState;
  }

  /** Starts connecting; resolves when the first attempt said hello or failed (it keeps trying then). */
  start(): Promise<void> {
    if (this.currentState !== 'idle') return Promise.resolve();
    return new Promise((resolve) => {
      this.firstAttempt = resolve;
      void this.connect();
    });
  }

  /** Closes the link and stops every timer; nothing is tried again. */
  async close(): Promise<void> {
    this.currentState = 'closed';
    this.stopTimers();
    this.endFirstAttempt();
    const socket = this.socket;
    this.socket = undefined;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.terminate();
    });
  }

  private endFirstAttempt(): void {
    const done = this.firstAttempt;
    this.firstAttempt = undefined;
    done?.();
  }

  private stopTimers(): void {
    if (this.retryTimer !== undefined) this.timers.clear(this.retryTimer);
    if (this.heartbeatTimer !== undefined) this.timers.clear(this.heartbeatTimer);
    this.retryTimer = undefined;
    this.heartbeatTimer = undefined;
  }

  private async connect(): Promise<void> {
    if (this.currentState === 'closed') return;
    this.currentState = 'connecting';
    const opened = await callSlack(this.options, 'apps.connections.open', this.options.appToken, {});
    if (this.currentState !== 'connecting') return;
    if (!opened.ok) return this.retry(opened.error);
    const url = opened.reply.url;
    if (typeof url !== 'string' || !socketUrlAllowed(url))
      return this.retry('apps.connections.open gave no wss:// URL');
    const socket = new WebSocket(url, {
      maxPayload: this.options.maxMessageBytes ?? SOCKET_DEFAULTS.maxMessageBytes,
      handshakeTimeout: this.options.handshakeTimeoutMs ?? SOCKET_DEFAULTS.handshakeTimeoutMs,
      followRedirects: false,
      perMessageDeflate: false,
    });
    this.socket = socket;
    let problem: string | undefined;
    socket.on('message', (data, isBinary) => this.receive(socket, data, isBinary));
    socket.on('pong', () => (this.alive = true));
    socket.on('error', (error) => {
      problem = error.message.slice(0, 200);
    });
    socket.on('close', (code) => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      if (this.heartbeatTimer !== undefined) this.timers.clear(this.heartbeatTimer);
      this.heartbeatTimer = undefined;
      if (this.currentState === 'closed') return;
      this.retry(`the Socket Mode link to ${hostOf(url)} closed (${problem ?? `code ${code}`})`);
    });
  }

  /** One failed attempt or a lost link: wait (doubling, jittered, capped), then a fresh URL. */
  private retry(why: string): void {
    if (this.currentState === 'closed') return;
    const initial = this.options.initialBackoffMs ?? SOCKET_DEFAULTS.initialBackoffMs;
    const max = this.options.maxBackoffMs ?? SOCKET_DEFAULTS.maxBackoffMs;
    const ceiling = Math.min(max, initial * 2 ** Math.min(this.failures, 30));
    const delay = Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
    this.failures += 1;
    this.currentState = 'waiting';
    this.options.log.warn(
      { channel: 'slack', failures: this.failures, retryInMs: delay },
      `slack: ${why}; connecting again in ${Math.ceil(delay / 1000)} s`,
    );
    this.endFirstAttempt();
    if (this.retryTimer !== undefined) this.timers.clear(this.retryTimer);
    this.retryTimer = this.timers.set(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, delay);
  }

  /**
   * Slack asked for a fresh link: the old one is closed and a fresh URL opened at once, unless the link
   * had not yet stayed up for a heartbeat (then the refresh waits like a failure, so a server that asks
   * again and again gets ever slower attempts, not a storm of them).
   */
  private refresh(socket: WebSocket, reason: string): void {
    this.options.log.info({ channel: 'slack', reason }, 'slack: Socket Mode asked to reconnect');
    if (this.socket === socket) this.socket = undefined;
    if (this.heartbeatTimer !== undefined) this.timers.clear(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
    socket.terminate();
    if (this.failures > 0) return this.retry(`Slack asked to reconnect again soon after (${reason})`);
    this.failures = 1;
    void this.connect();
  }

  private heartbeat(socket: WebSocket): void {
    const every = this.options.heartbeatMs ?? SOCKET_DEFAULTS.heartbeatMs;
    this.alive = true;
    const beat = () => {
      if (this.socket !== socket) return;
      if (!this.alive) {
        this.options.log.warn({ channel: 'slack' }, 'slack: the Socket Mode link stopped answering pings');
        socket.terminate();
        return;
      }
      // A link that stayed up for a whole beat is stable: the next failure starts the backoff afresh.
      this.failures = 0;
      this.alive = false;
      socket.ping();
      this.heartbeatTimer = this.timers.set(beat, every);
    };
    this.heartbeatTimer = this.timers.set(beat, every);
  }

  private drop(why: string, fields: Record<string, unknown> = {}): void {
    this.options.log.warn({ channel: 'slack', ...fields }, `slack: dropped a Socket Mode message: ${why}`);
  }

  private receive(socket: WebSocket, data: RawData, isBinary: boolean): void {
    if (this.socket !== socket) return;
    this.alive = true;
    if (isBinary) return this.drop('binary');
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : data.toString('utf8');
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return this.drop('not JSON', { bytes: text.length });
    }
    if (!message || typeof message !== 'object' || Array.isArray(message)) return this.drop('not an object');
    const { type, envelope_id: envelopeId, payload, reason } = message as Record<string, unknown>;
    if (typeof type !== 'string') return this.drop('no type');
    const kind = type.slice(0, 40).replace(/[^\w.-]/g, '?');
    if (kind === 'hello') {
      this.currentState = 'open';
      this.connections += 1;
      this.options.log.info({ channel: 'slack' }, 'slack: Socket Mode connected');
      this.heartbeat(socket);
      this.endFirstAttempt();
      return;
    }
    if (kind === 'disconnect') {
      return this.refresh(socket, typeof reason === 'string' ? reason.slice(0, 40) : 'unknown');
    }
    if (typeof envelopeId !== 'string' || !ENVELOPE_ID.test(envelopeId))
      return this.drop('no valid envelope_id', { type: kind });
    // The ack comes first: Slack sends an envelope again when it is not acknowledged within 3 s.
    socket.send(JSON.stringify({ envelope_id: envelopeId }));
    if (kind !== 'interactive') {
      this.options.log.debug({ channel: 'slack', type: kind }, 'slack: ignored a Socket Mode envelope');
      return;
    }
    try {
      this.options.onEnvelope(kind, payload);
    } catch (error) {
      this.drop(`its handler failed: ${(error as Error).message}`.slice(0, 300), { type: kind });
    }
  }
}

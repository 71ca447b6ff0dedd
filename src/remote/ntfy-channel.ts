import type { RemoteNtfyConfig } from '../config/schemas/remote-schema.js';
import { clipUtf8, NTFY_MESSAGE_MAX_BYTES } from '../channels/ntfy.js';
import { fetchWithTimeout, type FetchLike } from '../util/fetch-with-timeout.js';
import { USER_AGENT } from '../util/version.js';
import type { AskOutcome, PermissionAsk, RemoteAnswer, RemoteChannel } from './types.js';

/**
 * The ntfy answer channel (docs/remote.md, "ntfy"): each ask is published to `topic` with Allow and Deny
 * `http` action buttons that post the decision's token to `replyTopic` on the same server. The daemon
 * reads `replyTopic` with an outbound streaming subscription (GET <server>/<replyTopic>/json), reconnecting
 * with backoff. ntfy cannot edit a message: when the ask ends, a short "resolved" message follows.
 * Only ever used with a server that has access control and a token (remote-schema.ts refuses the rest).
 */

/** Longest line of the subscription stream taken; a longer one is skipped. */
const MAX_LINE_BYTES = 64 * 1024;
/** Longest reply message read as a token (tokens are 24 characters). */
const MAX_TOKEN_CHARS = 200;
/** ntfy sends a keepalive every 45 s: a stream silent this long is dead and reopened. */
const SILENT_STREAM_MS = 120_000;

export interface NtfyChannelOptions {
  /** The channel's config, with ${VAR} already filled in. */
  config: RemoteNtfyConfig;
  fetch?: FetchLike;
  /** First reconnect delay, doubled per failure up to maxBackoffMs. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Told when the subscription fails or comes back (the daemon logs it). */
  onTrouble?: (message: string, detail: Record<string, unknown>) => void;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The text of an ask as the phone shows it: the tool, what would run, where; bounded. */
function askMessage(ask: PermissionAsk): string {
  const { summary } = ask;
  const parts = [
    summary.command !== undefined ? `$ ${summary.command}` : undefined,
    summary.filePath !== undefined ? `file: ${summary.filePath}` : undefined,
    summary.diff,
    `session ${ask.session.slice(0, 8)} · ask ${ask.id}`,
  ].filter((part): part is string => part !== undefined);
  return clipUtf8(parts.join('\n'), NTFY_MESSAGE_MAX_BYTES - 256);
}

function outcomeText(outcome: AskOutcome): string {
  switch (outcome.result) {
    case 'allow':
      return `Allowed (${outcome.via ?? 'remote'})`;
    case 'deny':
      return `Denied (${outcome.via ?? 'remote'})`;
    case 'expired':
      return 'Expired: the prompt is back at the terminal';
    case 'answered-at-terminal':
      return 'Answered at the terminal';
    case 'cancelled':
      return 'Cancelled';
  }
}

export class NtfyRemoteChannel implements RemoteChannel {
  readonly name = 'ntfy' as const;
  private readonly server: string;
  private readonly fetchImpl: FetchLike;
  private readonly stop = new AbortController();
  private loop: Promise<void> | undefined;
  /** The id of the last message read, so a reconnect misses nothing. */
  private lastId: string | undefined;
  /** Connected at least once since start (the first connect resolves start()). */
  private opened = false;

  constructor(private readonly o: NtfyChannelOptions) {
    this.server = o.config.server.replace(/\/+$/, '');
    this.fetchImpl = o.fetch ?? ((input, init) => fetch(input, init));
  }

  private headers(json: boolean): Record<string, string> {
    return {
      Authorization: `Bearer ${this.o.config.token}`,
      'User-Agent': USER_AGENT,
      ...(json ? { 'Content-Type': 'application/json' } : {}),
    };
  }

  /** Opens the subscription; resolves once it is open or its first attempt failed (it keeps retrying). */
  start(onAnswer: (answer: RemoteAnswer) => void): Promise<void> {
    return new Promise((resolve) => {
      this.loop = this.subscribe(onAnswer, resolve);
    });
  }

  private async subscribe(onAnswer: (answer: RemoteAnswer) => void, firstTry: () => void): Promise<void> {
    const signal = this.stop.signal;
    let delay = this.o.backoffMs ?? 1000;
    const startedAt = Math.floor(Date.now() / 1000);
    while (!signal.aborted) {
      const since = this.lastId ?? (this.opened ? String(startedAt) : undefined);
      const url = `${this.server}/${this.o.config.replyTopic}/json${since ? `?since=${encodeURIComponent(since)}` : ''}`;
      let failure: string | undefined;
      try {
        failure = await this.readStream(url, onAnswer, firstTry, () => (delay = this.o.backoffMs ?? 1000));
      } catch (error) {
        failure = (error as Error).message;
      }
      firstTry();
      if (signal.aborted) return;
      this.o.onTrouble?.('the ntfy reply subscription ended; reconnecting', {
        server: this.server,
        reason: failure ?? 'closed',
        retryInMs: delay,
      });
      await sleep(delay, signal);
      delay = Math.min(delay * 2, this.o.maxBackoffMs ?? 60_000);
    }
  }

  /** One subscription: reads answers until the stream ends; returns why it ended. */
  private async readStream(
    url: string,
    onAnswer: (answer: RemoteAnswer) => void,
    opened: () => void,
    healthy: () => void,
  ): Promise<string | undefined> {
    const connection = new AbortController();
    const abort = () => connection.abort();
    this.stop.signal.addEventListener('abort', abort, { once: true });
    let watchdog = setTimeout(abort, SILENT_STREAM_MS);
    try {
      const response = await this.fetchImpl(url, { headers: this.headers(false), signal: connection.signal });
      if (!response.ok || !response.body) {
        await response.body?.cancel().catch(() => undefined);
        return `HTTP ${response.status}${response.status === 401 || response.status === 403 ? ' (check the token and the topic access)' : ''}`;
      }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      let skipping = false;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return undefined;
        clearTimeout(watchdog);
        watchdog = setTimeout(abort, SILENT_STREAM_MS);
        buffer += decoder.decode(value, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf('\n')) !== -1) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (skipping) {
            skipping = false;
            continue;
          }
          this.take(line, onAnswer, () => {
            this.opened = true;
            healthy();
            opened();
          });
        }
        if (buffer.length > MAX_LINE_BYTES) {
          buffer = '';
          skipping = true;
        }
      }
    } finally {
      clearTimeout(watchdog);
      this.stop.signal.removeEventListener('abort', abort);
    }
  }

  /** One line of the stream: `open`, `keepalive` or a `message` whose text is a token. */
  private take(line: string, onAnswer: (answer: RemoteAnswer) => void, opened: () => void): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (message === null || typeof message !== 'object') return;
    const { event, id, message: text } = message as Record<string, unknown>;
    if (event === 'open') return opened();
    if (event !== 'message') return;
    if (typeof id === 'string' && id.length <= 64) this.lastId = id;
    if (typeof text !== 'string' || text.length === 0 || text.length > MAX_TOKEN_CHARS) return;
    onAnswer({ token: text.trim(), channel: 'ntfy', approver: 'ntfy' });
  }

  private async publish(body: Record<string, unknown>): Promise<void> {
    const answer = await fetchWithTimeout(
      this.fetchImpl,
      `${this.server}/`,
      { method: 'POST', headers: this.headers(true), body: JSON.stringify(body) },
      { timeoutMs: this.o.config.timeoutMs, maxBodyBytes: 4096 },
    );
    if (!answer.ok) throw new Error(`ntfy publish failed: ${answer.timedOut ? 'timed out' : answer.reason}`);
    if (answer.status < 200 || answer.status >= 300)
      throw new Error(`ntfy publish failed: HTTP ${answer.status}`);
  }

  async ask(ask: PermissionAsk): Promise<void> {
    const { config } = this.o;
    const button = (label: string, token: string) => ({
      action: 'http',
      label,
      url: `${this.server}/${config.replyTopic}`,
      method: 'POST',
      headers: { Authorization: `Bearer ${config.replyToken}` },
      body: token,
      clear: true,
    });
    await this.publish({
      topic: config.topic,
      title: clipUtf8(ask.summary.title, 250),
      message: askMessage(ask),
      priority: 4,
      tags: ['lock'],
      actions: [button('Allow', ask.tokens.allow), button('Deny', ask.tokens.deny)],
    });
  }

  async settle(ask: PermissionAsk, outcome: AskOutcome): Promise<void> {
    await this.publish({
      topic: this.o.config.topic,
      title: clipUtf8(`Resolved: ${ask.summary.title}`, 250),
      message: `${outcomeText(outcome)} · ask ${ask.id}`,
      priority: 2,
      tags: ['white_check_mark'],
    });
  }

  async close(): Promise<void> {
    this.stop.abort();
    await this.loop;
  }
}

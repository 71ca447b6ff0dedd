import type {
  AskOutcome,
  AskSummary,
  PermissionAsk,
  RemoteAnswer,
  RemoteChannel,
  RemoteChannelName,
  RemoteDecision,
} from './types.js';

/**
 * The broker of remote answers (docs/remote.md): one `PermissionAsk` per prompt sent away, its two
 * single-use tokens, the first valid answer, and every refused one written down. It holds no socket and
 * no file: the clock, the randomness, the timers, the channels and the record sink are given to it.
 */

/** A prompt the hook asks the broker to send away. */
export interface AskRequest {
  agent: string;
  session: string;
  project: string;
  tool: string;
  /** sha256 of the canonical `tool_input` (canonical.ts): the answer is bound to exactly this input. */
  inputSha256: string;
  summary: AskSummary;
  /** How long to wait for an answer, in ms. */
  waitMs: number;
  /** Only a deny may count (the call matches a rule that says "ask me at the keyboard"). */
  denyOnly?: boolean;
}

/** What the hook gets: a decision, or why there is none (then the agent's own prompt decides). */
export type AskResult =
  | { decision: RemoteDecision; by: string; via: RemoteChannelName; ask: string }
  | {
      decision?: undefined;
      reason: 'expired' | 'answered-at-terminal' | 'cancelled' | 'limit' | 'no-channel';
      ask?: string;
    };

/** Why an answer changed nothing. */
export type RefusalReason =
  | 'unknown-token'
  | 'replayed'
  | 'expired'
  | 'after-terminal'
  | 'settled'
  | 'not-approver'
  | 'allow-not-allowed';

/** One line of the record: every ask, decision and refused answer, with who and where. */
export type BrokerRecord =
  | {
      kind: 'asked';
      at: number;
      ask: string;
      agent: string;
      session: string;
      tool: string;
      inputSha256: string;
      channels: RemoteChannelName[];
      expiresAt: number;
      denyOnly: boolean;
    }
  | {
      kind: 'not-asked';
      at: number;
      session: string;
      tool: string;
      inputSha256: string;
      reason: 'limit' | 'no-channel';
    }
  | {
      kind: 'decided';
      at: number;
      ask: string;
      session: string;
      tool: string;
      inputSha256: string;
      result: AskOutcome['result'];
      by?: string;
      via?: RemoteChannelName;
    }
  | {
      kind: 'refused';
      at: number;
      reason: RefusalReason;
      by: string;
      via: RemoteChannelName;
      ask?: string;
      session?: string;
      tool?: string;
      inputSha256?: string;
      decision?: RemoteDecision;
    }
  | { kind: 'channel-error'; at: number; via: RemoteChannelName; ask?: string; error: string };

/** Who may answer, per channel (config `remote.approvers` and the channels configured). */
export interface Approvers {
  slack: readonly string[];
  /** True only for an ntfy channel with an access-controlled topic and a token. */
  ntfy: boolean;
  desktop: boolean;
}

export interface BrokerOptions {
  channels: readonly RemoteChannel[];
  approvers: Approvers;
  maxPendingPerSession: number;
  now: () => number;
  /** `bytes` random bytes (crypto.randomBytes in the daemon). */
  random: (bytes: number) => Buffer;
  /** Runs `fn` after `ms`; returns how to cancel it. */
  schedule: (ms: number, fn: () => void) => () => void;
  record: (record: BrokerRecord) => void;
}

/** Random bytes per token: 144 bits. */
export const TOKEN_BYTES = 18;
/**
 * Asks open at once over all sessions: memory stays bounded whatever the events say, and no channel
 * shows more than this many prompts at a time (Slack's MESSAGES_KEPT, a guard, stays above it).
 */
export const MAX_OPEN_ASKS = 50;
/** Tokens of settled asks remembered, so a late answer is refused with its real reason. */
const SETTLED_KEPT = 500;

interface Pending {
  ask: PermissionAsk;
  request: AskRequest;
  createdAt: number;
  resolve: (result: AskResult) => void;
  cancelTimer: () => void;
}

interface TokenInfo {
  ask: string;
  decision: RemoteDecision;
  session: string;
  tool: string;
  inputSha256: string;
  /** Set once the ask ended: how. */
  ended?: AskOutcome['result'];
  /** Set once this very token was used to decide. */
  used?: boolean;
}

export class Broker {
  private readonly pending = new Map<string, Pending>();
  private readonly tokens = new Map<string, TokenInfo>();
  /** Tokens of ended asks, oldest first (bounded by SETTLED_KEPT asks). */
  private readonly endedOrder: string[][] = [];

  constructor(private readonly o: BrokerOptions) {}

  /** Starts every channel's listener; a channel that fails to start is recorded and left out. */
  async start(): Promise<void> {
    await Promise.all(
      this.o.channels.map((channel) =>
        channel
          .start((answer) => this.answer(answer))
          .catch((error: Error) => this.channelError(channel.name, error)),
      ),
    );
  }

  /** The asks still open. */
  openAsks(): PermissionAsk[] {
    return [...this.pending.values()].map((p) => p.ask);
  }

  private token(): string {
    return this.o.random(TOKEN_BYTES).toString('base64url');
  }

  private channelError(via: RemoteChannelName, error: Error, ask?: string): void {
    this.o.record({
      kind: 'channel-error',
      at: this.o.now(),
      via,
      ...(ask ? { ask } : {}),
      error: error.message,
    });
  }

  /**
   * Sends one prompt away and resolves with the first valid answer, or with no decision when it expires,
   * is answered at the terminal, or cannot be sent (too many open for the session, no channel).
   */
  request(request: AskRequest): Promise<AskResult> {
    const now = this.o.now();
    const base = { at: now, session: request.session, tool: request.tool, inputSha256: request.inputSha256 };
    if (this.o.channels.length === 0) {
      this.o.record({ kind: 'not-asked', ...base, reason: 'no-channel' });
      return Promise.resolve({ reason: 'no-channel' });
    }
    const open = [...this.pending.values()].filter((p) => p.request.session === request.session).length;
    if (open >= this.o.maxPendingPerSession || this.pending.size >= MAX_OPEN_ASKS) {
      this.o.record({ kind: 'not-asked', ...base, reason: 'limit' });
      return Promise.resolve({ reason: 'limit' });
    }
    const ask: PermissionAsk = {
      id: this.o.random(9).toString('base64url'),
      agent: request.agent,
      session: request.session,
      project: request.project,
      summary: request.summary,
      expiresAt: now + request.waitMs,
      tokens: { allow: this.token(), deny: this.token() },
    };
    const bound = {
      ask: ask.id,
      session: request.session,
      tool: request.tool,
      inputSha256: request.inputSha256,
    };
    this.tokens.set(ask.tokens.allow, { ...bound, decision: 'allow' });
    this.tokens.set(ask.tokens.deny, { ...bound, decision: 'deny' });
    const result = new Promise<AskResult>((resolve) => {
      const cancelTimer = this.o.schedule(request.waitMs, () => this.end(ask.id, { result: 'expired' }));
      this.pending.set(ask.id, { ask, request, createdAt: now, resolve, cancelTimer });
    });
    this.o.record({
      kind: 'asked',
      ...base,
      ask: ask.id,
      agent: request.agent,
      channels: this.o.channels.map((c) => c.name),
      expiresAt: ask.expiresAt,
      denyOnly: request.denyOnly === true,
    });
    for (const channel of this.o.channels)
      channel.ask(ask).catch((error: Error) => this.channelError(channel.name, error, ask.id));
    return result;
  }

  /** An answer a channel received: the first valid one decides; every other one is refused and recorded. */
  answer(answer: RemoteAnswer): void {
    const now = this.o.now();
    const info = this.tokens.get(answer.token);
    const refuse = (reason: RefusalReason) =>
      this.o.record({
        kind: 'refused',
        at: now,
        reason,
        by: answer.approver,
        via: answer.channel,
        ...(info
          ? {
              ask: info.ask,
              session: info.session,
              tool: info.tool,
              inputSha256: info.inputSha256,
              decision: info.decision,
            }
          : {}),
      });
    if (!info) return refuse('unknown-token');
    if (!this.isApprover(answer)) return refuse('not-approver');
    if (info.used) return refuse('replayed');
    const pending = this.pending.get(info.ask);
    if (!pending || info.ended !== undefined) {
      const ended = info.ended;
      return refuse(
        ended === 'expired' ? 'expired' : ended === 'answered-at-terminal' ? 'after-terminal' : 'settled',
      );
    }
    if (now >= pending.ask.expiresAt) {
      this.end(info.ask, { result: 'expired' });
      return refuse('expired');
    }
    if (info.decision === 'allow' && pending.request.denyOnly) return refuse('allow-not-allowed');
    info.used = true;
    this.end(info.ask, { result: info.decision, by: answer.approver, via: answer.channel });
  }

  private isApprover(answer: RemoteAnswer): boolean {
    const { approvers } = this.o;
    switch (answer.channel) {
      case 'slack':
        return approvers.slack.includes(answer.approver);
      case 'ntfy':
        return approvers.ntfy && answer.approver === 'ntfy';
      case 'desktop':
        return approvers.desktop && answer.approver === 'desktop';
    }
    return false;
  }

  /**
   * The session moved on at the terminal (its next tool call, a tool's result, the turn's end): every
   * ask of that session opened before `at` ends as answered at the terminal, and later answers change
   * nothing.
   */
  sessionMoved(session: string, at: number): void {
    for (const pending of [...this.pending.values()])
      if (pending.request.session === session && pending.createdAt < at)
        this.end(pending.ask.id, { result: 'answered-at-terminal' });
  }

  /** The hook that waited went away (it timed out or was killed): its ask ends, nothing decided. */
  cancel(askId: string): void {
    this.end(askId, { result: 'cancelled' });
  }

  /** Ends an open ask once: resolves its waiter, tells every channel at once, records how it ended. */
  private end(askId: string, outcome: AskOutcome): void {
    const pending = this.pending.get(askId);
    if (!pending) return;
    this.pending.delete(askId);
    pending.cancelTimer();
    const { ask, request } = pending;
    for (const token of [ask.tokens.allow, ask.tokens.deny]) {
      const info = this.tokens.get(token);
      if (info) info.ended = outcome.result;
    }
    this.endedOrder.push([ask.tokens.allow, ask.tokens.deny]);
    while (this.endedOrder.length > SETTLED_KEPT)
      for (const token of this.endedOrder.shift() ?? []) this.tokens.delete(token);
    this.o.record({
      kind: 'decided',
      at: this.o.now(),
      ask: ask.id,
      session: request.session,
      tool: request.tool,
      inputSha256: request.inputSha256,
      result: outcome.result,
      ...(outcome.by ? { by: outcome.by } : {}),
      ...(outcome.via ? { via: outcome.via } : {}),
    });
    if (outcome.result === 'allow' || outcome.result === 'deny')
      pending.resolve({ decision: outcome.result, by: outcome.by!, via: outcome.via!, ask: ask.id });
    else pending.resolve({ reason: outcome.result, ask: ask.id });
    for (const channel of this.o.channels)
      channel.settle(ask, outcome).catch((error: Error) => this.channelError(channel.name, error, ask.id));
  }

  /** Ends every open ask (cancelled) and closes the channels. */
  async close(): Promise<void> {
    for (const id of [...this.pending.keys()]) this.end(id, { result: 'cancelled' });
    await Promise.all(this.o.channels.map((c) => c.close().catch(() => undefined)));
  }
}

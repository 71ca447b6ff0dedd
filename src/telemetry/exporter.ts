import { postOtlp, type PostLike } from './http-post.js';
import { retryAfterMs } from '../util/retry-after.js';
import { CONTENT_TYPE, encodeExport, type Origin } from './otlp-encode.js';
import type { SignalTarget } from './settings.js';
import { SIGNALS, type Signal, type SignalItems } from './signals.js';
import { TELEMETRY_DEFAULTS } from '../config/telemetry-schema.js';

/** What `hookd status` and doctor show of one signal's export. */
export interface SignalExportStats {
  url: string;
  /** Items waiting (including the batch being sent). */
  queued: number;
  sent: number;
  /** Dropped because the queue was full (the oldest go first). */
  dropped: number;
  /** Refused by the collector for good (a 4xx other than 408 and 429): not retried. */
  rejected: number;
  /** Failed attempts (network error, timeout, 5xx, 408, 429); each is retried with backoff. */
  failures: number;
  lastError?: string;
  lastSentAt?: number;
}

export interface ExporterOptions {
  targets: Partial<Record<Signal, SignalTarget>>;
  origin: Origin;
  maxQueue: number;
  batchSize?: number;
  flushIntervalMs?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** The HTTP POST (default: node:http(s)). */
  post?: PostLike;
  now?: () => number;
  /** Told of a failed attempt once per outage (and when it ends), never per item. */
  onTrouble?: (signal: Signal, problem: string | undefined) => void;
}

interface Queued<T> {
  seq: number;
  item: T;
}

/**
 * One signal's bounded queue and its sender. At most `maxQueue` items are held, counting the batch in
 * flight: a new item past it pushes out the oldest (counted in `dropped`). One request at a time; a
 * failed one is retried with exponential backoff (Retry-After honoured) and its items stay queued, so a
 * collector that is down, slow or answers 5xx loses nothing within the bound.
 */
class SignalQueue<S extends Signal> {
  private items: Queued<SignalItems[S]>[] = [];
  private nextSeq = 0;
  private timer: NodeJS.Timeout | undefined;
  private dueAt = 0;
  private sending: Promise<void> | undefined;
  private attempt = 0;
  private retryAt = 0;
  private closed = false;
  readonly stats: SignalExportStats;

  constructor(
    private readonly signal: S,
    private readonly target: SignalTarget,
    private readonly o: Required<Omit<ExporterOptions, 'targets' | 'onTrouble'>> &
      Pick<ExporterOptions, 'onTrouble'>,
  ) {
    this.stats = { url: target.url, queued: 0, sent: 0, dropped: 0, rejected: 0, failures: 0 };
  }

  push(item: SignalItems[S]): void {
    if (this.closed) return;
    this.items.push({ seq: this.nextSeq++, item });
    if (this.items.length > this.o.maxQueue) {
      const over = this.items.length - this.o.maxQueue;
      this.items.splice(0, over);
      this.stats.dropped += over;
    }
    this.stats.queued = this.items.length;
    this.schedule(this.items.length >= this.o.batchSize ? 0 : this.o.flushIntervalMs);
  }

  /** Arms the next send in `delayMs` unless one is due sooner; never before a backoff ends. */
  private schedule(delayMs: number): void {
    if (this.closed || this.sending) return;
    const at = Math.max(this.o.now() + delayMs, this.retryAt);
    if (this.timer && this.dueAt <= at) return;
    clearTimeout(this.timer);
    this.dueAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.sending = this.sendOne().finally(() => {
          this.sending = undefined;
          if (this.items.length > 0)
            this.schedule(this.items.length >= this.o.batchSize ? 0 : this.o.flushIntervalMs);
        });
      },
      Math.max(0, at - this.o.now()),
    );
    this.timer.unref();
  }
  private async sendOne(): Promise<void> {
    const batch = this.items.slice(0, this.o.batchSize);
    if (batch.length === 0) return;
    const last = batch[batch.length - 1]!.seq;
    let problem: string | undefined;
    let retryAfter: number | undefined;
    try {
      const body = await encodeExport(
        this.signal,
        batch.map((q) => q.item),
        this.o.origin,
        this.target.encoding,
      );
      const answer = await this.o.post(
        this.target.url,
        { ...this.target.headers, 'content-type': CONTENT_TYPE[this.target.encoding] },
        body,
        this.target.timeoutMs,
      );
      if (!answer.ok) problem = answer.timedOut ? 'timed out' : answer.reason;
      else if (answer.status >= 200 && answer.status < 300) {
        this.remove(last, 'sent');
      } else if (answer.status === 408 || answer.status === 429 || answer.status >= 500) {
        problem = `HTTP ${answer.status}`;
        retryAfter = retryAfterMs(answer.retryAfter, this.o.now());
      } else {
        // The collector will never take this batch (a bad request, a wrong token): it is not retried.
        this.remove(last, 'rejected');
        this.stats.lastError = `HTTP ${answer.status} (batch dropped)`;
        this.o.onTrouble?.(this.signal, this.stats.lastError);
        return;
      }
    } catch (error) {
      problem = (error as Error).message;
    }
    if (problem === undefined) {
      if (this.attempt > 0) this.o.onTrouble?.(this.signal, undefined);
      this.attempt = 0;
      this.retryAt = 0;
      this.stats.lastSentAt = this.o.now();
      return;
    }
    this.stats.failures += 1;
    this.stats.lastError = problem;
    if (this.attempt === 0) this.o.onTrouble?.(this.signal, problem);
    const backoff = Math.min(this.o.retryMaxMs, this.o.retryBaseMs * 2 ** Math.min(this.attempt, 20));
    this.attempt += 1;
    this.retryAt = this.o.now() + Math.min(this.o.retryMaxMs, Math.max(backoff, retryAfter ?? 0));
  }

  /** Removes the items up to `last` that are still queued (drop-oldest may have taken some already). */
  private remove(last: number, as: 'sent' | 'rejected'): void {
    let count = 0;
    while (this.items.length > 0 && this.items[0]!.seq <= last) {
      this.items.shift();
      count += 1;
    }
    this.stats[as] += count;
    this.stats.queued = this.items.length;
  }

  /** One last try to send what is queued (bounded by the request deadline); then nothing more starts. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.sending;
    if (this.items.length > 0 && this.attempt === 0) await this.sendOne();
    this.closed = true;
  }
}

/** The daemon's OTLP/HTTP exporter: one bounded queue and sender per configured signal. */
export class OtlpExporter {
  private readonly queues: Partial<{ [S in Signal]: SignalQueue<S> }> = {};

  constructor(options: ExporterOptions) {
    const o = {
      origin: options.origin,
      maxQueue: options.maxQueue,
      batchSize: options.batchSize ?? TELEMETRY_DEFAULTS.batchSize,
      flushIntervalMs: options.flushIntervalMs ?? TELEMETRY_DEFAULTS.flushIntervalMs,
      retryBaseMs: options.retryBaseMs ?? TELEMETRY_DEFAULTS.retryBaseMs,
      retryMaxMs: options.retryMaxMs ?? TELEMETRY_DEFAULTS.retryMaxMs,
      post: options.post ?? postOtlp,
      now: options.now ?? Date.now,
      onTrouble: options.onTrouble,
    };
    for (const signal of SIGNALS) {
      const target = options.targets[signal];
      if (target) (this.queues as Record<Signal, unknown>)[signal] = new SignalQueue(signal, target, o);
    }
  }

  /** Queues one item; never waits and never throws. A signal with no endpoint takes nothing. */
  record<S extends Signal>(signal: S, item: SignalItems[S]): void {
    (this.queues[signal] as SignalQueue<S> | undefined)?.push(item);
  }

  /** Whether this signal has somewhere to go. */
  sends(signal: Signal): boolean {
    return this.queues[signal] !== undefined;
  }

  stats(): Partial<Record<Signal, SignalExportStats>> {
    const out: Partial<Record<Signal, SignalExportStats>> = {};
    for (const signal of SIGNALS) {
      const queue = this.queues[signal];
      if (queue) out[signal] = { ...queue.stats };
    }
    return out;
  }

  async close(): Promise<void> {
    await Promise.all(SIGNALS.map((signal) => this.queues[signal]?.close()));
  }
}

import { postOtlp, type PostLike } from './http-post.js';
import { retryAfterMs } from '../util/retry-after.js';
import { CONTENT_TYPE, encodeExport, type Origin } from './otlp-encode.js';
import type { SignalTarget } from './settings.js';
import { SIGNALS, type Signal, type SignalItems } from './signals.js';
import { TELEMETRY_DEFAULTS } from '../config/schemas/telemetry-schema.js';

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
  /** Bytes waiting, where the queue is bounded by size too (forwarded agent telemetry). */
  queuedBytes?: number;
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
  onTrouble?: (signal: Signal, problem: string | undefined, what?: 'forwarded') => void;
  /** Forward the agents' own telemetry too (a queue per signal, bounded by bytes). */
  forward?: ForwardLimits;
}

interface Queued<T> {
  seq: number;
  item: T;
  weight: number;
}

/** Shared by every queue of one exporter. */
type QueueOptions = Required<Omit<ExporterOptions, 'targets' | 'onTrouble' | 'forward'>> &
  Pick<ExporterOptions, 'onTrouble'>;

/** What one queue holds and how a batch of it becomes a request body. */
interface QueueCodec<T> {
  encode(items: T[]): Promise<Uint8Array>;
  /** The item's size in bytes, where the queue is bounded by size too. */
  weigh?(item: T): number;
  /** At most this many bytes waiting (the oldest go first past it), and per request. */
  maxBytes?: number;
  batchBytes?: number;
}

/** One request's worth of an agent's own telemetry, already redacted and encoded for the collector. */
export interface ForwardChunk {
  /** protobuf: a whole export request; JSON: the resource entries of one, without the brackets. */
  body: Buffer;
}

/** The resource list of each signal's export request. */
export const RESOURCE_KEY: Record<Signal, string> = {
  traces: 'resourceSpans',
  metrics: 'resourceMetrics',
  logs: 'resourceLogs',
};

/**
 * Forwarded chunks batched into one request. Serialized protobuf messages concatenate into one message
 * whose repeated fields hold both (the wire format merges them); JSON resource lists are joined.
 */
function forwardCodec(signal: Signal, target: SignalTarget, limits: ForwardLimits): QueueCodec<ForwardChunk> {
  return {
    encode: (chunks) =>
      Promise.resolve(
        target.encoding === 'protobuf'
          ? Buffer.concat(chunks.map((c) => c.body))
          : Buffer.from(
              `{"${RESOURCE_KEY[signal]}":[${chunks.map((c) => c.body.toString('utf8')).join(',')}]}`,
            ),
      ),
    weigh: (chunk) => chunk.body.length,
    maxBytes: limits.maxBytes,
    batchBytes: limits.batchBytes,
  };
}

export interface ForwardLimits {
  /** Bytes of forwarded telemetry held per signal while the collector cannot take them. */
  maxBytes: number;
  /** Bytes per forwarded request at most (one larger chunk goes alone). */
  batchBytes: number;
}

/**
 * One signal's bounded queue and its sender. At most `maxQueue` items are held, counting the batch in
 * flight: a new item past it pushes out the oldest (counted in `dropped`). One request at a time; a
 * failed one is retried with exponential backoff (Retry-After honoured) and its items stay queued, so a
 * collector that is down, slow or answers 5xx loses nothing within the bound.
 */
class SignalQueue<T> {
  private items: Queued<T>[] = [];
  private bytes = 0;
  private nextSeq = 0;
  private timer: NodeJS.Timeout | undefined;
  private dueAt = 0;
  private sending: Promise<void> | undefined;
  private attempt = 0;
  private retryAt = 0;
  private closed = false;
  readonly stats: SignalExportStats;

  constructor(
    private readonly signal: Signal,
    private readonly target: SignalTarget,
    private readonly o: QueueOptions,
    private readonly codec: QueueCodec<T>,
  ) {
    this.stats = { url: target.url, queued: 0, sent: 0, dropped: 0, rejected: 0, failures: 0 };
    if (codec.maxBytes !== undefined) this.stats.queuedBytes = 0;
  }

  push(item: T): void {
    if (this.closed) return;
    const weight = this.codec.weigh?.(item) ?? 0;
    this.items.push({ seq: this.nextSeq++, item, weight });
    this.bytes += weight;
    const maxBytes = this.codec.maxBytes ?? Infinity;
    while (this.items.length > this.o.maxQueue || (this.bytes > maxBytes && this.items.length > 0)) {
      this.bytes -= this.items.shift()!.weight;
      this.stats.dropped += 1;
    }
    this.counted();
    this.schedule(this.items.length >= this.o.batchSize ? 0 : this.o.flushIntervalMs);
  }

  private counted(): void {
    this.stats.queued = this.items.length;
    if (this.stats.queuedBytes !== undefined) this.stats.queuedBytes = this.bytes;
  }

  /** The oldest items, up to the batch size and (past the first) the batch's bytes. */
  private nextBatch(): Queued<T>[] {
    const batchBytes = this.codec.batchBytes ?? Infinity;
    const batch: Queued<T>[] = [];
    let bytes = 0;
    for (const queued of this.items) {
      if (batch.length >= this.o.batchSize) break;
      if (batch.length > 0 && bytes + queued.weight > batchBytes) break;
      batch.push(queued);
      bytes += queued.weight;
    }
    return batch;
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
    const batch = this.nextBatch();
    if (batch.length === 0) return;
    const last = batch[batch.length - 1]!.seq;
    let problem: string | undefined;
    let retryAfter: number | undefined;
    try {
      const body = await this.codec.encode(batch.map((q) => q.item));
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
      this.bytes -= this.items.shift()!.weight;
      count += 1;
    }
    this.stats[as] += count;
    this.counted();
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
  private readonly queues: Partial<{ [S in Signal]: SignalQueue<SignalItems[S]> }> = {};
  /** The agents' own telemetry on its way to the same collector (docs/telemetry.md, "Forwarding"). */
  private readonly forwards: Partial<Record<Signal, SignalQueue<ForwardChunk>>> = {};

  private readonly targets: Partial<Record<Signal, SignalTarget>>;

  constructor(options: ExporterOptions) {
    this.targets = options.targets;
    const o: QueueOptions = {
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
      if (!target) continue;
      (this.queues as Record<Signal, unknown>)[signal] = new SignalQueue(signal, target, o, {
        encode: (items: SignalItems[typeof signal][]) =>
          encodeExport(signal, items, o.origin, target.encoding),
      });
      if (options.forward)
        this.forwards[signal] = new SignalQueue(
          signal,
          target,
          { ...o, onTrouble: (s, problem) => options.onTrouble?.(s, problem, 'forwarded') },
          forwardCodec(signal, target, options.forward),
        );
    }
  }

  /** Queues one item; never waits and never throws. A signal with no endpoint takes nothing. */
  record<S extends Signal>(signal: S, item: SignalItems[S]): void {
    (this.queues[signal] as SignalQueue<SignalItems[S]> | undefined)?.push(item);
  }

  /** Queues an agent's telemetry to forward; never waits. Nothing when forwarding is off. */
  forward(signal: Signal, chunk: ForwardChunk): void {
    this.forwards[signal]?.push(chunk);
  }

  /** Whether this signal has somewhere to go. */
  sends(signal: Signal): boolean {
    return this.queues[signal] !== undefined;
  }

  /** How this signal is sent, when it is. */
  encoding(signal: Signal): SignalTarget['encoding'] | undefined {
    return this.targets[signal]?.encoding;
  }

  stats(): Partial<Record<Signal, SignalExportStats>> {
    return statsOf(this.queues);
  }

  /** The forwarded agents' telemetry, per signal (empty when forwarding is off). */
  forwardStats(): Partial<Record<Signal, SignalExportStats>> {
    return statsOf(this.forwards);
  }

  async close(): Promise<void> {
    await Promise.all(
      SIGNALS.flatMap((signal) => [this.queues[signal]?.close(), this.forwards[signal]?.close()]),
    );
  }
}

function statsOf(queues: Partial<Record<Signal, { stats: SignalExportStats }>>) {
  const out: Partial<Record<Signal, SignalExportStats>> = {};
  for (const signal of SIGNALS) {
    const queue = queues[signal];
    if (queue) out[signal] = { ...queue.stats };
  }
  return out;
}

import type { Logger } from 'pino';
import type { Channel, DeliveryResult, ThreadStore } from '../channels/channel.js';
import { redactText } from '../logging/redact.js';
import { REF_MAX, type DaemonStore, type Delivery, type JournalRecord } from './store.js';
import { isRemoteChannel, redactNotification } from '../notify/redact-notification.js';

export interface OutboxOptions {
  store: DaemonStore;
  /** Appends records durably (the journal) and applies them to the store. */
  commit: (records: JournalRecord[]) => Promise<void>;
  /**
   * True while outcomes cannot be recorded (the disk is full): nothing is sent, since a delivery whose
   * success cannot be recorded would be sent again after a restart. Call wake() when it ends.
   */
  paused?: () => boolean;
  channels: () => Map<string, Channel>;
  retry: () => { baseMs: number; maxMs: number; maxAgeMs: number };
  now: () => number;
  logger: Logger;
  random?: () => number;
  /** Redaction of notifications sent by remote channels: home paths too? (enrich.redactHomePaths). */
  redaction?: { homePaths: boolean; home?: string | undefined };
}

export interface ChannelStats {
  delivered: number;
  failedAttempts: number;
  dead: number;
  lastError?: string;
  lastErrorAt?: number;
  lastDeliveredAt?: number;
  /** Milliseconds from event to delivery, last 1000. */
  latencies: number[];
}

/** Exponential backoff with full jitter between half and all of the step: base * 2^(attempt-1), capped. */
export function backoffMs(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const step = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(step / 2 + (random() * step) / 2);
}

/**
 * Delivers every pending delivery, per channel, in order. A channel retries its head until it succeeds,
 * fails for good, or grows older than the maximum age; other channels never wait for it.
 */
export class Outbox {
  private readonly workers = new Map<string, Promise<void>>();
  private readonly wakers = new Map<string, () => void>();
  private running = false;
  readonly stats = new Map<string, ChannelStats>();
  readonly threads: ThreadStore;

  constructor(private readonly options: OutboxOptions) {
    this.threads = {
      get: (key) => options.store.threads.get(key),
      set: (key, ts) => options.commit([{ t: 'thread', k: key, ts }]),
    };
  }

  start(): void {
    this.running = true;
    this.wake();
  }

  statsFor(channel: string): ChannelStats {
    let stats = this.stats.get(channel);
    if (!stats)
      this.stats.set(channel, (stats = { delivered: 0, failedAttempts: 0, dead: 0, latencies: [] }));
    return stats;
  }

  /** Starts or nudges the worker of each channel that has work (or just the named ones). */
  wake(channels?: Iterable<string>): void {
    if (!this.running) return;
    for (const name of channels ?? this.options.store.channelsWithWork()) {
      const waker = this.wakers.get(name);
      if (waker) waker();
      else if (!this.workers.has(name)) {
        const worker = this.work(name).finally(() => this.workers.delete(name));
        this.workers.set(name, worker);
      }
    }
  }

  /** Stops taking new work and waits for the attempts in flight to end. */
  async stop(): Promise<void> {
    this.running = false;
    for (const waker of this.wakers.values()) waker();
    await Promise.allSettled([...this.workers.values()]);
  }

  private sleep(channel: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, ms));
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakers.set(channel, () => {
        this.wakers.delete(channel);
        done();
      });
    });
  }

  private async work(name: string): Promise<void> {
    const { store, now } = this.options;
    while (this.running) {
      const head = this.options.paused?.() ? undefined : store.head(name);
      if (!head) {
        // Workers live as long as the outbox: a wake-up finds them asleep, never half-way out.
        await this.sleep(name, 60_000);
        continue;
      }
      const wait = head.nextAt - now();
      if (wait > 0) {
        await this.sleep(name, wait);
        continue;
      }
      try {
        await this.attempt(head);
      } catch (error) {
        // Only the journal can throw here (the daemon is closing on a disk that refuses writes).
        this.options.logger.error(
          { delivery: head.id, channel: name, error: (error as Error).message },
          'cannot record a delivery outcome',
        );
        await this.sleep(name, 1000);
      }
    }
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const { now, logger, commit } = this.options;
    const stats = this.statsFor(delivery.channel);
    const channel = this.options.channels().get(delivery.channel);
    const { baseMs, maxMs, maxAgeMs } = this.options.retry();
    const attempts = delivery.attempts + 1;
    let result: DeliveryResult;
    if (!channel) {
      result = {
        ok: false,
        retryable: false,
        error: `channel "${delivery.channel}" is no longer configured`,
      };
    } else {
      try {
        const outgoing = isRemoteChannel(channel)
          ? redactNotification(delivery.notification, this.options.redaction)
          : delivery.notification;
        result = await channel.send(outgoing, {
          deliveryId: delivery.id,
          attempt: attempts,
          threads: this.threads,
        });
      } catch (error) {
        result = { ok: false, retryable: true, error: `channel threw: ${(error as Error).message}` };
      }
    }
    const at = now();
    if (result.ok) {
      stats.delivered++;
      stats.lastDeliveredAt = at;
      stats.latencies.push(at - delivery.notification.at);
      if (stats.latencies.length > 1000) stats.latencies.shift();
      const ref = result.ref && result.ref.length <= REF_MAX ? { ref: result.ref } : {};
      await commit([{ t: 'ok', id: delivery.id, at, ...ref }]);
      logger.debug({ delivery: delivery.id, channel: delivery.channel, attempts }, 'delivered');
      return;
    }
    const error = redactText(result.error);
    stats.failedAttempts++;
    stats.lastError = error;
    stats.lastErrorAt = at;
    const age = at - delivery.createdAt;
    if (!result.retryable || age >= maxAgeMs) {
      stats.dead++;
      const reason = result.retryable
        ? `gave up after ${attempts} attempts over ${Math.round(age / 1000)}s: ${error}`
        : error;
      await commit([{ t: 'dead', id: delivery.id, at, error: reason }]);
      logger.error(
        { delivery: delivery.id, channel: delivery.channel, attempts, reason },
        'delivery dead-lettered',
      );
      return;
    }
    const delay = Math.max(backoffMs(attempts, baseMs, maxMs, this.options.random), result.retryAfterMs ?? 0);
    const nextAt = Math.min(at + delay, delivery.createdAt + maxAgeMs);
    await commit([{ t: 'fail', id: delivery.id, attempts, nextAt, error }]);
    logger.warn(
      { delivery: delivery.id, channel: delivery.channel, attempts, retryInMs: nextAt - at, error },
      'delivery failed; will retry',
    );
  }
}

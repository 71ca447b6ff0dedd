import { createHash } from 'node:crypto';
import { WATCHER_NAMES, type WatchConfig, type WatcherName } from '../config/schemas/watch-schema.js';
import type { EventHandoff } from '../events/types.js';
import { PLATFORM_WATCH_EVENT } from '../events/names.js';
import { ForbiddenError, RateLimitError, UnauthorizedError } from '../platform-api/errors.js';
import { printable } from '../util/text/printable.js';
import { realTimers, type Timers } from '../util/timers.js';
import {
  freshWatcherState,
  loadWatchFile,
  saveWatchFile,
  type WatchFile,
  type WatcherState,
} from './state-file.js';
import type { WatchClient, WatchRaise } from './types.js';
import { WATCHERS } from './watchers.js';
import { watcherRows, type WatcherRow } from './report.js';

/** The first delay after a failed poll; doubled for each failure in a row. */
export const WATCH_BACKOFF_BASE_MS = 60_000;
/** The longest delay after failures (or the watcher's interval, when that is longer). */
export const WATCH_BACKOFF_MAX_MS = 3_600_000;
/** How long a watcher whose key is refused (401) or lacks the role (403) waits before it asks again. */
export const WATCH_REFUSED_RETRY_MS = 6 * 3_600_000;
/** A Retry-After longer than this is read as this. */
export const WATCH_RETRY_AFTER_MAX_MS = 24 * 3_600_000;
/** Events one poll raises at most; the rest are told in one summary event. */
export const WATCH_MAX_RAISES_PER_POLL = 20;

interface WatchLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface WatchRunnerOptions {
  config: WatchConfig;
  client: WatchClient;
  /** The watch file (`<state>/daemon/watch.json`). */
  file: string;
  /** Takes the events of one poll in; resolves once they are durable (the daemon's ingest). */
  raise: (handoffs: EventHandoff[]) => Promise<void>;
  now: () => number;
  logger: WatchLogger;
  /** Timers (default: setTimeout, unref'd). */
  timers?: Timers;
}

/** What one poll did, for `hookd watch test` and the log. */
export interface PollOutcome {
  watcher: WatcherName;
  ok: boolean;
  raised: WatchRaise[];
  summary?: string;
  error?: string;
  status: WatcherState['status'];
  nextPollAt: number;
}

/** The delay after `failures` failed polls in a row (1 or more). */
export function backoffDelay(failures: number, intervalMs: number): number {
  const cap = Math.max(WATCH_BACKOFF_MAX_MS, intervalMs);
  return Math.min(cap, WATCH_BACKOFF_BASE_MS * 2 ** Math.min(30, Math.max(0, failures - 1)));
}

/**
 * When to poll again after an error, and the watcher's status: a 429 waits for its Retry-After (else
 * the doubling backoff, never sooner than the interval); a 401 or 403 (a key without the role the
 * endpoint needs) waits WATCH_REFUSED_RETRY_MS, since asking again soon cannot help; any other failure
 * (network, timeout, 5xx, an answer that is not the contract) backs off, doubling from a minute.
 */
export function afterFailure(
  error: unknown,
  failures: number,
  intervalMs: number,
): { status: WatcherState['status']; delayMs: number; hint?: string } {
  if (error instanceof RateLimitError) {
    const wait = error.retryAfterMs;
    return {
      status: 'rate-limited',
      delayMs:
        wait !== undefined
          ? Math.min(Math.max(wait, 1000), WATCH_RETRY_AFTER_MAX_MS)
          : Math.max(intervalMs, backoffDelay(failures, intervalMs)),
    };
  }
  if (error instanceof ForbiddenError)
    return {
      status: 'forbidden',
      delayMs: WATCH_REFUSED_RETRY_MS,
      hint: 'the API key lacks the role this endpoint needs (analytics need a Manager or Owner)',
    };
  if (error instanceof UnauthorizedError)
    return {
      status: 'unauthorized',
      delayMs: WATCH_REFUSED_RETRY_MS,
      hint: 'the API key is missing or invalid',
    };
  return { status: 'error', delayMs: backoffDelay(failures, intervalMs) };
}

/** The stable event id of a raise: the same change is taken in once, however often it is raised. */
export function watchEventId(raise: WatchRaise): string {
  return `watch-${createHash('sha256').update(raise.key).digest('hex').slice(0, 40)}`;
}

/** A raise as the event the daemon takes in: PlatformWatch, matched by rules like a hook event. */
export function watchHandoff(raise: WatchRaise, at: number): EventHandoff {
  return {
    v: 1,
    type: 'event',
    event: {
      id: watchEventId(raise),
      receivedAt: at,
      agent: 'unknown',
      name: PLATFORM_WATCH_EVENT,
      payload: {
        hook_event_name: PLATFORM_WATCH_EVENT,
        notification_type: raise.kind,
        watcher: raise.watcher,
        title: raise.title,
        message: raise.message,
        details: raise.details,
      },
    },
    results: [],
  };
}

/** At most WATCH_MAX_RAISES_PER_POLL raises: the rest folded into one summary. */
export function capRaises(raised: WatchRaise[], seq: number): WatchRaise[] {
  if (raised.length <= WATCH_MAX_RAISES_PER_POLL) return raised;
  const kept = raised.slice(0, WATCH_MAX_RAISES_PER_POLL - 1);
  const rest = raised.length - kept.length;
  const watcher = raised[0]!.watcher;
  return [
    ...kept,
    {
      watcher,
      kind: 'watch-summary',
      key: `${watcher}/summary@${seq}`,
      title: `${rest} more ${watcher} change(s)`,
      message: `The ${watcher} watcher saw ${raised.length} changes at once; ${rest} are not told one by one (hookd watch list).`,
      details: { more: rest },
    },
  ];
}

/**
 * The daemon's watchers (docs/watch.md): each enabled one polls on its own schedule, one request at a
 * time for all of them; what a poll raises is made durable (the daemon's journal) before what it saw is
 * remembered, so a crash between the two raises the same events again, with the same ids, and the
 * daemon takes them in once. The schedule survives a restart: a watcher polls at its saved next time.
 */
export class WatchRunner {
  private file!: WatchFile;
  private readonly timers: Timers;
  private readonly handles = new Map<WatcherName, unknown>();
  private chain: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(private readonly o: WatchRunnerOptions) {
    this.timers = o.timers ?? realTimers;
  }

  /** The watchers turned on in the config. */
  enabled(): WatcherName[] {
    return WATCHER_NAMES.filter((name) => this.o.config[name].enabled);
  }

  /** Loads the saved state and schedules each enabled watcher (at its saved next time, else now). */
  start(): void {
    const { o } = this;
    this.file = loadWatchFile(o.file, o.now(), (problem, movedTo) =>
      o.logger.error(
        { source: 'watch', file: o.file, problem, quarantined: movedTo },
        'the saved watch state is not valid; moved aside, the watchers start from a new baseline',
      ),
    );
    // A watcher turned off forgets what it saw: turned on again later, it takes a new baseline.
    for (const name of WATCHER_NAMES) if (!o.config[name].enabled) delete this.file.watchers[name];
    for (const name of this.enabled()) {
      const state = this.file.watchers[name];
      this.schedule(name, Math.max(0, (state?.nextPollAt ?? o.now()) - o.now()));
    }
    o.logger.info({ source: 'watch', watchers: this.enabled() }, 'platform watchers started');
  }

  /** Each watcher's settings and state now, as `hookd status` shows them. */
  rows(): WatcherRow[] {
    return watcherRows(this.o.config, this.file.watchers);
  }

  /** The saved state of each watcher (a copy). */
  states(): Partial<Record<WatcherName, WatcherState>> {
    return structuredClone(this.file.watchers);
  }

  /** Stops the timers and waits for the poll in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const handle of this.handles.values()) this.timers.clear(handle);
    this.handles.clear();
    await this.chain.catch(() => {});
  }

  /** Polls one watcher now (after the poll in flight), then schedules its next poll. */
  pollNow(name: WatcherName): Promise<PollOutcome> {
    const run = this.chain.then(() => this.poll(name));
    this.chain = run.catch(() => {});
    return run;
  }

  private schedule(name: WatcherName, delayMs: number): void {
    if (this.stopped) return;
    const old = this.handles.get(name);
    if (old !== undefined) this.timers.clear(old);
    this.handles.set(
      name,
      this.timers.set(() => {
        this.handles.delete(name);
        void this.pollNow(name);
      }, delayMs),
    );
  }

  private async poll(name: WatcherName): Promise<PollOutcome> {
    const { o } = this;
    const interval = o.config[name].interval;
    const before = this.file.watchers[name] ?? freshWatcherState();
    const at = o.now();
    let outcome: PollOutcome;
    let state: WatcherState;
    try {
      const result = await WATCHERS[name].poll({
        client: o.client,
        config: o.config,
        memory: before.memory,
        now: at,
        seq: before.seq + 1,
      });
      const raised = capRaises(result.raised, before.seq + 1);
      if (raised.length > 0) await o.raise(raised.map((r) => watchHandoff(r, o.now())));
      state = {
        status: 'ok',
        seq: before.seq + 1,
        lastPollAt: at,
        lastOkAt: at,
        nextPollAt: at + interval,
        failures: 0,
        summary: printable(result.summary, 500),
        raised: before.raised + raised.length,
        memory: result.memory,
      };
      outcome = {
        watcher: name,
        ok: true,
        raised,
        summary: result.summary,
        status: 'ok',
        nextPollAt: at + interval,
      };
      if (raised.length > 0)
        o.logger.info(
          { source: 'watch', watcher: name, raised: raised.map((r) => r.kind) },
          'a platform watcher raised events',
        );
    } catch (error) {
      const failures = before.failures + 1;
      const next = afterFailure(error, failures, interval);
      const message = printable((error as Error).message, 500);
      state = {
        ...before,
        status: next.status,
        lastPollAt: at,
        nextPollAt: at + next.delayMs,
        failures,
        lastError: next.hint ? `${message} (${next.hint})` : message,
      };
      outcome = {
        watcher: name,
        ok: false,
        raised: [],
        error: state.lastError!,
        status: next.status,
        nextPollAt: at + next.delayMs,
      };
      o.logger.warn(
        { source: 'watch', watcher: name, status: next.status, error: message, retryInMs: next.delayMs },
        'a platform watcher could not poll',
      );
    }
    this.file.watchers[name] = state;
    try {
      saveWatchFile(o.file, this.file);
    } catch (error) {
      o.logger.error(
        { source: 'watch', file: o.file, error: (error as Error).message },
        'cannot save the watch state; it is kept in memory and saved after the next poll',
      );
    }
    this.schedule(name, state.nextPollAt! - o.now());
    return outcome;
  }
}

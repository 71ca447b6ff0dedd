import { existsSync, rmSync } from 'node:fs';
import { writePrivateFileAtomic } from '../util/private-fs.js';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { EventHandoff, HookEvent } from '../events/types.js';
import { spoolDir, stateDir, type Env } from '../paths.js';
import type { Channel } from '../notify/channels/channel.js';
import type { FetchLike } from '../notify/channels/http.js';
import type { DesktopOptions } from '../notify/channels/desktop.js';
import { buildChannels } from '../notify/channels/build-channels.js';
import { ConfigStore, type ConfigState } from './config-store.js';
import { createDaemonLogger } from './logger.js';
import {
  acquireLock,
  daemonFiles,
  ensurePrivateDir,
  forceBreakLock,
  lockAgeMs,
  readPidFile,
} from './runtime-files.js';
import { openDaemonJournal } from './journal-schema.js';
import { DaemonStore, type Delivery, type JournalRecord } from './store.js';
import { Outbox, type ChannelStats } from './outbox.js';
import { Coalescer, coalescedNotification, type Burst } from '../notify/coalescer.js';
import { createNoiseState, observeEvent, pruneNoise, recordSent, serializeNoise } from '../notify/noise.js';
import { effectiveRules, evaluateRules, type FiredRule } from '../notify/rules.js';
import { quietStateAt } from '../notify/quiet-hours.js';
import { listenOnSocket, type SocketServer } from './server.js';
import { eventRequestSchema, type DaemonRequest, type OutboxRequest } from './protocol.js';
import { listSpool, quarantineSpoolFile, readSpoolFile, removeSpoolFile } from './spool.js';
import type { DefaultText, RenderedNotification, Urgency } from '../notify/notification.js';
import { PROTOCOL_VERSION, requestDaemon } from './client.js';
import { ENRICH_DEFAULTS } from '../config/enrich-schema.js';

/** A lock held by a live pid that does not answer on the socket for this long is taken over. */
const STALE_LOCK_MS = 30_000;

export interface StartDaemonOptions {
  env?: Env;
  /** A fixed config instead of the user config file (no reload). Raw values, validated here. */
  config?: { notify?: unknown; daemon?: unknown };
  /** Watch the config file for changes (default true when no fixed config is given). */
  watchConfig?: boolean;
  /** Replace channels by name (tests, `hookd demo`). */
  channels?: Record<string, Channel>;
  fetch?: FetchLike;
  desktop?: DesktopOptions;
  /** Enrichment of an event (session title, last message...); the enricher keeps its own budget. */
  enrich?: (event: HookEvent) => Promise<Record<string, unknown>>;
  /** A safety net around `enrich` (default: enrich.budgetMs + 250 ms). */
  enrichBudgetMs?: number;
  /** Redact absolute home paths too in what remote channels send (enrich.redactHomePaths). */
  redactHomePaths?: boolean;
  /** Wording for rules without their own title/body. */
  defaultText?: DefaultText;
  /** Called once per event, in order, before rules (the session ledger). Errors are logged, not fatal. */
  onEvent?: (handoff: EventHandoff) => Promise<void>;
  now?: () => number;
  logger?: Logger;
  /** How often held notifications and noise state are looked at (default 5000 ms; tests use less). */
  housekeepingIntervalMs?: number;
}

export interface ChannelStatus extends Omit<ChannelStats, 'latencies'> {
  name: string;
  type: string;
  description: string;
  healthy: boolean;
  problems: string[];
  pending: number;
  latencyP50Ms?: number;
  latencyP99Ms?: number;
}

export interface DaemonStats {
  v: number;
  pid: number;
  startedAt: number;
  uptimeMs: number;
  socketPath: string;
  /** `error` while the disk refuses writes (full, I/O error): new events are refused meanwhile. */
  journal: { file: string; bytes: number; error?: string; troubleSince?: number };
  events: {
    received: number;
    duplicates: number;
    fromSpool: number;
    rejected: number;
    processed: number;
    pending: number;
  };
  notifications: { fired: number; suppressed: number; coalesced: number; held: number; digests: number };
  outbox: { pending: number; held: number; dead: number };
  channels: ChannelStatus[];
  config: { ok: boolean; file?: string; loadedAt: number; appliedAt: number; issues: ConfigState['issues'] };
  memory: { rssBytes: number; heapUsedBytes: number };
}

export interface DaemonHandle {
  socketPath: string;
  /** Stops accepting, finishes the work in flight, persists the rest, releases the lock. */
  close(): Promise<void>;
  stats(): DaemonStats;
  /** Re-reads the config file now (the watcher does it on change). */
  reloadConfig(): boolean;
  /** Resolves when the daemon has closed (e.g. after a `shutdown` request). */
  closed: Promise<void>;
}

/** Thrown when another daemon of the same user holds the lock. */
export class DaemonRunningError extends Error {
  constructor(readonly pid: number) {
    super(`a hookd daemon is already running (pid ${pid})`);
    this.name = 'DaemonRunningError';
  }
}

function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const URGENCY_ORDER: Urgency[] = ['low', 'normal', 'critical'];

/** Starts the notification daemon in this process: lock, journal replay, spool drain, socket, workers. */
export async function startDaemon(options: StartDaemonOptions = {}): Promise<DaemonHandle> {
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  const startedAt = now();
  const files = daemonFiles(env);
  ensurePrivateDir(files.dir);
  // A daemon answering on the socket runs, whatever the lock says: from another PID namespace (a hook
  // of a sandboxed agent) its pid is invisible, and the lock would look stale and be taken over.
  if (existsSync(files.socket)) {
    const ping = await requestDaemon({ v: PROTOCOL_VERSION, type: 'ping' }, { env, timeoutMs: 1000 });
    if (ping.ok && ping.reply.ok === true)
      throw new DaemonRunningError(
        typeof ping.reply.pid === 'number' ? ping.reply.pid : (readPidFile(files.lock) ?? 0),
      );
  }
  let lock = acquireLock(files.lock);
  if (!lock.acquired) {
    // The pid is alive. A daemon answers on its socket; a lock that old without one is a reused pid.
    const ping = await requestDaemon({ v: PROTOCOL_VERSION, type: 'ping' }, { env, timeoutMs: 1000 });
    if (ping.ok || lockAgeMs(files.lock) < STALE_LOCK_MS) throw new DaemonRunningError(lock.heldBy);
    forceBreakLock(files.lock);
    lock = acquireLock(files.lock);
    if (!lock.acquired) throw new DaemonRunningError(lock.heldBy);
  }

  let logger = options.logger;
  const cleanups: (() => void)[] = [lock.release];
  try {
    logger ??= createDaemonLogger(env);
    const log = logger;
    const counters = {
      received: 0,
      duplicates: 0,
      fromSpool: 0,
      rejected: 0,
      processed: 0,
      fired: 0,
      suppressed: 0,
      coalesced: 0,
      held: 0,
      digests: 0,
    };

    let channels = new Map<string, Channel>();
    const rebuildChannels = (state: ConfigState) => {
      channels = buildChannels(state.notify, {
        env,
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.desktop ? { desktop: options.desktop } : {}),
        ...(options.channels ? { overrides: options.channels } : {}),
      });
      for (const channel of channels.values()) {
        const health = channel.health();
        if (!health.ok || health.problems.length > 0)
          log.warn(
            { channel: channel.name, type: channel.type, problems: health.problems },
            'channel has problems',
          );
      }
      log.info(
        { channels: [...channels.values()].map((c) => ({ name: c.name, is: c.describe() })) },
        'channels ready',
      );
    };
    const config = new ConfigStore({
      env,
      logger: log,
      now,
      ...(options.config ? { fixed: options.config } : {}),
      onChange: (state) => {
        if (state.ok) rebuildChannels(state);
      },
    });
    if (channels.size === 0) rebuildChannels(config.state);
    log.level = config.state.daemon.logLevel;

    const daemonDir = join(stateDir(env), 'daemon');
    let onJournalRecovered = () => {};
    const journal = openDaemonJournal(join(daemonDir, 'journal.jsonl'), {
      fsync: config.state.daemon.fsync,
      onTrouble: (error) => {
        if (error) {
          log.error(
            { error: error.message, code: (error as NodeJS.ErrnoException).code, file: journal.file },
            'cannot write the journal; refusing new events and holding deliveries until it can',
          );
        } else {
          log.info({ file: journal.file }, 'the journal is writable again; resuming');
          onJournalRecovered();
        }
      },
    });
    const store = new DaemonStore(config.state.daemon.seenIdsMax);
    for (const record of await journal.open()) store.apply(record);
    if (journal.quarantined > 0)
      log.error(
        { count: journal.quarantined, file: journal.quarantineFile },
        'journal lines that are not valid records were quarantined; the rest is used',
      );
    cleanups.push(() => void journal.close());

    let compacting: Promise<void> | undefined;
    const commit = async (records: JournalRecord[]): Promise<void> => {
      for (const record of records) store.apply(record);
      await journal.append(records);
      if (!compacting && journal.size > config.state.daemon.compactBytes) {
        compacting = journal
          .rewrite(() => store.snapshot())
          .catch((error: Error) => log.error({ error: error.message }, 'journal compaction failed'))
          .finally(() => (compacting = undefined));
      }
    };

    const outbox = new Outbox({
      store,
      commit,
      paused: () => journal.trouble !== undefined,
      channels: () => channels,
      now,
      logger: log,
      redaction: { homePaths: options.redactHomePaths ?? false, home: env.HOME },
      retry: () => ({
        baseMs: config.state.daemon.retryBaseMs,
        maxMs: config.state.daemon.retryMaxMs,
        maxAgeMs: config.state.daemon.outboxMaxAgeMs,
      }),
    });

    onJournalRecovered = () => {
      outbox.wake();
      scheduleDrain();
    };

    // ---- processing: rules, coalescing, quiet hours, into the outbox -------------------------------
    const noise = createNoiseState();
    const outstanding = new Map<string, number>();
    const home = env.HOME;

    const deliveriesFor = (
      idBase: string,
      index: number,
      targets: readonly string[],
      notification: RenderedNotification,
      heldUntil?: number,
    ): JournalRecord[] =>
      targets.map((channel) => {
        const at = now();
        const d: Delivery = {
          id: `${idBase}/${index}/${channel}`,
          channel,
          notification,
          createdAt: at,
          state: heldUntil !== undefined ? 'held' : 'pending',
          attempts: 0,
          nextAt: at,
          ...(heldUntil !== undefined ? { heldUntil } : {}),
        };
        return { t: 'add', d };
      });

    const quietHold = (urgency: Urgency): number | undefined => {
      const quietHours = config.state.notify.quietHours;
      const quiet = quietStateAt(now(), quietHours);
      if (!quiet.quiet || (urgency === 'critical' && quietHours?.allowUrgent)) return undefined;
      return quiet.endsAt;
    };

    const flushBurst = (burst: Burst) => {
      const notification = coalescedNotification(burst);
      if (burst.items.length > 1) counters.coalesced += burst.items.length;
      const heldUntil = quietHold(notification.urgency);
      if (heldUntil !== undefined) counters.held++;
      const firstId = burst.items[0]!.notification.eventIds[0]!;
      const records = deliveriesFor(`${firstId}/burst`, burst.index, burst.channels, notification, heldUntil);
      for (const item of burst.items) {
        for (const id of item.notification.eventIds) {
          const left = (outstanding.get(id) ?? 1) - 1;
          if (left <= 0) {
            outstanding.delete(id);
            records.push({ t: 'done', id });
          } else outstanding.set(id, left);
        }
      }
      commit(records)
        .then(() => outbox.wake(burst.channels))
        .catch((error: Error) =>
          log.error({ error: error.message }, 'cannot record a coalesced notification'),
        );
    };
    const coalescer = new Coalescer(
      () => ({
        windowMs: config.state.notify.noise.coalesceWindowMs,
        maxHoldMs: config.state.notify.noise.coalesceMaxHoldMs,
      }),
      flushBurst,
      now,
    );

    const enrichWithin = async (event: HookEvent): Promise<Record<string, unknown>> => {
      if (!options.enrich) return {};
      const { rules } = effectiveRules(config.state.notify);
      const wanted = rules.some((rule) => {
        const on = Array.isArray(rule.on) ? rule.on : [rule.on];
        return rule.enabled && (on.includes(event.name) || on.includes('*'));
      });
      if (!wanted || !config.state.notify.enabled) return {};
      let timer: NodeJS.Timeout | undefined;
      try {
        return await Promise.race([
          options.enrich(event),
          new Promise<Record<string, unknown>>(
            (resolve) =>
              (timer = setTimeout(
                () => resolve({}),
                options.enrichBudgetMs ?? ENRICH_DEFAULTS.budgetMs + 250,
              )),
          ),
        ]);
      } catch (error) {
        log.warn(
          { event: event.name, eventId: event.id, error: (error as Error).message },
          'enrichment failed; sending without it',
        );
        return {};
      } finally {
        clearTimeout(timer);
      }
    };

    const processOne = async (
      handoff: EventHandoff,
      enrichment: Record<string, unknown>,
    ): Promise<JournalRecord[]> => {
      const event = handoff.event;
      const at = now();
      observeEvent(noise, event, at);
      if (options.onEvent) {
        try {
          await options.onEvent(handoff);
        } catch (error) {
          log.error(
            { event: event.name, eventId: event.id, error: (error as Error).message },
            'event hook (ledger) failed',
          );
        }
      }
      const evaluation = evaluateRules(event, enrichment, config.state.notify, noise, at, {
        ...(home ? { home } : {}),
        ...(options.defaultText ? { defaultText: options.defaultText } : {}),
        results: handoff.results,
      });
      recordSent(
        noise,
        evaluation.fired.map((f) => ({
          dedupeKey: f.dedupeKey,
          ...(f.cooldownKey ? { cooldownKey: f.cooldownKey } : {}),
          idle: event.name === 'Notification' && event.payload.notification_type === 'idle_prompt',
          ...(event.sessionId ? { sessionId: event.sessionId } : {}),
          ...(f.permissionAsk ? { permissionAsk: f.permissionAsk } : {}),
        })),
        at,
      );
      counters.fired += evaluation.fired.length;
      const suppressed = evaluation.skipped.filter(
        (s) => !s.reason.startsWith('filter:') && !s.reason.startsWith('rule disabled'),
      ).length;
      counters.suppressed += suppressed;
      // Suppressed notifications (dedupe, cooldown, a duplicate permission ask, a held Stop) are logged too.
      if (evaluation.fired.length > 0 || suppressed > 0 || log.isLevelEnabled('debug')) {
        log.info(
          {
            event: event.name,
            eventId: event.id,
            ...(event.sessionId ? { sessionId: event.sessionId } : {}),
            fired: evaluation.fired.map((f) => f.rule),
            skipped: evaluation.skipped.map((s) => `${s.rule}: ${s.reason}`),
          },
          'rules evaluated',
        );
      }
      const records: JournalRecord[] = [];
      let held = 0;
      for (const fired of evaluation.fired) {
        if (fired.coalesce && config.state.notify.noise.coalesceWindowMs > 0) {
          coalescer.add(fired);
          held++;
          continue;
        }
        if (fired.deferred) counters.held++;
        records.push(
          ...deliveriesFor(
            event.id,
            fired.index,
            fired.channels,
            fired.notification,
            fired.deferred ? fired.quietEndsAt : undefined,
          ),
        );
      }
      // hookd's own notices (an untrusted project file, a broken config) go to the desktop as they are.
      (handoff.notices ?? []).forEach((notice, i) => {
        records.push(
          ...deliveriesFor(`${event.id}/notice`, i, ['desktop'], {
            title: notice.title,
            body: notice.body,
            urgency: 'normal',
            rule: 'hookd-config',
            event: event.name,
            eventIds: [event.id],
            count: 1,
            at,
            fields: [],
          }),
        );
      });
      if (held > 0) outstanding.set(event.id, held);
      else records.push({ t: 'done', id: event.id });
      counters.processed++;
      return records;
    };

    const queue: EventHandoff[] = [];
    let processing: Promise<void> | undefined;
    let stopping = false;
    const processQueue = async () => {
      while (queue.length > 0 && !stopping) {
        const batch = queue.splice(0, 64);
        const enrichments = await Promise.all(batch.map((h) => enrichWithin(h.event)));
        const records: JournalRecord[] = [];
        const touched = new Set<string>();
        for (let i = 0; i < batch.length; i++) {
          const out = await processOne(batch[i]!, enrichments[i]!);
          for (const r of out) if (r.t === 'add') touched.add(r.d.channel);
          records.push(...out);
        }
        try {
          await commit(records);
        } catch (error) {
          log.error({ error: (error as Error).message }, 'cannot record processed events; they stay pending');
        }
        outbox.wake(touched);
      }
      processing = undefined;
    };
    const enqueue = (handoff: EventHandoff) => {
      queue.push(handoff);
      processing ??= processQueue();
    };

    // ---- ingest: socket and spool; durable before the ack ------------------------------------------
    const inflight = new Map<string, Promise<void>>();
    const ingest = async (handoff: EventHandoff): Promise<{ duplicate: boolean }> => {
      const id = handoff.event.id;
      if (store.seen.has(id)) {
        await inflight.get(id);
        counters.duplicates++;
        return { duplicate: true };
      }
      const durable = commit([{ t: 'in', at: now(), h: handoff }]);
      inflight.set(id, durable);
      try {
        await durable;
      } catch (error) {
        store.seen.delete(id);
        store.pendingEvents.delete(id);
        throw error;
      } finally {
        inflight.delete(id);
      }
      counters.received++;
      enqueue(handoff);
      return { duplicate: false };
    };

    const spool = spoolDir(env);
    let draining: Promise<void> | undefined;
    const drainSpool = async (): Promise<void> => {
      if (journal.trouble) return;
      const names = listSpool(spool);
      for (let i = 0; i < names.length; i += 256) {
        const chunk = names.slice(i, i + 256);
        const fresh: EventHandoff[] = [];
        const records: JournalRecord[] = [];
        const ids = new Set<string>();
        const read: string[] = [];
        for (const name of chunk) {
          const text = readSpoolFile(spool, name);
          if (text === undefined) continue;
          let parsed;
          try {
            parsed = eventRequestSchema.safeParse(JSON.parse(text));
          } catch {
            parsed = undefined;
          }
          if (!parsed?.success) {
            counters.rejected++;
            quarantineSpoolFile(spool, name);
            log.error({ file: name }, 'spooled file is not a valid event; moved to spool/rejected');
            continue;
          }
          read.push(name);
          const handoff = parsed.data as unknown as EventHandoff;
          if (store.seen.has(handoff.event.id) || ids.has(handoff.event.id)) {
            counters.duplicates++;
            continue;
          }
          ids.add(handoff.event.id);
          fresh.push(handoff);
          records.push({ t: 'in', at: now(), h: handoff });
        }
        await commit(records);
        for (const name of read) removeSpoolFile(spool, name);
        counters.fromSpool += fresh.length;
        counters.received += fresh.length;
        for (const handoff of fresh) enqueue(handoff);
        if (fresh.length > 0) log.info({ events: fresh.length }, 'drained spooled events');
      }
    };
    const scheduleDrain = () => {
      if (draining || stopping) return;
      draining = drainSpool()
        .catch((error: Error) => log.error({ error: error.message }, 'spool drain failed'))
        .finally(() => (draining = undefined));
    };

    // ---- quiet hours: release held notifications as one digest per channel -------------------------
    const releaseHeld = async () => {
      const at = now();
      if (quietStateAt(at, config.state.notify.quietHours).quiet) return;
      const due = store.heldDue(at);
      if (due.length === 0) return;
      const byChannel = new Map<string, Delivery[]>();
      for (const d of due) byChannel.set(d.channel, [...(byChannel.get(d.channel) ?? []), d]);
      const records: JournalRecord[] = [];
      for (const [channel, held] of byChannel) {
        if (held.length === 1 || config.state.notify.quietHours?.digest === false) {
          records.push({ t: 'unhold', ids: held.map((d) => d.id), at });
          continue;
        }
        const titles = held.map((d) => d.notification.title);
        const urgency = held
          .map((d) => d.notification.urgency)
          .reduce((a, b) => (URGENCY_ORDER.indexOf(b) > URGENCY_ORDER.indexOf(a) ? b : a), 'low' as Urgency);
        const notification: RenderedNotification = {
          title: `While you were away: ${held.length} notifications`,
          body: [
            ...titles.slice(0, 10).map((t) => `• ${t}`),
            ...(titles.length > 10 ? [`… and ${titles.length - 10} more`] : []),
          ].join('\n'),
          urgency,
          rule: 'quiet hours digest',
          event: 'Digest',
          eventIds: held.flatMap((d) => d.notification.eventIds),
          count: held.length,
          at: held[0]!.notification.at,
          fields: [{ label: 'Held', value: String(held.length) }],
        };
        counters.digests++;
        records.push({
          t: 'add',
          d: {
            id: `digest/${held[0]!.id}`,
            channel,
            notification,
            createdAt: at,
            state: 'pending',
            attempts: 0,
            nextAt: at,
          },
        });
        records.push({ t: 'release', ids: held.map((d) => d.id), at });
      }
      await commit(records);
      outbox.wake(byChannel.keys());
    };

    // ---- requests -----------------------------------------------------------------------------------
    let closing: Promise<void> | undefined;
    let resolveClosed!: () => void;
    const closed = new Promise<void>((resolve) => (resolveClosed = resolve));

    const stats = (): DaemonStats => {
      const counts = store.counts();
      const state = config.state;
      return {
        v: PROTOCOL_VERSION,
        pid: process.pid,
        startedAt,
        uptimeMs: now() - startedAt,
        socketPath: files.socket,
        journal: {
          file: journal.file,
          bytes: journal.size,
          ...(journal.trouble ? { error: journal.trouble.error, troubleSince: journal.trouble.since } : {}),
        },
        events: {
          received: counters.received,
          duplicates: counters.duplicates,
          fromSpool: counters.fromSpool,
          rejected: counters.rejected,
          processed: counters.processed,
          pending: counts.pendingEvents,
        },
        notifications: {
          fired: counters.fired,
          suppressed: counters.suppressed,
          coalesced: counters.coalesced,
          held: counters.held,
          digests: counters.digests,
        },
        outbox: { pending: counts.pending, held: counts.held, dead: counts.dead },
        channels: [...channels.values()].map((channel) => {
          const health = channel.health();
          const s = outbox.statsFor(channel.name);
          const p50 = percentile(s.latencies, 50);
          const p99 = percentile(s.latencies, 99);
          return {
            name: channel.name,
            type: channel.type,
            description: channel.describe(),
            healthy: health.ok,
            problems: health.problems,
            pending: store.pendingFor(channel.name),
            delivered: s.delivered,
            failedAttempts: s.failedAttempts,
            dead: s.dead,
            ...(s.lastError ? { lastError: s.lastError, lastErrorAt: s.lastErrorAt } : {}),
            ...(s.lastDeliveredAt ? { lastDeliveredAt: s.lastDeliveredAt } : {}),
            ...(p50 !== undefined ? { latencyP50Ms: p50 } : {}),
            ...(p99 !== undefined ? { latencyP99Ms: p99 } : {}),
          };
        }),
        config: {
          ok: state.ok,
          ...(state.file ? { file: state.file } : {}),
          loadedAt: state.loadedAt,
          appliedAt: state.appliedAt,
          issues: state.issues,
        },
        memory: { rssBytes: process.memoryUsage.rss(), heapUsedBytes: process.memoryUsage().heapUsed },
      };
    };

    const outboxRequest = async (request: OutboxRequest): Promise<Record<string, unknown>> => {
      const wanted = (d: Delivery) =>
        request.ids ? request.ids.includes(d.id) : request.state === 'all' || d.state === request.state;
      if (request.action === 'list') {
        const items = [...store.deliveries.values(), ...store.recentDelivered].filter(wanted);
        return { ok: true, items };
      }
      const targets = [...store.deliveries.values()].filter(wanted);
      const at = now();
      const records: JournalRecord[] =
        request.action === 'retry'
          ? targets.filter((d) => d.state === 'dead').map((d) => ({ t: 'retry', id: d.id, at }))
          : targets.map((d) => ({ t: 'purge', id: d.id }));
      await commit(records);
      if (request.action === 'retry') outbox.wake(new Set(targets.map((d) => d.channel)));
      return { ok: true, affected: records.length };
    };

    const handle = async (request: DaemonRequest): Promise<Record<string, unknown>> => {
      switch (request.type) {
        case 'event': {
          if (stopping)
            return {
              ok: false,
              code: 'shutting_down',
              error: 'the daemon is stopping',
              id: request.event.id,
            };
          if (journal.trouble)
            return {
              ok: false,
              code: 'unavailable',
              error: `the daemon cannot write its journal (${journal.trouble.code ?? journal.trouble.error}; ${journal.trouble.error}): not accepting events until it can`,
              id: request.event.id,
            };
          const result = await ingest(request as unknown as EventHandoff);
          return { ok: true, id: request.event.id, ...(result.duplicate ? { duplicate: true } : {}) };
        }
        case 'ping':
          return { ok: true, pong: true, pid: process.pid };
        case 'status':
          return { ok: true, status: stats() };
        case 'shutdown':
          setImmediate(() => void close());
          return { ok: true, stopping: true, pid: process.pid };
        case 'outbox':
          return outboxRequest(request);
        case 'noise':
          return { ok: true, noise: serializeNoise(noise) };
      }
    };

    // ---- start: replay, spool, socket, timers ---------------------------------------------------------
    for (const handoff of store.pendingEvents.values()) enqueue(handoff);
    if (store.pendingEvents.size > 0)
      log.info({ events: store.pendingEvents.size }, 'replaying events not processed before the last stop');
    await drainSpool();

    if (existsSync(files.socket)) rmSync(files.socket, { force: true });
    const server: SocketServer = await listenOnSocket(files.socket, handle);
    writePrivateFileAtomic(files.pid, `${process.pid}\n`, { ensureDir: false });
    rmSync(files.starting, { force: true });

    outbox.start();
    const timers = [
      setInterval(scheduleDrain, config.state.daemon.spoolScanIntervalMs),
      setInterval(() => {
        releaseHeld().catch((error: Error) =>
          log.error({ error: error.message }, 'quiet-hours release failed'),
        );
        pruneNoise(
          noise,
          now(),
          Math.max(config.state.notify.noise.dedupeWindowMs, config.state.notify.noise.cooldownMs, 60_000),
        );
      }, options.housekeepingIntervalMs ?? 5000),
    ];
    await releaseHeld();
    if (!options.config && options.watchConfig !== false) await config.watch();
    log.info(
      { pid: process.pid, socket: files.socket, replayed: store.pendingEvents.size },
      'daemon started',
    );

    const close = (): Promise<void> => {
      closing ??= (async () => {
        stopping = true;
        for (const timer of timers) clearInterval(timer);
        await server.close();
        rmSync(files.socket, { force: true });
        await draining;
        await processing;
        const discarded = coalescer.discard();
        await outbox.stop();
        await compacting;
        await journal.close();
        await config.close();
        rmSync(files.pid, { force: true });
        lock.release();
        log.info(
          {
            pendingEvents: store.pendingEvents.size,
            heldInBursts: discarded,
            pendingDeliveries: store.counts().pending,
          },
          'daemon stopped; pending work is kept for the next start',
        );
        logger?.flush?.();
        resolveClosed();
      })();
      return closing;
    };

    return { socketPath: files.socket, close, stats, reloadConfig: () => config.reload(), closed };
  } catch (error) {
    for (const cleanup of cleanups.reverse()) cleanup();
    throw error;
  }
}

export type { FiredRule };

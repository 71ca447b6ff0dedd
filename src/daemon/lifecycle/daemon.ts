import { existsSync, rmSync } from 'node:fs';
import { writePrivateFileAtomic } from '../../util/private-fs.js';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { EventHandoff, HookEvent } from '../../events/types.js';
import { spoolDir, stateDir, type Env } from '../../paths.js';
import type { Channel } from '../../notify/channels/channel.js';
import type { FetchLike } from '../../notify/channels/http.js';
import type { DesktopOptions } from '../../notify/channels/desktop.js';
import { buildChannels } from '../../notify/channels/build-channels.js';
import type { FiredRule } from '../../notify/rules.js';
import type { DefaultText } from '../../notify/notification.js';
import { ConfigStore, type ConfigState } from '../state/config-store.js';
import { createDaemonLogger } from './logger.js';
import { daemonFiles, ensurePrivateDir } from '../../link/runtime-files.js';
import { openDaemonJournal } from '../state/journal-schema.js';
import { DaemonStore, type JournalRecord } from '../state/store.js';
import { Outbox } from '../state/outbox.js';
import { ReleaseTimer } from '../state/release-timer.js';
import { listenOnSocket, type SocketServer } from '../listen/server.js';
import { holdDaemonLock, pingOverSocket } from './lock-holder.js';
import { Pipeline } from '../pipeline.js';
import { Escalator, type Answered } from '../escalator.js';
import { ProjectNotifyCache } from '../project-notify.js';
import { openNoiseStore } from '../state/noise-store.js';
import { noiseRetentionMs } from '../../notify/noise.js';
import { createPresenceProbe, type PresenceProbe, type PresenceReading } from '../../notify/presence.js';
import { within } from '../../util/within.js';
import { Ingest } from '../listen/ingest.js';
import { Digest } from '../digest.js';
import { collectStats, type DaemonStats } from '../state/stats.js';
import { requestHandler } from '../listen/requests.js';
import { startFastServer, type FastServer } from '../listen/fast-server.js';
import { FAST_CLIENT_VERSIONS, FAST_PROTOCOL } from '../../link/wire.js';
import { createSpawner } from '../spawn/spawner.js';
import { inflightDir, recoverInflight } from '../state/inflight.js';
import { TranscriptWatch } from '../listen/transcript-watch.js';

export { DaemonRunningError } from './lock-holder.js';
export type { ChannelStatus, DaemonStats } from '../state/stats.js';

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
  /** The platform's web app (api.appUrl), for click URLs of ntfy notifications. */
  appUrl?: string;
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
  /** The fallback poll of watched transcripts (default 5000 ms; docs/sessions.md). */
  transcriptPollMs?: number;
  /** Presence at this machine for `presence: auto` rules, instead of the configured probe (tests). */
  presence?: () => Promise<Pick<PresenceReading, 'state'>>;
  /** Told whenever a session answered what waited (an event, `hookd ack`); see Pipeline's onAnswered. */
  onAnswered?: (answer: Answered) => void;
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

/**
 * Starts the notification daemon in this process. It is the wiring of its parts (docs/daemon.md): the
 * lock holder, the config store and channels, the journal with its store, ingest (socket and spool),
 * the pipeline (rules, enrichment, coalescing into the outbox), the quiet-hours digest, the outbox, the
 * request handler and the stats read from them all.
 */
export async function startDaemon(options: StartDaemonOptions = {}): Promise<DaemonHandle> {
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  const startedAt = now();
  const files = daemonFiles(env);
  ensurePrivateDir(files.dir);
  const lock = await holdDaemonLock(files, pingOverSocket(env));

  let logger = options.logger;
  const cleanups: (() => void)[] = [lock.release];
  try {
    logger ??= createDaemonLogger(env);
    const log = logger;

    // ---- config and channels ------------------------------------------------------------------------
    let channels = new Map<string, Channel>();
    const channelOptions = {
      env,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.desktop ? { desktop: options.desktop } : {}),
      ...(options.appUrl ? { appUrl: options.appUrl } : {}),
    };
    // A trusted project file's notify rules and channels, per project dir (none with a fixed config).
    const projects = new ProjectNotifyCache({
      env: options.config ? { ...env, HOOKD_NO_PROJECT_CONFIG: '1' } : env,
      logger: log,
      userNotify: () => config.state.notify,
      userVersion: () => config.state.appliedAt,
      build: channelOptions,
      channels: () => channels,
    });
    const rebuildChannels = (state: ConfigState) => {
      channels = buildChannels(state.notify, {
        ...channelOptions,
        ...(options.channels ? { overrides: options.channels } : {}),
      });
      projects.addChannelsTo(channels);
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
    let fast: FastServer | undefined;
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

    // ---- journal and store: every change is a record, durable before it counts ----------------------
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
    await journal.open({ each: (record) => store.apply(record) });
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

    // ---- the parts ------------------------------------------------------------------------------------
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
    const wake = (channels: Iterable<string>) => outbox.wake(channels);
    const notify = () => config.state.notify;

    // Presence (docs/sessions.md#presence): the probe of the settings in force, made anew when they change.
    let presenceProbe: { key: string; probe: PresenceProbe } | undefined;
    const presenceNow = (): PresenceProbe => {
      const { source, idleAfterMs } = notify().presence;
      const key = `${source}/${idleAfterMs}`;
      if (presenceProbe?.key !== key) {
        const probe = createPresenceProbe({ env, now, source, thresholdMs: idleAfterMs });
        presenceProbe = { key, probe };
        void probe.detect().then((detection) => log.info({ presence: detection }, 'presence source'));
      }
      return presenceProbe.probe;
    };
    const presence = (): Promise<PresenceReading> => presenceNow().read();
    presenceNow();

    // The noise memory (dedupe, cooldowns...) survives a restart: <state>/daemon/noise.json.
    const noiseStore = openNoiseStore({
      file: join(daemonDir, 'noise.json'),
      logger: log,
      now,
      maxAgeMs: () => noiseRetentionMs(notify().noise),
    });
    const onAnswered = (answer: Answered) => {
      try {
        options.onAnswered?.(answer);
      } catch (error) {
        log.error({ error: (error as Error).message }, 'onAnswered failed');
      }
    };
    // Escalation ladders (docs/sessions.md#escalation-ladders): steps sent while nobody answers.
    const escalator: Escalator = new Escalator({
      store,
      notify,
      commit,
      wake,
      now,
      logger: log,
      answering: (id) => pipeline.isHalting(id),
    });
    const pipeline = new Pipeline({
      ladders: (session) => store.laddersOf(session),
      onLadder: (ladder) =>
        escalator.schedule(ladder.startedAt + Math.min(...ladder.steps.map((s) => s.afterMs))),
      onAnswered,
      noise: noiseStore.state,
      sessions: noiseStore.sessions,
      // Delay-then-cancel (docs/sessions.md): held "waiting" notifications, released when their time comes.
      heldWaiting: (session) => store.heldWaiting(session),
      onHeld: (until) => releaseTimer.at(until),
      // Notifications that know the session (docs/sessions.md): resolved when answered, one Slack message.
      shownWaiting: (session) => store.shownWaiting(session),
      sessionMessageChannels: () =>
        [...channels.values()].filter((c) => c.sessionMessages).map((c) => c.name),
      // Transcript watching (docs/sessions.md): interrupts and turn ends no hook reports.
      // A Claude sub-agent's state (`<session>#<agent>`) is not its parent's transcript's to move.
      onSession: (state, event) =>
        transcripts.track(state, state.id === event.sessionId ? event.payload.transcript_path : undefined),
      noiseChanged: () => noiseStore.changed(),
      notify,
      notifyFor: (event) => projects.notifyFor(event),
      now,
      logger: log,
      commit,
      wake,
      enrich: options.enrich,
      enrichBudgetMs: options.enrichBudgetMs,
      onEvent: options.onEvent,
      defaultText: options.defaultText,
      home: env.HOME,
      // An injected reading (tests) stands in for the configured probe.
      presence: options.presence ?? presence,
    });
    const transcripts = new TranscriptWatch({
      logger: log,
      now,
      session: (id) => pipeline.sessions.get(id),
      onSignal: (id, signal) =>
        void pipeline
          .transcriptSignal(id, signal)
          .catch((error: Error) => log.error({ error: error.message }, 'cannot apply a transcript record')),
      ...(options.transcriptPollMs ? { pollMs: options.transcriptPollMs } : {}),
    });
    cleanups.push(() => void transcripts.close());
    const ingest = new Ingest({
      store,
      commit,
      paused: () => journal.trouble !== undefined,
      spoolDir: spoolDir(env),
      enqueue: (handoff) => pipeline.enqueue(handoff),
      now,
      logger: log,
    });
    const digest = new Digest({ store, notify, commit, wake, now });
    const releaseTimer = new ReleaseTimer({
      now,
      release: () =>
        digest
          .releaseHeld()
          .catch((error: Error) => log.error({ error: error.message }, 'held release failed')),
      nextDue: () => store.nextHeldAt(),
    });

    onJournalRecovered = () => {
      outbox.wake();
      ingest.scheduleDrain();
    };

    const stats = (): DaemonStats =>
      collectStats({
        startedAt,
        now,
        socketPath: files.socket,
        journal,
        store,
        channels: () => channels,
        channelStats: (name) => outbox.statsFor(name),
        config: () => config.state,
        ingest: ingest.counts,
        pipeline: pipeline.counts,
        digest: digest.counts,
        presence: () => presenceNow().status(),
        fast: () =>
          fast
            ? { socket: fast.socket, protocol: FAST_PROTOCOL, clientVersions: { ...FAST_CLIENT_VERSIONS } }
            : undefined,
      });

    let stopping = false;
    let closing: Promise<void> | undefined;
    let resolveClosed!: () => void;
    const closed = new Promise<void>((resolve) => (resolveClosed = resolve));

    const handle = requestHandler({
      stopping: () => stopping,
      journalTrouble: () => journal.trouble,
      receive: (handoff) => ingest.receive(handoff),
      stats,
      shutdown: () => void close(),
      store,
      commit,
      wake,
      noise: () => pipeline.noise,
      sessions: () => pipeline.sessions,
      // `hookd status` shows a fresh presence reading when one comes quickly, else the last one.
      beforeStatus: () => within(presence(), 300, undefined),
      ladders: store,
      onAnswered,
      resolveShown: (session, by) => pipeline.resolveShown(session, by),
      logger: log,
      now,
    });

    // ---- start: replay, spool, socket, timers ---------------------------------------------------------
    for (const handoff of store.pendingEvents.values()) pipeline.enqueue(handoff);
    if (store.pendingEvents.size > 0)
      log.info({ events: store.pendingEvents.size }, 'replaying events not processed before the last stop');
    await ingest.drainSpool();
    // Events a killed daemon had acknowledged to fast clients (they never fall back after that).
    await recoverInflight(inflightDir(env), (handoff) => ingest.receive(handoff), log);
    // Watching before anything answers: a config edit written right after a ping is seen.
    if (!options.config && options.watchConfig !== false) {
      await config.watch();
      cleanups.push(() => void config.close());
    }

    if (existsSync(files.socket)) rmSync(files.socket, { force: true });
    const server: SocketServer = await listenOnSocket(files.socket, handle);
    // Starts the commands of the events run here (the fast listener's): a resident spawner,
    // started at the first command (docs/daemon.md, "The spawner"); HOOKD_NO_SPAWNER=1: child_process.
    const spawner = createSpawner({ env, logger: log });
    cleanups.push(() => void spawner.close());
    // The fast client's listener; events it forwards run here, then go to ingest.
    if (config.state.daemon.fastListener) {
      fast = await startFastServer({
        env,
        runtimeDir: files.dir,
        logger: log,
        stopping: () => stopping,
        inflightDir: inflightDir(env),
        spawn: spawner.spawn,
        handOff: async (message) => {
          try {
            await ingest.receive(message);
            return { outcome: 'acked' };
          } catch (error) {
            log.error({ error: (error as Error).message }, 'cannot take an event run by the fast listener');
            return { outcome: 'failed', error: (error as Error).message };
          }
        },
      });
      cleanups.push(() => void fast?.close());
    }
    writePrivateFileAtomic(files.pid, `${process.pid}\n`, { ensureDir: false });
    rmSync(files.starting, { force: true });

    outbox.start();
    const timers = [
      setInterval(() => ingest.scheduleDrain(), config.state.daemon.spoolScanIntervalMs),
      setInterval(() => {
        digest
          .releaseHeld()
          .catch((error: Error) => log.error({ error: error.message }, 'quiet-hours release failed'));
        pipeline.prune();
        void escalator.tick();
      }, options.housekeepingIntervalMs ?? 5000),
    ];
    await digest.releaseHeld();
    await escalator.tick();
    log.info(
      { pid: process.pid, socket: files.socket, replayed: store.pendingEvents.size },
      'daemon started',
    );

    const close = (): Promise<void> => {
      closing ??= (async () => {
        stopping = true;
        pipeline.halt();
        const ingestStopped = ingest.stop();
        for (const timer of timers) clearInterval(timer);
        await fast?.close();
        await spawner.close();
        await transcripts.close();
        releaseTimer.close();
        await escalator.close();
        await server.close();
        rmSync(files.socket, { force: true });
        await ingestStopped;
        const discarded = await pipeline.stop();
        noiseStore.flush();
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

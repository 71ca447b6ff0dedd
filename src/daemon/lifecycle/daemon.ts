import { existsSync, rmSync } from 'node:fs';
import { writePrivateFileAtomic } from '../../util/private-fs.js';
import type { Timers } from '../../util/timers.js';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { EventHandoff, HookEvent } from '../../events/types.js';
import { spoolDir, stateDir, type Env } from '../../paths.js';
import type { Channel } from '../../channels/channel.js';
import type { FetchLike } from '../../channels/http.js';
import type { DesktopOptions } from '../../channels/desktop.js';
import { buildChannels } from '../../channels/build-channels.js';
import type { FiredRule } from '../../notify/rules.js';
import type { DefaultText } from '../../notify/notification.js';
import { ConfigStore, type ConfigState } from '../../journal/config-store.js';
import { createDaemonLogger } from './logger.js';
import { daemonFiles, ensurePrivateDir, type DaemonFiles } from '../../link/runtime-files.js';
import { openDaemonJournal } from '../../journal/journal-schema.js';
import type { Journal } from '../../journal/journal.js';
import { DaemonStore, type JournalRecord } from '../../journal/store.js';
import { Outbox } from '../../journal/outbox.js';
import { ReleaseTimer } from '../../journal/release-timer.js';
import { listenOnSocket } from '../listen/server.js';
import { holdDaemonLock, pingOverSocket } from './lock-holder.js';
import { NotifyApplier } from '../../journal/apply-notify.js';
import { Escalator, type Answered } from '../../journal/escalator.js';
import { ProjectNotifyCache } from '../../journal/project-notify.js';
import { openNoiseStore, type NoiseStore } from '../../journal/noise-store.js';
import { noiseRetentionMs } from '../../notify/noise.js';
import type { PresenceReading } from '../../notify/presence.js';
import type { NotifyConfig } from '../../config/schemas/notify-schema.js';
import type { HandOffResult } from '../../hook-path/hand-off.js';
import { within } from '../../util/within.js';
import { Ingest } from '../listen/ingest.js';
import { watchSpool } from '../listen/spool-watch.js';
import { Digest } from '../../journal/digest.js';
import { collectStats, type DaemonStats } from '../../journal/stats.js';
import { requestHandler } from '../listen/requests.js';
import { startFastServer, type FastServer } from '../listen/fast-server.js';
import { FAST_CLIENT_VERSIONS, FAST_PROTOCOL } from '../../link/wire.js';
import { createSpawner, type Spawner } from '../../spawner/spawner.js';
import { Parts, type StopPart } from './parts.js';
import { PresenceCache } from './presence-cache.js';
import { inflightDir, recoverInflight } from '../../journal/inflight.js';
import { TranscriptWatch } from '../listen/transcript-watch.js';
import { OnceBook } from '../listen/once.js';
import { RemoteAnswers } from '../../remote/answers.js';
import { WatchRunner } from '../../watch/runner.js';
import type { WatchClient } from '../../watch/types.js';
import { watchStatePath } from '../../watch/state-file.js';
import { WATCH_DEFAULT_RULE, watchRules, withWatchDefault } from '../../watch/routing.js';
import { watchSettings, type WatchConfig } from '../../config/schemas/watch-schema.js';
import type { HookdConfig } from '../../config/schemas/schema.js';
import { startExport, type StartedExport } from '../../telemetry/start-export.js';
import {
  startAgentReceiver,
  telemetryStatus,
  type LedgerUsage,
  type StartedReceiver,
} from '../../telemetry/start-receiver.js';
import type { TelemetryConfig } from '../../config/schemas/telemetry-schema.js';

export { DaemonRunningError } from './lock-holder.js';
export { ClosedWhileStartingError } from './parts.js';
export type { ChannelStatus, DaemonStats } from '../../journal/stats.js';

export interface StartDaemonOptions {
  env?: Env;
  /** A fixed config instead of the user config file (no reload). Raw values, validated here. */
  config?: { notify?: unknown; daemon?: unknown };
  /** Watch the config file for changes (default true when no fixed config is given). */
  watchConfig?: boolean;
  /**
   * Watch the spool, so that hooks may leave their events there (default true; docs/daemon.md, "The
   * spool"). Off, the spool is drained at start, by the periodic scan and before each request only.
   */
  watchSpool?: boolean;
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
  /** Told whenever a session answered what waited (an event, `hookd ack`); see NotifyApplier's onAnswered. */
  onAnswered?: (answer: Answered) => void;
  /**
   * The watchers on the platform API (docs/watch.md): their settings and client (absent: none run).
   * With `clientFor`, a changed `watch` section of the config file is applied live.
   */
  watch?: {
    config: WatchConfig;
    client?: WatchClient | undefined;
    timers?: Timers;
    /** The client for the config as it is now (its API key may have changed too); undefined: no key. */
    clientFor?: (config: HookdConfig) => Promise<WatchClient | undefined>;
  };
  /** OpenTelemetry settings (default: the user config file's `telemetry`); docs/telemetry.md. */
  telemetry?: TelemetryConfig;
  /** The session ledger, completed with the agents' own usage by the receiver (docs/telemetry.md). */
  agentUsage?: LedgerUsage;
  /** Tests: shorter export batching and backoff, and when the telemetry of what was seen is built. */
  telemetryTuning?: {
    flushIntervalMs?: number;
    retryBaseMs?: number;
    retryMaxMs?: number;
    defer?: (work: () => void) => void;
  };
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

/** The named parts of a daemon, in the order `start()` starts them; `close()` stops them in reverse. */
export const DAEMON_PARTS = [
  'lock',
  'config',
  'journal',
  'outbox',
  'noise',
  'telemetry',
  'otlp receiver',
  'escalator',
  'transcripts',
  'release timers',
  'pipeline',
  'ingest',
  'config watch',
  'spawner',
  'remote answers',
  'socket',
  'fast listener',
  'housekeeping',
  'watchers',
  'pid file',
  'spool watch',
] as const;
export type DaemonPart = (typeof DAEMON_PARTS)[number];

/**
 * The notification daemon in this process (docs/daemon.md): its named parts, `start()` that starts them
 * in order (DAEMON_PARTS) and `close()` that stops exactly the started ones in reverse. A part that
 * failed to start is not stopped; the parts started before it are, and start() rejects. Closing twice
 * gives the same promise; closing while it starts waits for the part starting, then unwinds.
 */
export class Daemon implements DaemonHandle {
  readonly socketPath: string;
  /** Resolves when the daemon has closed (e.g. after a `shutdown` request). */
  readonly closed: Promise<void>;

  private readonly env: Env;
  private readonly now: () => number;
  private readonly files: DaemonFiles;
  private readonly daemonDir: string;
  private readonly startedAt: number;
  private readonly parts: Parts;
  private log: Logger | undefined;
  private starting: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private resolveClosed!: () => void;
  /** Set at close: requests and fast events are refused from then on. */
  private stopping = false;
  /** Events held in bursts when the pipeline stopped (they stay pending for the next start). */
  private discarded = 0;

  // ---- the parts, set as they start ------------------------------------------------------------------
  private config!: ConfigStore;
  private channels = new Map<string, Channel>();
  private projects!: ProjectNotifyCache;
  private journal!: Journal<JournalRecord>;
  private compacting: Promise<void> | undefined;
  store!: DaemonStore;
  private outbox!: Outbox;
  private noise!: NoiseStore;
  private presence!: PresenceCache;
  private escalator!: Escalator;
  private transcripts!: TranscriptWatch;
  private releases!: ReleaseTimer;
  private pipeline: NotifyApplier | undefined;
  private ingest!: Ingest;
  private digest!: Digest;
  private spawner: Spawner | undefined;
  private fast: FastServer | undefined;
  /** The events running now, one book for the fast listener and the socket (docs/daemon.md, "The same event twice"). */
  private readonly once: OnceBook;
  private remote: RemoteAnswers | undefined;
  /** The watchers on the platform API, when any is turned on. */
  watchers: WatchRunner | undefined;
  /** The watch settings in force while the watchers part runs (live reload compares against it). */
  private watchConfig: WatchConfig | undefined;
  private watchReload: Promise<void> = Promise.resolve();
  private export: StartedExport | undefined;
  /** The local OTLP receiver for the agents' own telemetry, when enabled. */
  agentTelemetry: StartedReceiver | undefined;

  constructor(private readonly options: StartDaemonOptions = {}) {
    this.env = options.env ?? process.env;
    this.now = options.now ?? Date.now;
    this.once = new OnceBook(this.now);
    this.startedAt = this.now();
    this.files = daemonFiles(this.env);
    this.socketPath = this.files.socket;
    this.daemonDir = join(stateDir(this.env), 'daemon');
    this.closed = new Promise<void>((resolve) => (this.resolveClosed = resolve));
    this.parts = new Parts((part, error) =>
      this.log?.error({ part, error: error.message }, 'a part of the daemon failed to stop'),
    );
  }

  /** The parts started so far, in the order they started. */
  startedParts(): string[] {
    return this.parts.names();
  }

  /** Starts every part in order; on a failure, stops the started ones in reverse and rejects. */
  start(): Promise<void> {
    this.starting ??= this.startParts().catch(async (error: unknown) => {
      await this.parts.stop();
      throw error;
    });
    return this.starting;
  }

  /** Stops accepting, finishes the work in flight, persists the rest, releases the lock. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.stopping = true;
      this.pipeline?.halt();
      await this.parts.stop();
      if (this.store)
        this.log?.info(
          {
            pendingEvents: this.store.pendingEvents.size,
            heldInBursts: this.discarded,
            pendingDeliveries: this.store.counts().pending,
          },
          'daemon stopped; pending work is kept for the next start',
        );
      this.log?.flush?.();
      this.resolveClosed();
    })();
    return this.closing;
  }

  stats(): DaemonStats {
    return collectStats({
      startedAt: this.startedAt,
      now: this.now,
      socketPath: this.files.socket,
      journal: this.journal,
      store: this.store,
      channels: () => this.channels,
      channelStats: (name) => this.outbox.statsFor(name),
      config: () => this.config.state,
      ingest: this.ingest.counts,
      pipeline: this.pipeline!.counts,
      digest: this.digest.counts,
      presence: () => this.presence.probe().status(),
      watchers: () => this.watchers?.rows(),
      telemetry: () => telemetryStatus(this.export, this.agentTelemetry),
      fast: () =>
        this.fast
          ? { socket: this.fast.socket, protocol: FAST_PROTOCOL, clientVersions: { ...FAST_CLIENT_VERSIONS } }
          : undefined,
    });
  }

  /** Re-reads the config file now (the watcher does it on change). */
  reloadConfig(): boolean {
    return this.config.reload();
  }

  private async startParts(): Promise<void> {
    const { env, files, parts, options } = this;
    ensurePrivateDir(files.dir);
    await parts.start('lock', async () => (await holdDaemonLock(files, pingOverSocket(env))).release);
    const log = (this.log = options.logger ?? createDaemonLogger(env));
    await parts.start('config', () => {
      this.startConfig(log);
      return () => this.config.close();
    });
    await parts.start('journal', () => this.openJournal(log));
    await parts.start('outbox', () => {
      this.outbox = this.makeOutbox(log);
      this.outbox.start();
      return () => this.outbox.stop();
    });
    await parts.start('noise', () => {
      // The noise memory (dedupe, cooldowns...) survives a restart: <state>/daemon/noise.json.
      this.noise = openNoiseStore({
        file: join(this.daemonDir, 'noise.json'),
        logger: log,
        now: this.now,
        maxAgeMs: () => noiseRetentionMs(this.notify().noise),
      });
      return () => this.noise.flush();
    });
    // OpenTelemetry export (docs/telemetry.md): queued here, sent in the background, never awaited.
    const telemetry = options.telemetry ?? this.config.state.full?.config.telemetry;
    await parts.start('telemetry', () => {
      this.export = startExport({
        env,
        config: telemetry?.export,
        usage: (id) => this.agentTelemetry?.book.get(id),
        ...(telemetry?.receiver?.enabled
          ? {
              forward: {
                mode: telemetry.receiver.forward ?? 'redacted',
                maxBytes: telemetry.receiver.forwardMaxBytes,
              },
            }
          : {}),
        logger: log,
        now: this.now,
        ...(options.telemetryTuning ? { tuning: options.telemetryTuning } : {}),
      });
      return () => this.export?.close();
    });
    // The agents' own telemetry, in on a loopback port (docs/telemetry.md).
    await parts.start('otlp receiver', async () => {
      this.agentTelemetry = await startAgentReceiver({
        env,
        config: telemetry?.receiver,
        logger: log,
        now: this.now,
        forward: (signal, request) => this.export?.forwarder?.take(signal, request),
        ledger: options.agentUsage,
      });
      return () => this.agentTelemetry?.close();
    });
    this.wire(log);
    // What the pipeline schedules (ladders, transcript watches, releases) stops after the pipeline.
    await parts.start('escalator', () => () => this.escalator.close());
    await parts.start('transcripts', () => () => this.transcripts.close());
    await parts.start('release timers', () => () => this.releases.close());
    await parts.start('pipeline', () => {
      const { store } = this;
      for (const handoff of store.pendingEvents.values()) this.pipeline!.enqueue(handoff);
      if (store.pendingEvents.size > 0)
        log.info({ events: store.pendingEvents.size }, 'replaying events not processed before the last stop');
      return async () => {
        this.discarded = await this.pipeline!.stop();
      };
    });
    await parts.start('ingest', async () => {
      await this.ingest.drainSpool();
      // Events a killed daemon had acknowledged to fast clients (they never fall back after that).
      await recoverInflight(inflightDir(env), (handoff) => this.ingest.receive(handoff), log);
      return () => this.ingest.stop();
    });
    // Watching before anything answers: a config edit written right after a ping is seen.
    if (!options.config && options.watchConfig !== false)
      await parts.start('config watch', () => this.config.watch());
    // Starts the commands of the events run here (the fast listener's) and the desktop answer channel's
    // notify-send: a resident spawner, started at the first command (docs/daemon.md, "The spawner");
    // HOOKD_NO_SPAWNER=1: child_process.
    await parts.start('spawner', () => {
      const spawner = (this.spawner = createSpawner({ env, logger: log }));
      return () => spawner.close();
    });
    // Remote answers to permission prompts (docs/remote.md): ready before the socket takes asks.
    await parts.start('remote answers', async () => {
      const remote = (this.remote = new RemoteAnswers({
        env,
        logger: log,
        now: this.now,
        remote: () => this.config.state.full?.config.remote,
        presence: options.presence ?? (() => this.presence.read()),
        fetch: options.fetch,
        spawn: this.spawner!.spawn,
      }));
      await remote.start();
      return () => remote.close();
    });
    await parts.start('socket', async () => {
      if (existsSync(files.socket)) rmSync(files.socket, { force: true });
      const server = await listenOnSocket(files.socket, this.requests(log));
      return async () => {
        await server.close();
        rmSync(files.socket, { force: true });
      };
    });
    // The fast client's listener; events it forwards run here, then go to ingest.
    if (this.config.state.daemon.fastListener)
      await parts.start('fast listener', async () => {
        const fast = (this.fast = await startFastServer({
          env,
          runtimeDir: files.dir,
          logger: log,
          stopping: () => this.stopping,
          inflightDir: inflightDir(env),
          spawn: this.spawner!.spawn,
          handOff: (message) => this.handOff(message, log),
          once: this.once,
        }));
        return () => fast.close();
      });
    await parts.start('housekeeping', () => this.startHousekeeping(log));
    // Watchers on the platform API (docs/watch.md): what they raise goes through ingest like an event.
    await parts.start('watchers', () => {
      const watch = options.watch;
      if (!watch) return;
      this.watchConfig = watch.config;
      this.startWatchers(log, watch.config, watch.client);
      return async () => {
        this.watchConfig = undefined;
        await this.watchReload;
        await this.watchers?.stop();
      };
    });
    await parts.start('pid file', () => {
      writePrivateFileAtomic(files.pid, `${process.pid}\n`, { ensureDir: false });
      rmSync(files.starting, { force: true });
      return () => rmSync(files.pid, { force: true });
    });
    // Last: from here on hooks may leave their events in the spool for this daemon (spool-watch.ts).
    if (options.watchSpool !== false)
      await parts.start('spool watch', () =>
        watchSpool({
          dir: spoolDir(env),
          marker: files.spoolWatch,
          onChange: () => this.ingest.scheduleDrain(),
          logger: log,
        }),
      );
    log.info(
      { pid: process.pid, socket: files.socket, replayed: this.store.pendingEvents.size },
      'daemon started',
    );
  }

  /** Starts the watchers turned on in `config` (none without a client). */
  private startWatchers(log: Logger, config: WatchConfig, client: WatchClient | undefined): void {
    const { env, options } = this;
    const timers = options.watch?.timers;
    const runner = client
      ? new WatchRunner({
          config,
          client,
          file: watchStatePath(env),
          now: this.now,
          logger: log,
          ...(timers ? { timers } : {}),
          raise: async (handoffs) => {
            for (const handoff of handoffs) await this.ingest.receive(handoff);
          },
        })
      : undefined;
    if (!runner || runner.enabled().length === 0) return;
    this.watchers = runner;
    runner.start();
    const routes = watchRules(this.notify());
    if (routes.length === 0)
      log.warn(
        { source: 'watch' },
        'platform watchers are on but no notify rule matches PlatformWatch: add one (docs/watch.md)',
      );
    else if (routes.includes(WATCH_DEFAULT_RULE))
      log.info(
        { source: 'watch', rule: WATCH_DEFAULT_RULE },
        'no notify rule of yours matches PlatformWatch; the built-in rule sends what the watchers raise to the default channel',
      );
  }

  /**
   * A config change while the daemon runs: when its `watch` section changed, the watchers stop (after
   * the poll in flight) and the ones now turned on start again from their saved state.
   */
  private reloadWatchers(log: Logger, config: HookdConfig | undefined): void {
    const clientFor = this.options.watch?.clientFor;
    if (!clientFor || this.watchConfig === undefined || !config) return;
    const next = watchSettings(config.watch);
    if (JSON.stringify(next) === JSON.stringify(this.watchConfig)) return;
    this.watchConfig = next;
    this.watchReload = this.watchReload
      .then(async () => {
        const client = await clientFor(config);
        await this.watchers?.stop();
        this.watchers = undefined;
        // Stopped meanwhile, or changed again: the later change applies.
        if (this.watchConfig !== next) return;
        this.startWatchers(log, next, client);
        const running = this.watchers as WatchRunner | undefined;
        log.info(
          { source: 'watch', watchers: running?.enabled() ?? [] },
          client ? 'platform watchers reloaded' : 'platform watchers stopped: no API key is configured',
        );
      })
      .catch((error: Error) =>
        log.error({ source: 'watch', error: error.message }, 'cannot apply the changed watch settings'),
      );
  }

  /** The notify settings in force (with the built-in PlatformWatch rule while watchers run). */
  private notify(): NotifyConfig {
    return withWatchDefault(this.config.state.notify, this.watchers !== undefined);
  }

  /** The config store and the channels it builds, rebuilt on every valid change. */
  private startConfig(log: Logger): void {
    const { env, options } = this;
    const channelOptions = {
      env,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.desktop ? { desktop: options.desktop } : {}),
      ...(options.appUrl ? { appUrl: options.appUrl } : {}),
    };
    // A trusted project file's notify rules and channels, per project dir (none with a fixed config).
    this.projects = new ProjectNotifyCache({
      env: options.config ? { ...env, HOOKD_NO_PROJECT_CONFIG: '1' } : env,
      logger: log,
      userNotify: () => this.config.state.notify,
      userVersion: () => this.config.state.appliedAt,
      build: channelOptions,
      channels: () => this.channels,
    });
    const rebuildChannels = (state: ConfigState) => {
      this.channels = buildChannels(state.notify, {
        ...channelOptions,
        ...(options.channels ? { overrides: options.channels } : {}),
      });
      this.projects.addChannelsTo(this.channels);
      for (const channel of this.channels.values()) {
        const health = channel.health();
        if (!health.ok || health.problems.length > 0)
          log.warn(
            { channel: channel.name, type: channel.type, problems: health.problems },
            'channel has problems',
          );
      }
      log.info(
        { channels: [...this.channels.values()].map((c) => ({ name: c.name, is: c.describe() })) },
        'channels ready',
      );
    };
    let built = false;
    this.config = new ConfigStore({
      env,
      logger: log,
      now: this.now,
      ...(options.config ? { fixed: options.config } : {}),
      onChange: (state) => {
        if (!state.ok) return;
        built = true;
        rebuildChannels(state);
        void this.remote?.reconfigure();
        this.reloadWatchers(log, state.full?.config);
      },
    });
    if (!built) rebuildChannels(this.config.state);
    log.level = this.config.state.daemon.logLevel;
  }

  /** The journal, replayed into the store: every change is a record, durable before it counts. */
  private async openJournal(log: Logger): Promise<StopPart> {
    const journal = openDaemonJournal(join(this.daemonDir, 'journal.jsonl'), {
      fsync: this.config.state.daemon.fsync,
      onTrouble: (error) => {
        if (error) {
          log.error(
            { error: error.message, code: (error as NodeJS.ErrnoException).code, file: journal.file },
            'cannot write the journal; refusing new events and holding deliveries until it can',
          );
        } else {
          log.info({ file: journal.file }, 'the journal is writable again; resuming');
          this.outbox.wake();
          this.ingest.scheduleDrain();
        }
      },
    });
    this.journal = journal;
    this.store = new DaemonStore(this.config.state.daemon.seenIdsMax);
    try {
      await journal.open({ each: (record) => this.store.apply(record) });
    } catch (error) {
      await journal.close();
      throw error;
    }
    if (journal.quarantined > 0)
      log.error(
        { count: journal.quarantined, file: journal.quarantineFile },
        'journal lines that are not valid records were quarantined; the rest is used',
      );
    return async () => {
      await this.compacting;
      await journal.close();
    };
  }

  /** Applies records to the store and appends them to the journal; compacts it past compactBytes. */
  private readonly commit = async (records: JournalRecord[]): Promise<void> => {
    const { store, journal } = this;
    for (const record of records) store.apply(record);
    await journal.append(records);
    const telemetry = this.export?.telemetry;
    if (telemetry)
      for (const record of records)
        if (record.t === 'add' || record.t === 'ok' || record.t === 'fail' || record.t === 'dead')
          telemetry.delivery(record);
    if (!this.compacting && journal.size > this.config.state.daemon.compactBytes) {
      this.compacting = journal
        .rewrite(() => store.snapshot())
        .catch((error: Error) => this.log?.error({ error: error.message }, 'journal compaction failed'))
        .finally(() => (this.compacting = undefined));
    }
  };

  private readonly wake = (channels: Iterable<string>) => this.outbox.wake(channels);

  private makeOutbox(log: Logger): Outbox {
    const { config } = this;
    return new Outbox({
      store: this.store,
      commit: this.commit,
      paused: () => this.journal.trouble !== undefined,
      channels: () => this.channels,
      now: this.now,
      logger: log,
      redaction: { homePaths: this.options.redactHomePaths ?? false, home: this.env.HOME },
      retry: () => ({
        baseMs: config.state.daemon.retryBaseMs,
        maxMs: config.state.daemon.retryMaxMs,
        maxAgeMs: config.state.daemon.outboxMaxAgeMs,
      }),
    });
  }

  /** Tells the caller's onAnswered (a failing one is logged). */
  private readonly onAnswered = (answer: Answered) => {
    try {
      this.options.onAnswered?.(answer);
    } catch (error) {
      this.log?.error({ error: (error as Error).message }, 'onAnswered failed');
    }
  };

  /** Makes the parts that only act when told (nothing runs yet): presence, escalator, pipeline... */
  private wire(log: Logger): void {
    const { env, now, options, store, commit, wake } = this;
    const notify = () => this.notify();
    // Presence (docs/sessions.md#presence): the probe of the settings in force.
    const presence = (this.presence = new PresenceCache({
      env,
      now,
      logger: log,
      settings: () => notify().presence,
    }));
    presence.probe();
    const digest = (this.digest = new Digest({ store, notify, commit, wake, now }));
    // One timer for every held notification: the earliest release time, re-armed after each release.
    this.releases = new ReleaseTimer({
      now,
      release: () =>
        digest
          .releaseHeld()
          .catch((error: Error) => log.error({ error: error.message }, 'held release failed')),
      nextDue: () => store.nextHeldAt(),
    });
    // Escalation ladders (docs/sessions.md#escalation-ladders): steps sent while nobody answers.
    const escalator = (this.escalator = new Escalator({
      store,
      notify,
      commit,
      wake,
      now,
      logger: log,
      answering: (id) => pipeline.isHalting(id),
    }));
    const noise = this.noise;
    const pipeline: NotifyApplier = (this.pipeline = new NotifyApplier({
      store,
      onLadder: (ladder) =>
        escalator.schedule(ladder.startedAt + Math.min(...ladder.steps.map((s) => s.afterMs))),
      onAnswered: this.onAnswered,
      noise: noise.state,
      sessions: noise.sessions,
      // Delay-then-cancel (docs/sessions.md): held "waiting" notifications, released when their time comes.
      onHeld: (until) => this.releases.at(until),
      // Notifications that know the session (docs/sessions.md): resolved when answered, one Slack message.
      sessionMessageChannels: () =>
        [...this.channels.values()].filter((c) => c.sessionMessages).map((c) => c.name),
      // Transcript watching (docs/sessions.md): interrupts and turn ends no hook reports.
      // A Claude sub-agent's state (`<session>#<agent>`) is not its parent's transcript's to move.
      onSession: (state, event) =>
        this.transcripts.track(
          state,
          state.id === event.sessionId ? event.payload.transcript_path : undefined,
        ),
      noiseChanged: () => noise.changed(),
      notify,
      notifyFor: (event) => this.projects.notifyFor(event),
      now,
      logger: log,
      commit,
      wake,
      enrich: options.enrich,
      enrichBudgetMs: options.enrichBudgetMs,
      onEvent: this.export
        ? async (handoff) => {
            this.export?.telemetry.event(handoff);
            await options.onEvent?.(handoff);
          }
        : options.onEvent,
      defaultText: options.defaultText,
      home: env.HOME,
      // An injected reading (tests) stands in for the configured probe.
      presence: options.presence ?? (() => presence.read()),
    }));
    this.transcripts = new TranscriptWatch({
      logger: log,
      now,
      session: (id) => pipeline.sessions.get(id),
      onSignal: (id, signal) =>
        void pipeline
          .transcriptSignal(id, signal)
          .catch((error: Error) => log.error({ error: error.message }, 'cannot apply a transcript record')),
      ...(options.transcriptPollMs ? { pollMs: options.transcriptPollMs } : {}),
    });
    this.ingest = new Ingest({
      store,
      commit,
      paused: () => this.journal.trouble !== undefined,
      spoolDir: spoolDir(env),
      // Every event that reaches the journal, from a socket or the spool: a session that moved on ends
      // its waiting remote asks.
      enqueue: (handoff) => {
        this.remote?.eventSeen(handoff.event);
        pipeline.enqueue(handoff);
      },
      now,
      logger: log,
      order: this.once.order,
    });
  }

  /** What answers the daemon's socket (src/daemon/listen/requests.ts). */
  private requests(log: Logger) {
    const { pipeline, presence } = this;
    const handle = requestHandler({
      once: this.once,
      stopping: () => this.stopping,
      journalTrouble: () => this.journal.trouble,
      receive: (handoff) => this.ingest.receive(handoff),
      permission: (request) => this.remote?.ask(request) ?? Promise.resolve({ ok: true, reason: 'off' }),
      stats: () => this.stats(),
      shutdown: () => void this.close(),
      store: this.store,
      commit: this.commit,
      wake: this.wake,
      noise: () => pipeline!.noise,
      sessions: () => pipeline!.sessions,
      // `hookd status` shows a fresh presence reading when one comes quickly, else the last one.
      beforeStatus: () => within(presence.read(), 300, undefined),
      ladders: this.store,
      onAnswered: this.onAnswered,
      resolveShown: (session, by) => pipeline!.resolveShown(session, by),
      logger: log,
      now: this.now,
    });
    // What hooks spooled before this request came is taken first (Ingest.catchUp).
    return async (...request: Parameters<typeof handle>) => {
      await this.ingest.catchUp();
      return handle(...request);
    };
  }

  /** An event run by the fast listener, into ingest: acknowledged once it is in the journal. */
  private async handOff(message: EventHandoff, log: Logger): Promise<HandOffResult> {
    try {
      await this.ingest.catchUp();
      await this.ingest.receive(message);
      return { outcome: 'acked' };
    } catch (error) {
      log.error({ error: (error as Error).message }, 'cannot take an event run by the fast listener');
      return { outcome: 'failed', error: (error as Error).message };
    }
  }

  /** The first release of held notifications and escalation tick, then both (and the spool) periodically. */
  private async startHousekeeping(log: Logger): Promise<StopPart> {
    const { ingest, digest, pipeline, escalator, config } = this;
    await digest.releaseHeld();
    await escalator.tick();
    const timers = [
      setInterval(() => ingest.scheduleDrain(), config.state.daemon.spoolScanIntervalMs),
      setInterval(() => {
        digest
          .releaseHeld()
          .catch((error: Error) => log.error({ error: error.message }, 'quiet-hours release failed'));
        pipeline!.prune();
        void escalator.tick();
      }, this.options.housekeepingIntervalMs ?? 5000),
    ];
    return () => {
      for (const timer of timers) clearInterval(timer);
    };
  }
}

/**
 * Starts the notification daemon in this process (a Daemon, started): the lock holder, the config store
 * and channels, the journal with its store, ingest (socket and spool), the pipeline (rules, enrichment,
 * coalescing into the outbox), the quiet-hours digest, the outbox, the request handler and the stats.
 */
export async function startDaemon(options: StartDaemonOptions = {}): Promise<DaemonHandle> {
  const daemon = new Daemon(options);
  await daemon.start();
  return daemon;
}

export type { FiredRule };

import type { Channel } from '../channels/channel.js';
import type { ConfigState } from './config-store.js';
import type { ChannelStats } from './outbox.js';
import type { DaemonStore } from './store.js';
import type { NotifyCounts } from './apply-notify.js';
import { PROTOCOL_VERSION } from '../link/client.js';
import type { PresenceStatus } from '../notify/presence.js';
import type { WatcherRow } from '../watch/report.js';

/** What the daemon's intake counted: events received, duplicates dropped, from the spool, rejected. */
export interface IngestCounts {
  received: number;
  duplicates: number;
  fromSpool: number;
  rejected: number;
}

export interface ChannelStatus extends Omit<ChannelStats, 'latencies'> {
  name: string;
  type: string;
  description: string;
  /** What its own check says (configuration, prerequisites such as notify-send): no delivery tried. */
  healthy: boolean;
  /**
   * unusable: its own check fails; failing: its last delivery attempt failed (a retry waits, or it gave
   * up: `lastError` says why); ok: neither.
   */
  state: 'ok' | 'failing' | 'unusable';
  problems: string[];
  pending: number;
  latencyP50Ms?: number;
  latencyP99Ms?: number;
}

/** What the daemon listens on: unix sockets in its private runtime dir, no TCP port. */
export interface Listening {
  /** The control socket (events from the Node path, `hookd status`, `hookd daemon stop`...). */
  control: string;
  /** The fast client's socket and the protocol it speaks; absent when daemon.fastListener is off. */
  fast?: { socket: string; protocol: number; clientVersions: { min: number; max: number } };
}

export interface DaemonStats {
  v: number;
  pid: number;
  startedAt: number;
  uptimeMs: number;
  socketPath: string;
  listening: Listening;
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
  /** Presence (docs/sessions.md#presence): the setting, the detected source, the last reading. */
  presence?: PresenceStatus;
  /** The watchers on the platform API (docs/watch.md), when any runs. */
  watchers?: WatcherRow[];
  /** OpenTelemetry (docs/telemetry.md): export per signal, and the receiver; absent when both are off. */
  telemetry?: TelemetryStatus;
}

/** What `hookd status` and doctor show of OpenTelemetry export and the receiver. */
export interface TelemetryStatus {
  /** Per signal: where it goes, queued, sent, dropped, failures, the last error. */
  export?: Record<
    string,
    { url: string; queued: number; sent: number; dropped: number; failures: number; lastError?: string }
  >;
  receiver?: {
    /** The port it listens on; absent when it does not listen (see problem). */
    port?: number;
    problem?: string;
    tokenFile: string;
    counts: { accepted: number; unauthorized: number; refused: number };
  };
}

/** Where the numbers of `hookd status` come from: each part keeps its own counts. */
export interface StatsSources {
  startedAt: number;
  now: () => number;
  socketPath: string;
  journal: {
    readonly file: string;
    readonly size: number;
    readonly trouble?: { error: string; since: number } | undefined;
  };
  store: Pick<DaemonStore, 'counts' | 'pendingFor' | 'head'>;
  channels: () => ReadonlyMap<string, Channel>;
  channelStats: (name: string) => ChannelStats;
  config: () => ConfigState;
  ingest: IngestCounts;
  pipeline: NotifyCounts;
  digest: { digests: number };
  presence?: () => PresenceStatus;
  /** The fast listener, when it runs. */
  fast?: () => Listening['fast'];
  watchers?: () => WatcherRow[] | undefined;
  pid?: number;
  memory?: () => { rssBytes: number; heapUsedBytes: number };
  telemetry?: () => TelemetryStatus | undefined;
}

export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function processMemory(): { rssBytes: number; heapUsedBytes: number } {
  return { rssBytes: process.memoryUsage.rss(), heapUsedBytes: process.memoryUsage().heapUsed };
}

/** The daemon's status (`hookd status`, the `status` request), read from its parts. */
export function collectStats(s: StatsSources): DaemonStats {
  const counts = s.store.counts();
  const state = s.config();
  const journal = s.journal;
  return {
    v: PROTOCOL_VERSION,
    pid: s.pid ?? process.pid,
    startedAt: s.startedAt,
    uptimeMs: s.now() - s.startedAt,
    socketPath: s.socketPath,
    listening: (() => {
      const fast = s.fast?.();
      return { control: s.socketPath, ...(fast ? { fast } : {}) };
    })(),
    journal: {
      file: journal.file,
      bytes: journal.size,
      ...(journal.trouble ? { error: journal.trouble.error, troubleSince: journal.trouble.since } : {}),
    },
    events: {
      received: s.ingest.received,
      duplicates: s.ingest.duplicates,
      fromSpool: s.ingest.fromSpool,
      rejected: s.ingest.rejected,
      processed: s.pipeline.processed,
      pending: counts.pendingEvents,
    },
    notifications: {
      fired: s.pipeline.fired,
      suppressed: s.pipeline.suppressed,
      coalesced: s.pipeline.coalesced,
      held: s.pipeline.held,
      digests: s.digest.digests,
    },
    outbox: { pending: counts.pending, held: counts.held, dead: counts.dead },
    channels: [...s.channels().values()].map((channel) => {
      const health = channel.health();
      const cs = s.channelStats(channel.name);
      const p50 = percentile(cs.latencies, 50);
      const p99 = percentile(cs.latencies, 99);
      // Failed since its last success; or, before any attempt of this run, a waiting delivery that failed
      // before a restart (the journal keeps its attempts and error).
      const head = s.store.head(channel.name);
      const lastError = cs.lastError ?? (head && head.attempts > 0 ? head.lastError : undefined);
      const failing =
        (cs.lastErrorAt !== undefined && cs.lastErrorAt >= (cs.lastDeliveredAt ?? 0)) ||
        (cs.lastErrorAt === undefined && cs.lastDeliveredAt === undefined && (head?.attempts ?? 0) > 0);
      return {
        name: channel.name,
        type: channel.type,
        description: channel.describe(),
        healthy: health.ok,
        state: !health.ok ? ('unusable' as const) : failing ? ('failing' as const) : ('ok' as const),
        problems: health.problems,
        pending: s.store.pendingFor(channel.name),
        delivered: cs.delivered,
        failedAttempts: cs.failedAttempts,
        dead: cs.dead,
        ...(lastError ? { lastError } : {}),
        ...(cs.lastErrorAt ? { lastErrorAt: cs.lastErrorAt } : {}),
        ...(cs.lastDeliveredAt ? { lastDeliveredAt: cs.lastDeliveredAt } : {}),
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
    memory: (s.memory ?? processMemory)(),
    ...(() => {
      const telemetry = s.telemetry?.();
      return telemetry ? { telemetry } : {};
    })(),
    ...(s.presence ? { presence: s.presence() } : {}),
    ...(() => {
      const watchers = s.watchers?.();
      return watchers ? { watchers } : {};
    })(),
  };
}

import { fstatSync, statSync } from 'node:fs';
import { API_DEFAULTS } from '../../config/schemas/api-schema.js';
import { colorFor } from '../../terminal/output.js';
import { formatRecord, type LogRecord } from '../../terminal/log-record.js';
import type { Logger } from 'pino';
import type { Env } from '../../paths.js';
import { dataDir } from '../../paths.js';
import type { EventHandoff, HookEvent } from '../../events/types.js';
import { createEnricher, type CreateEnricherOptions } from '../../enrich/enricher.js';
import { apiMessageText } from '../../enrich/api-data.js';
import { defaultNotificationText } from '../../notify/default-text.js';
import type { Enrichment } from '../../enrich/types.js';
import { createLedger } from '../../ledger/ledger.js';
import { AgentUsageLink } from '../../ledger/agent-usage.js';
import type { LedgerUsage } from '../../telemetry/start-receiver.js';
import { tagSessionOnEnd } from '../../ledger/tag-session.js';
import {
  createSessionTracker,
  loadTrackerSnapshot,
  trackerStatePath,
  type CreateSessionTrackerOptions,
  type SessionTracker,
} from '../../ledger/tracker.js';
import { loadConfig } from '../../config/load.js';
import { validator } from '../../config/resolve.js';
import { daemonSettings } from '../../config/schemas/daemon-schema.js';
import { ledgerConfigSchema } from '../../config/schemas/ledger-schema.js';
import { enrichApiEnabled, enrichConfigSchema } from '../../config/schemas/enrich-schema.js';
import type { HookdConfig } from '../../config/schemas/schema.js';
import { resolveApiAccess } from '../../platform-api/access.js';
import type { PlatformClient } from '../../platform-api/api-client.js';
import type { FetchLike } from '../../channels/http.js';
import type { DefaultText } from '../../notify/notification.js';
import { createDaemonLogger } from './logger.js';
import { startDaemon, type DaemonHandle, type StartDaemonOptions } from './daemon.js';
import { NotFoundError } from '../../platform-api/errors.js';
import { WATCHER_NAMES, watchSettings } from '../../config/schemas/watch-schema.js';

/** The parts of the config the daemon's wiring reads (the user file, validated). */
export type WiringConfig = Partial<Pick<HookdConfig, 'daemon' | 'ledger' | 'enrich' | 'api' | 'watch'>>;

export interface DaemonWiringOptions {
  logger: Logger;
  /** The platform client's fetch (default: Node's global fetch). */
  fetch?: FetchLike;
  /** Skip the session ledger's tracker (a caller with its own onEvent). */
  noLedger?: boolean;
}

/** What `hookd daemon run` (and `hookd demo`) pass to startDaemon, and what to stop after it. */
export interface DaemonWiring {
  enrich: NonNullable<StartDaemonOptions['enrich']>;
  defaultText: DefaultText;
  /** The ledger's tracker, when the ledger is enabled. */
  onEvent?: (handoff: EventHandoff) => Promise<void>;
  /** Whether enrichment asks the platform API (a key is configured and enrich.api allows it). */
  usesApi: boolean;
  /** Whether finished sessions are tagged on the platform (ledger.tagOnPlatform with a key). */
  tagsOnPlatform: boolean;
  /** Stops the idle sweep and saves the tracker's open sessions. Call after the daemon has closed. */
  close(): Promise<void>;
  /** Stops the idle sweep without saving (the daemon did not start: another one owns the files). */
  discard(): void;
  /** Everything above that startDaemon takes, plus the enrichment budget and home-path redaction. */
  startOptions: Pick<
    StartDaemonOptions,
    | 'enrich'
    | 'defaultText'
    | 'onEvent'
    | 'enrichBudgetMs'
    | 'redactHomePaths'
    | 'appUrl'
    | 'watch'
    | 'agentUsage'
  >;
}

/** A platform client when an API key is configured; a broken key file is logged, never fatal. */
async function platformClientFor(
  env: Env,
  config: WiringConfig,
  logger: Logger,
  fetch: FetchLike | undefined,
  retries?: number,
): Promise<PlatformClient | undefined> {
  if (!env.HOOKD_API_KEY?.trim() && !env.FACTORY_API_KEY?.trim() && !config.api?.keyFile) return undefined;
  try {
    const access = resolveApiAccess(env, config.api);
    // Loaded only with a key: the idle daemon of a user without one never evaluates the API schemas.
    const { PlatformClient } = await import('../../platform-api/api-client.js');
    return new PlatformClient({
      baseUrl: access.baseUrl,
      appUrl: access.appUrl,
      apiKey: access.apiKey,
      timeoutMs: access.timeoutMs,
      retries: retries ?? access.retries,
      fetch,
    });
  } catch (error) {
    logger.warn(
      { source: 'api', error: (error as Error).message },
      'platform API not used: enrichment and tagging work from local data only',
    );
    return undefined;
  }
}

/** A message by id from the platform; one the platform does not have is `null`, not a failure. */
export function messageFetcher(client: PlatformClient): NonNullable<CreateEnricherOptions['fetchMessage']> {
  return async (sessionId, messageId) => {
    try {
      const text = apiMessageText(await client.getMessage(sessionId, messageId));
      return text ? { text } : null;
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  };
}

/**
 * Enrichment (local session store, then the platform API when a key is configured and `enrich.api`
 * allows it), the default notification texts, and the session ledger's tracker (tagging sessions on the
 * platform with `ledger.tagOnPlatform`): everything `hookd daemon run` gives startDaemon, reusable by
 * `hookd demo`.
 */
export async function createDaemonWiring(
  env: Env,
  config: WiringConfig,
  options: DaemonWiringOptions,
): Promise<DaemonWiring> {
  const { logger } = options;
  const ledgerSettings = ledgerConfigSchema.parse(config.ledger ?? {});
  const enrichSettings = enrichConfigSchema.parse(config.enrich ?? {});
  const client = await platformClientFor(env, config, logger, options.fetch);
  // The watchers' own client: no retries inside a request, the watchers back off themselves (docs/watch.md).
  const watchConfig = watchSettings(config.watch);
  const watching = WATCHER_NAMES.some((name) => watchConfig[name].enabled);
  const watchClient = watching ? await platformClientFor(env, config, logger, options.fetch, 0) : undefined;
  if (watching && !watchClient)
    logger.warn(
      { source: 'watch' },
      'platform watchers are turned on but no API key is configured; none run',
    );
  const usesApi = client !== undefined && enrichApiEnabled(enrichSettings, true);

  const enricher = createEnricher({
    budgetMs: enrichSettings.budgetMs,
    maxReadBytes: enrichSettings.maxReadBytes,
    excerptChars: enrichSettings.excerptChars,
    gitBranch: enrichSettings.gitBranch,
    ...(enrichSettings.factoryHome ? { factoryHome: enrichSettings.factoryHome } : {}),
    warn: (message) => logger.warn({ source: 'enrich' }, message),
    ...(client && usesApi ? { fetchMessage: messageFetcher(client) } : {}),
  });

  const tagsOnPlatform = Boolean(client && ledgerSettings.enabled && ledgerSettings.tagOnPlatform);
  let tracker: SessionTracker | undefined;
  let agentUsage: LedgerUsage | undefined;
  if (ledgerSettings.enabled && !options.noLedger) {
    const statePath = trackerStatePath(dataDir(env));
    const onRecorded: CreateSessionTrackerOptions['onRecorded'] =
      client && tagsOnPlatform
        ? async (record, enrichment) => {
            const tagged = await tagSessionOnEnd(record, (id, update) => client.updateSession(id, update), {
              tagName: ledgerSettings.tagName,
              ...(enrichment?.session.tags ? { existingTags: enrichment.session.tags } : {}),
            });
            if (tagged.ok)
              logger.info({ source: 'ledger', session: record.sessionId }, 'session tagged on the platform');
            else logger.warn({ source: 'ledger', session: record.sessionId }, tagged.error);
          }
        : undefined;
    const ledger = createLedger({ dataDir: dataDir(env) });
    agentUsage = { link: new AgentUsageLink(), amend: (...args) => ledger.amend(...args) };
    const link = agentUsage.link;
    tracker = createSessionTracker({
      ledger,
      agentUsage: (id) => link.of(id),
      enrich: (event) => enricher.enrich(event),
      idleCloseMs: ledgerSettings.idleCloseMinutes * 60_000,
      statePath,
      warn: (message) => logger.warn({ source: 'ledger' }, message),
      ...(onRecorded ? { onRecorded } : {}),
    });
    tracker.restore(await loadTrackerSnapshot(statePath));
  }
  const ledgerTracker = tracker;
  const sweep = ledgerTracker ? setInterval(() => void ledgerTracker.sweepIdle(), 60_000) : undefined;

  const enrich = async (event: HookEvent): Promise<Record<string, unknown>> => {
    if (!enrichSettings.enabled) return {};
    const enrichment = await enricher.enrich(event);
    // A finished session's cache is dropped a little later, once its last notifications went out.
    if (event.name === 'SessionEnd' && event.sessionId) {
      const id = event.sessionId;
      setTimeout(() => enricher.forget(id), 60_000).unref();
    }
    return enrichment as unknown as Record<string, unknown>;
  };
  const defaultText: DefaultText = (event, enrichment) =>
    enrichment.session ? defaultNotificationText(event, enrichment as unknown as Enrichment) : undefined;
  const onEvent = ledgerTracker ? (handoff: EventHandoff) => ledgerTracker.onEvent(handoff) : undefined;
  return {
    enrich,
    defaultText,
    ...(onEvent ? { onEvent } : {}),
    startOptions: {
      enrich,
      defaultText,
      ...(onEvent ? { onEvent } : {}),
      // The enricher keeps its own budget; the daemon's timer is only a safety net behind it.
      enrichBudgetMs: enrichSettings.budgetMs + 250,
      redactHomePaths: enrichSettings.redactHomePaths,
      // For the click URL of ntfy notifications: HOOKD_APP_URL, then api.appUrl, then the real host.
      appUrl: env.HOOKD_APP_URL || config.api?.appUrl || API_DEFAULTS.appUrl,
      // A changed `watch` section (or API key) is applied live: the client is made again for it.
      watch: {
        config: watchConfig,
        client: watchClient,
        clientFor: (changed) => platformClientFor(env, changed, logger, options.fetch, 0),
      },
      ...(agentUsage ? { agentUsage } : {}),
    },
    usesApi,
    tagsOnPlatform,
    close: async () => {
      clearInterval(sweep);
      await ledgerTracker?.close();
    },
    discard: () => clearInterval(sweep),
  };
}

/** Records waiting for a slow reader of stderr beyond this are dropped, not held. */
const STDERR_BACKLOG_BYTES = 1024 * 1024;

/** True when this process's stderr is /dev/null (a daemon started in the background: by a hook, `start`). */
function stderrIsNull(): boolean {
  try {
    const err = fstatSync(2);
    const nul = statSync('/dev/null');
    return err.isCharacterDevice() && err.rdev === nul.rdev;
  } catch {
    return true;
  }
}

/**
 * The foreground daemon's log on stderr as well, each record as `hookd logs` shows it, so systemd's
 * journal (`journalctl --user -u hookd`) and a terminal running `hookd daemon run` see it. None when
 * stderr goes nowhere. The daemon never waits on stderr: a reader that went away ends the copy, and one
 * that falls over 1 MiB behind misses records (the log file keeps them all).
 */
function stderrLog(env: Env): ((line: string) => void) | undefined {
  if (stderrIsNull()) return undefined;
  let closed = false;
  process.stderr.on('error', () => {
    closed = true;
  });
  const out = { color: colorFor(process.stderr.isTTY, env) };
  return (line) => {
    if (closed || process.stderr.writableLength > STDERR_BACKLOG_BYTES) return;
    try {
      process.stderr.write(formatRecord(JSON.parse(line) as LogRecord, out));
    } catch {}
  };
}

/**
 * `hookd daemon run`: the daemon with everything wired in (enrichment, default texts, the session
 * ledger's tracker), stopping on SIGTERM/SIGINT and reloading its config on SIGHUP.
 */
export async function runDaemonForeground(
  env: Env,
  extra: Pick<StartDaemonOptions, 'onEvent'> = {},
): Promise<{ handle: DaemonHandle; done: Promise<void> }> {
  let config: WiringConfig = {};
  try {
    config = loadConfig({ env, projectDir: undefined, validator: () => validator, useCache: false }).config;
  } catch {}
  const logger = createDaemonLogger(env, daemonSettings(config.daemon).logLevel, stderrLog(env));
  const wiring = await createDaemonWiring(env, config, { logger, noLedger: Boolean(extra.onEvent) });

  let handle: DaemonHandle;
  try {
    handle = await startDaemon({
      env,
      logger,
      ...wiring.startOptions,
      ...extra,
    });
  } catch (error) {
    wiring.discard();
    throw error;
  }
  const stop = () => void handle.close();
  const reload = () => void handle.reloadConfig();
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', reload);
  const done = handle.closed.then(async () => {
    await wiring.close();
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    process.off('SIGHUP', reload);
  });
  return { handle, done };
}

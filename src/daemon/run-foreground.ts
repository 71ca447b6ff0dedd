import type { Env } from '../paths.js';
import { dataDir } from '../paths.js';
import type { HookEvent } from '../events/types.js';
import { createEnricher } from '../enrich/enricher.js';
import { defaultNotificationText } from '../enrich/templates.js';
import type { Enrichment } from '../enrich/types.js';
import { createLedger } from '../ledger/ledger.js';
import {
  createSessionTracker,
  loadTrackerSnapshot,
  trackerStatePath,
  type SessionTracker,
} from '../ledger/tracker.js';
import { loadConfig } from '../config/load.js';
import { validator } from '../config/resolve.js';
import { daemonSettings } from '../config/daemon-schema.js';
import { ledgerConfigSchema } from '../config/ledger-schema.js';
import { createDaemonLogger } from './logger.js';
import { startDaemon, type DaemonHandle, type StartDaemonOptions } from './daemon.js';

/**
 * `hookd daemon run`: the daemon with everything wired in (enrichment, default texts, the session
 * ledger's tracker), stopping on SIGTERM/SIGINT and reloading its config on SIGHUP.
 */
export async function runDaemonForeground(
  env: Env,
  extra: Pick<StartDaemonOptions, 'onEvent'> = {},
): Promise<{ handle: DaemonHandle; done: Promise<void> }> {
  let level = 'info';
  let budgetMs = daemonSettings({}).enrichBudgetMs;
  let ledgerSettings = ledgerConfigSchema.parse({});
  try {
    const loaded = loadConfig({ env, projectDir: undefined, validator: () => validator, useCache: false });
    const settings = daemonSettings((loaded.config as { daemon?: unknown }).daemon);
    level = settings.logLevel;
    budgetMs = settings.enrichBudgetMs;
    ledgerSettings = ledgerConfigSchema.parse(loaded.config.ledger ?? {});
  } catch {}
  const logger = createDaemonLogger(env, level);
  const enricher = createEnricher({
    budgetMs,
    warn: (message) => logger.warn({ source: 'enrich' }, message),
  });

  let tracker: SessionTracker | undefined;
  if (ledgerSettings.enabled && !extra.onEvent) {
    const statePath = trackerStatePath(dataDir(env));
    tracker = createSessionTracker({
      ledger: createLedger({ dataDir: dataDir(env) }),
      enrich: (event) => enricher.enrich(event),
      idleCloseMs: ledgerSettings.idleCloseMinutes * 60_000,
      statePath,
      warn: (message) => logger.warn({ source: 'ledger' }, message),
    });
    tracker.restore(await loadTrackerSnapshot(statePath));
  }
  const ledgerTracker = tracker;

  const handle = await startDaemon({
    env,
    logger,
    enrich: async (event: HookEvent) => (await enricher.enrich(event)) as unknown as Record<string, unknown>,
    defaultText: (event, enrichment) =>
      enrichment.session ? defaultNotificationText(event, enrichment as unknown as Enrichment) : undefined,
    ...(ledgerTracker ? { onEvent: (handoff) => ledgerTracker.onEvent(handoff) } : {}),
    ...extra,
  });
  const sweep = ledgerTracker ? setInterval(() => void ledgerTracker.sweepIdle(), 60_000) : undefined;
  const stop = () => void handle.close();
  const reload = () => void handle.reloadConfig();
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', reload);
  const done = handle.closed.then(async () => {
    clearInterval(sweep);
    await ledgerTracker?.close();
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    process.off('SIGHUP', reload);
  });
  return { handle, done };
}

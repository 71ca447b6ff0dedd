import type { Env } from '../paths.js';
import type { HookEvent } from '../events/types.js';
import { createEnricher } from '../enrich/enricher.js';
import { defaultNotificationText } from '../enrich/templates.js';
import type { Enrichment } from '../enrich/types.js';
import { createDaemonLogger } from './logger.js';
import { startDaemon, type DaemonHandle, type StartDaemonOptions } from './daemon.js';
import { loadConfig } from '../config/load.js';
import { validator } from '../config/resolve.js';
import { daemonSettings } from '../config/daemon-schema.js';

/**
 * `hookd daemon run`: the daemon with everything wired in (enrichment, default texts; the session
 * ledger's tracker is passed as `onEvent` by the caller when available), stopping on SIGTERM/SIGINT and
 * reloading its config on SIGHUP.
 */
export async function runDaemonForeground(
  env: Env,
  extra: Pick<StartDaemonOptions, 'onEvent'> = {},
): Promise<{ handle: DaemonHandle; done: Promise<void> }> {
  let level: string = 'info';
  let budgetMs = daemonSettings({}).enrichBudgetMs;
  try {
    const loaded = loadConfig({ env, projectDir: undefined, validator: () => validator, useCache: false });
    const settings = daemonSettings((loaded.config as { daemon?: unknown }).daemon);
    level = settings.logLevel;
    budgetMs = settings.enrichBudgetMs;
  } catch {}
  const logger = createDaemonLogger(env, level);
  const enricher = createEnricher({
    budgetMs,
    warn: (message) => logger.warn({ source: 'enrich' }, message),
  });
  const handle = await startDaemon({
    env,
    logger,
    enrich: async (event: HookEvent) => (await enricher.enrich(event)) as unknown as Record<string, unknown>,
    defaultText: (event, enrichment) =>
      enrichment.session ? defaultNotificationText(event, enrichment as unknown as Enrichment) : undefined,
    ...extra,
  });
  const stop = () => void handle.close();
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', () => handle.reloadConfig());
  const done = handle.closed.then(() => {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  });
  return { handle, done };
}

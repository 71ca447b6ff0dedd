import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Logger } from 'pino';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import { validator } from '../config/resolve.js';
import type { ConfigIssue } from '../config/issues.js';
import { notifySettings, type NotifyConfig } from '../config/schemas/notify-schema.js';
import { daemonSettings, type DaemonConfig } from '../config/schemas/daemon-schema.js';
import { userConfigPath, type Env } from '../paths.js';

export interface ConfigState {
  notify: NotifyConfig;
  daemon: DaemonConfig;
  /** False when the file on disk is invalid and the last good config is kept. */
  ok: boolean;
  issues: ConfigIssue[];
  file?: string;
  loadedAt: number;
  /** When the config in force was loaded (differs from loadedAt while a bad edit is rejected). */
  appliedAt: number;
  /**
   * The whole user config (hooks, settings, notify, daemon) as the hook loads it (loadConfig, the same
   * validation), when the file in force validated; what the fast listener runs events with.
   */
  full?: LoadedConfig | undefined;
}

export interface ConfigStoreOptions {
  env: Env;
  logger: Logger;
  /** A fixed config (tests, `hookd demo`): no files, no watching. */
  fixed?: { notify?: unknown; daemon?: unknown };
  now: () => number;
  onChange?: (state: ConfigState) => void;
}

/**
 * The daemon's config: loaded from the user config file, watched with chokidar (awaitWriteFinish so a
 * quick burst of writes ends on the last one), validated, then swapped. An invalid edit keeps the last
 * good config and is reported (log and `hookd status`).
 */
export class ConfigStore {
  private current: ConfigState;
  private watcher: { close(): Promise<void> } | undefined;
  private reloadTimer: NodeJS.Timeout | undefined;
  /** Whether a config from the file (valid, or its last good version) was ever applied. */
  private loaded = false;

  constructor(private readonly options: ConfigStoreOptions) {
    const at = options.now();
    this.current = {
      notify: notifySettings({}),
      daemon: daemonSettings({}),
      ok: true,
      issues: [],
      loadedAt: at,
      appliedAt: at,
    };
    if (options.fixed) {
      this.current.notify = notifySettings(options.fixed.notify);
      this.current.daemon = daemonSettings(options.fixed.daemon);
    } else this.reload();
  }

  get state(): ConfigState {
    return this.current;
  }

  /** Reads and validates the file; swaps only when valid. Returns whether the config in force changed. */
  reload(): boolean {
    if (this.options.fixed) return false;
    const { env, logger } = this.options;
    const at = this.options.now();
    const file = userConfigPath(env);
    let loaded;
    try {
      loaded = loadConfig({ env, projectDir: undefined, validator: () => validator, useCache: false });
    } catch (error) {
      const issue: ConfigIssue = {
        file,
        path: '(root)',
        message: `cannot load: ${(error as Error).message}`,
      };
      this.current = { ...this.current, ok: false, issues: [issue], file, loadedAt: at };
      logger.error({ file, issue }, 'config cannot be loaded; keeping the last good config');
      return false;
    }
    const issues = loaded.sources.flatMap((s) => s.issues);
    if (issues.length > 0) {
      // Started while the file is broken: run the last version that validated (as the hook does), not
      // the defaults. Later invalid edits keep the config in force, as before.
      const lastGood = !this.loaded && loaded.sources[0]?.lastGood;
      this.current = {
        ...this.current,
        ...(lastGood
          ? {
              notify: notifySettings(loaded.config.notify),
              daemon: daemonSettings((loaded.config as { daemon?: unknown }).daemon),
              appliedAt: at,
            }
          : {}),
        ok: false,
        issues,
        file,
        loadedAt: at,
      };
      if (lastGood) {
        this.loaded = true;
        logger.error(
          { file, savedAt: lastGood.savedAt },
          'config invalid; running the last config that validated',
        );
      }
      for (const issue of issues)
        logger.error(
          { file: issue.file, path: issue.path, message: issue.message, fix: issue.fix },
          'invalid config; keeping the last good config',
        );
      this.options.onChange?.(this.current);
      return false;
    }
    this.loaded = true;
    this.current = {
      notify: notifySettings(loaded.config.notify),
      daemon: daemonSettings((loaded.config as { daemon?: unknown }).daemon),
      ok: true,
      issues: [],
      file,
      loadedAt: at,
      appliedAt: at,
      full: loaded,
    };
    logger.info({ file, exists: loaded.sources[0]?.exists ?? false }, 'config loaded');
    this.options.onChange?.(this.current);
    return true;
  }

  /** Watches the config file's folder (editors replace files by rename, so the file alone is not enough). */
  async watch(): Promise<void> {
    if (this.options.fixed || this.watcher) return;
    const file = resolve(userConfigPath(this.options.env));
    const dir = dirname(file);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const { watch } = await import('chokidar');
    const watcher = watch(dir, {
      ignoreInitial: true,
      depth: 0,
      awaitWriteFinish: { stabilityThreshold: 150, pollInterval: 25 },
      ignored: (path: string) => path !== dir && resolve(path) !== file,
    });
    const schedule = () => {
      clearTimeout(this.reloadTimer);
      this.reloadTimer = setTimeout(() => this.reload(), 20);
    };
    watcher.on('add', schedule).on('change', schedule).on('unlink', schedule);
    watcher.on('error', (error) =>
      this.options.logger.warn({ error: String(error) }, 'config watcher error'),
    );
    await new Promise<void>((ready) => watcher.once('ready', () => ready()));
    this.watcher = watcher;
  }

  async close(): Promise<void> {
    clearTimeout(this.reloadTimer);
    await this.watcher?.close();
    this.watcher = undefined;
  }
}

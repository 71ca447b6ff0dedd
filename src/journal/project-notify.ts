import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Logger } from 'pino';
import { loadConfig } from '../config/load.js';
import { notifySettings, type NotifyConfig } from '../config/schemas/notify-schema.js';
import { mergeProjectNotify } from '../config/project-notify.js';
import { validator } from '../config/resolve.js';
import { projectConfigStamp, trustFilePath } from '../config/trust.js';
import type { HookEvent } from '../events/types.js';
import { buildChannels, type BuildChannelsOptions } from '../channels/build-channels.js';
import type { Channel } from '../channels/channel.js';
import { projectDirOf } from '../notify/notification.js';
import type { Env } from '../paths.js';

/** How many project dirs the daemon keeps merged configs for (least recently used ones are dropped). */
export const PROJECT_CACHE_MAX = 64;

interface Entry {
  fingerprint: string;
  notify?: NotifyConfig;
  channels: Map<string, Channel>;
}

export interface ProjectNotifyOptions {
  env: Env;
  logger: Logger;
  /** The user's notify config in force, and a number that changes when it does. */
  userNotify: () => NotifyConfig;
  userVersion: () => number;
  /** How channels are built (the daemon's options; never its overrides). */
  build: Omit<BuildChannelsOptions, 'overrides'>;
  /** The daemon's channel table: project channels are added to it under qualified names. */
  channels: () => Map<string, Channel>;
  max?: number;
}

function stamp(file: string): string {
  try {
    // No exception for the common case (no project file): a thrown ENOENT costs more than the stat.
    const st = statSync(file, { throwIfNoEntry: false });
    return st ? `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}` : 'absent';
  } catch {
    return 'absent';
  }
}

/** `team@<folder>-<hash>`: unique per project dir in the daemon's one channel table. */
export function qualifiedChannelName(name: string, projectDir: string): string {
  const hash = createHash('sha256').update(projectDir).digest('hex').slice(0, 8);
  return `${name}@${basename(projectDir)}-${hash}`;
}

/**
 * The notify config for an event's project: the user's plus a trusted project file's channels and rules
 * (config/project-notify.ts). Loaded per project dir, cached, loaded again when the project file, the
 * trust file or the user's config changes; an untrusted, changed or invalid project file gives none.
 */
export class ProjectNotifyCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: ProjectNotifyOptions) {}

  /** The merged notify config for the event's project, or undefined when the user's alone applies. */
  notifyFor(event: HookEvent): NotifyConfig | undefined {
    const dir = projectDirOf(event);
    if (!dir || this.options.env.HOOKD_NO_PROJECT_CONFIG) return undefined;
    // The project's `.hookd` folder and config as entries (a link seen as a link): a config swapped for a
    // link, or a link retargeted, is loaded again (and then not applied: config/trust.ts).
    const fileStamp = projectConfigStamp(dir);
    if (fileStamp === 'absent' && !this.entries.has(dir)) return undefined;
    const fingerprint = `${fileStamp}|${stamp(trustFilePath(this.options.env))}|${this.options.userVersion()}`;
    let entry = this.entries.get(dir);
    if (entry?.fingerprint !== fingerprint) {
      if (entry) this.drop(dir, entry);
      entry = this.load(dir, fingerprint);
    }
    this.entries.delete(dir);
    this.entries.set(dir, entry);
    while (this.entries.size > (this.options.max ?? PROJECT_CACHE_MAX)) {
      const [oldest, old] = this.entries.entries().next().value as [string, Entry];
      this.drop(oldest, old);
    }
    return entry.notify;
  }

  /** The channels of the loaded projects, for a rebuilt channel table. */
  addChannelsTo(table: Map<string, Channel>): void {
    for (const entry of this.entries.values())
      for (const [name, channel] of entry.channels) table.set(name, channel);
  }

  private drop(dir: string, entry: Entry): void {
    this.entries.delete(dir);
    const table = this.options.channels();
    for (const name of entry.channels.keys()) table.delete(name);
  }

  private load(dir: string, fingerprint: string): Entry {
    const { env, logger } = this.options;
    const empty: Entry = { fingerprint, channels: new Map() };
    let loaded;
    try {
      loaded = loadConfig({
        env,
        projectDir: dir,
        validator: () => validator,
        useCache: false,
        recordLastGood: false,
      });
    } catch (error) {
      logger.warn({ projectDir: dir, error: (error as Error).message }, 'cannot load the project config');
      return empty;
    }
    const source = loaded.sources.find((s) => s.level === 'project');
    if (!loaded.projectNotify || !source?.ok || source.trust?.state !== 'trusted') {
      if (source?.exists && !source.ok)
        logger.warn(
          { projectDir: dir, file: source.file, issues: source.issues },
          'project notify rules not applied: the project config is invalid',
        );
      return empty;
    }
    const merged = mergeProjectNotify(this.options.userNotify(), loaded.projectNotify.raw, source.file, {
      channelName: (name) => qualifiedChannelName(name, dir),
    });
    if (!merged.ok) {
      logger.warn(
        { projectDir: dir, file: source.file, issues: merged.issues },
        'project notify rules not applied',
      );
      return empty;
    }
    const own = new Set(merged.channels.map((name) => qualifiedChannelName(name, dir)));
    const defs = Object.fromEntries(Object.entries(merged.notify.channels).filter(([name]) => own.has(name)));
    const channels = new Map<string, Channel>();
    for (const [name, channel] of buildChannels(
      { ...notifySettings({}), channels: defs },
      this.options.build,
    ))
      if (own.has(name)) channels.set(name, channel);
    const table = this.options.channels();
    for (const [name, channel] of channels) table.set(name, channel);
    logger.info(
      { projectDir: dir, file: source.file, rules: merged.rules, channels: [...channels.keys()] },
      'project notify rules loaded',
    );
    return { fingerprint, notify: merged.notify, channels };
  }
}

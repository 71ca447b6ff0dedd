import type { HookdConfig } from './schemas/schema.js';
import type { ConfigIssue } from './issues.js';
import type { ConfigLevel } from './merge.js';
import type { TrustInfo } from './trust.js';

/** What loading the config gives: the shapes shared by load.ts (the memo and cache) and load-fresh.ts. */

export interface ConfigSource {
  level: ConfigLevel;
  file: string;
  exists: boolean;
  /** False when the file exists but is invalid or unreadable; its content is then not applied. */
  ok: boolean;
  issues: ConfigIssue[];
  /**
   * Project files only: whether the user trusted these exact bytes in this project dir. Applied only
   * when `trusted`; an `unsafe` one (a link inside the project) exists but was not read.
   */
  trust?: TrustInfo;
  /** The file is invalid, and the last version that validated (saved then) is in force instead. */
  lastGood?: { savedAt: string };
  /** Keys of a project file that are not applied (only hooks and settings.commandTimeoutSec are). */
  ignoredKeys?: string[];
}

/** A problem met while loading that is not in a config file (the trust file, a cache), to log. */
export interface LoadWarning {
  kind: 'trust-file' | 'config-cache';
  level: 'warn' | 'error';
  message: string;
}

export interface LoadedConfig {
  config: HookdConfig;
  sources: ConfigSource[];
  entryOrigins: Record<string, string[]>;
  /** For each event, the level (user | project) of each hook entry, parallel to entryOrigins. */
  entryLevels: Record<string, ConfigLevel[]>;
  /** A trusted project file's settings.commandTimeoutSec: the default timeout of its own commands. */
  projectCommandTimeoutSec?: number;
  /** A trusted project file's `notify` (raw), merged into `config.notify` (config/project-notify.ts). */
  projectNotify?: { file: string; raw: unknown; rules: string[]; channels: string[] };
  /** True when the result came from the cache (the validator was not loaded). */
  cached?: boolean;
  warnings?: LoadWarning[];
}

export interface ConfigFileInput {
  level: ConfigLevel;
  file: string;
  text: string | null;
  /** Why the file exists but could not be read, and the fix. */
  readError?: { reason: string; fix: string };
  /** False: validate and report, but do not apply (an untrusted project file). */
  apply?: boolean;
  trust?: TrustInfo;
  /** The last version of this file that validated, used when the file itself is invalid. */
  lastGood?: { text: string; savedAt: string };
}

/** What the zod side provides; injected so the hook path loads it only on a cache miss. */
export interface ConfigValidator {
  resolveConfig(files: readonly ConfigFileInput[]): LoadedConfig;
}

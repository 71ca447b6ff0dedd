/**
 * Merging of config levels. Hooks from every level run (user first, then project), as the agent runs
 * the hooks of all its settings levels. Everything else comes from the user level only: a project file
 * (trusted with `hookd trust`) may add commands but never loosen what the user set. Of its `settings`
 * only `commandTimeoutSec` applies, and only to the project's own commands; of its `notify` only
 * `channels` and `rules` (added after the user's, see project-notify.ts); of `remote` only
 * `"enabled": false` (anything else there is a config error); its other settings and its other
 * sections (daemon, api, ledger, enrich) are ignored and reported.
 */
import { isObject, type Json } from '../util/json-values.js';

/** The keys of a project's `notify` that apply (project-notify.ts merges them). */
export const PROJECT_NOTIFY_KEYS = ['channels', 'rules'] as const;

export type ConfigLevel = 'user' | 'project';

export interface LevelInput {
  level: ConfigLevel;
  file: string;
  raw: Json;
}

export interface MergedRaw {
  raw: Json;
  /** For each event, the file each hook entry came from, in the merged order. */
  entryOrigins: Record<string, string[]>;
  /** For each event, the level each hook entry came from (parallel to entryOrigins). */
  entryLevels: Record<string, ConfigLevel[]>;
  /** The project file's default timeout for its own commands, when it sets one. */
  projectCommandTimeoutSec?: number;
  /** The project file's raw `notify`, when it has one (merged by project-notify.ts). */
  projectNotify?: { file: string; raw: unknown };
}

/** The keys of a project file that hookd does not apply (see the module comment). */
export function ignoredProjectKeys(raw: Json): string[] {
  const ignored: string[] = [];
  for (const key of Object.keys(raw)) {
    // `remote` may only be the kill switch (remote-schema.ts): it applies.
    if (key === 'hooks' || key === '$schema' || key === 'remote') continue;
    if (key === 'notify' && isObject(raw.notify)) {
      for (const part of Object.keys(raw.notify))
        if (!(PROJECT_NOTIFY_KEYS as readonly string[]).includes(part)) ignored.push(`notify.${part}`);
    } else if (key === 'settings' && isObject(raw.settings)) {
      for (const setting of Object.keys(raw.settings))
        if (setting !== 'commandTimeoutSec') ignored.push(`settings.${setting}`);
    } else ignored.push(key);
  }
  return ignored;
}

/**
 * A project file without its notify channels and rules: for a file trusted by a hookd that did not apply
 * them (its trust record has no `notify`). `dropped` says why, for `hookd config` and `hookd trust`.
 */
export function withoutProjectNotify(raw: Json): { raw: Json; dropped: string[] } {
  const notify = raw.notify;
  if (!isObject(notify)) return { raw, dropped: [] };
  const kept: Json = { ...notify };
  const dropped: string[] = [];
  for (const key of PROJECT_NOTIFY_KEYS)
    if (key in kept) {
      delete kept[key];
      dropped.push(`notify.${key} (trusted before project notify rules applied: run \`hookd trust\` again)`);
    }
  return { raw: { ...raw, notify: kept }, dropped };
}

export function mergeLevels(levels: readonly LevelInput[]): MergedRaw {
  let raw: Json = {};
  const hooks: Record<string, unknown[]> = Object.create(null) as Record<string, unknown[]>;
  const entryOrigins: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  const entryLevels: Record<string, ConfigLevel[]> = Object.create(null) as Record<string, ConfigLevel[]>;
  let projectCommandTimeoutSec: number | undefined;
  let projectNotify: MergedRaw['projectNotify'];
  for (const level of levels) {
    const { hooks: levelHooks, ...rest } = level.raw;
    if (level.level === 'user') raw = { ...raw, ...rest };
    else {
      const timeout = isObject(rest.settings) ? rest.settings.commandTimeoutSec : undefined;
      if (typeof timeout === 'number') projectCommandTimeoutSec = timeout;
      const notify = rest.notify;
      if (isObject(notify) && PROJECT_NOTIFY_KEYS.some((key) => key in notify))
        projectNotify = { file: level.file, raw: notify };
      // The project's kill switch for remote answers: it can only turn them off.
      if (isObject(rest.remote) && rest.remote.enabled === false && isObject(raw.remote))
        raw = { ...raw, remote: { ...raw.remote, enabled: false } };
    }
    if (isObject(levelHooks)) {
      for (const [event, entries] of Object.entries(levelHooks)) {
        if (!Array.isArray(entries)) continue;
        (hooks[event] ??= []).push(...entries);
        (entryOrigins[event] ??= []).push(...entries.map(() => level.file));
        (entryLevels[event] ??= []).push(...entries.map(() => level.level));
      }
    }
  }
  return {
    raw: { ...raw, hooks: { ...hooks } },
    entryOrigins: { ...entryOrigins },
    entryLevels: { ...entryLevels },
    ...(projectCommandTimeoutSec !== undefined ? { projectCommandTimeoutSec } : {}),
    ...(projectNotify ? { projectNotify } : {}),
  };
}

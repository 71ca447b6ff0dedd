import { lstat, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isObject } from '../util/json-values.js';
import { removeHookdEntries } from './merge-hooks.js';
import { readSettingsFile } from '../settings-io/settings-file.js';

/** At most this many of a file's backups are read to find the one from before hookd's latest install. */
const MAX_BACKUPS_READ = 16;

/** `<timestamp>` or `<timestamp>-<n>`, as backupSettingsFile names them. */
const BACKUP_SUFFIX = /^(\d{8}T\d{9}Z)(?:-(\d{1,2}))?$/;

/** The backups install and uninstall made of `file` (`<file>.hookd-backup-<timestamp>[-<n>]`), newest first. */
async function backupsOf(file: string): Promise<string[]> {
  const prefix = `${basename(file)}.hookd-backup-`;
  let names: string[];
  try {
    names = await readdir(dirname(file));
  } catch {
    return [];
  }
  const found: { name: string; stamp: string; n: number }[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const match = BACKUP_SUFFIX.exec(name.slice(prefix.length));
    if (match) found.push({ name, stamp: match[1]!, n: Number(match[2] ?? 0) });
  }
  found.sort((a, b) => (a.stamp === b.stamp ? b.n - a.n : a.stamp < b.stamp ? 1 : -1));
  return found.map((b) => join(dirname(file), b.name));
}

/**
 * Whether the settings file had a `hooks` key before hookd was installed into it, as the newest of
 * its backups without any hookd hook says (that is the file as it was before the latest install);
 * undefined when no backup tells (none kept, or each one unreadable). A backup that is a symlink or
 * not a small JSON file is passed over: it only ever decides whether an emptied `"hooks": {}` stays.
 */
export async function hadHooksKeyBeforeInstall(file: string): Promise<boolean | undefined> {
  for (const backup of (await backupsOf(file)).slice(0, MAX_BACKUPS_READ)) {
    try {
      if (!(await lstat(backup)).isFile()) continue;
      const { data } = await readSettingsFile(backup);
      if (!('hooks' in data)) return false;
      if (isObject(data.hooks) && removeHookdEntries(data.hooks).removed.length > 0) continue;
      return true;
    } catch {
      continue;
    }
  }
  return undefined;
}

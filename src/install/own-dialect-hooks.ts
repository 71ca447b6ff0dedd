import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { COPILOT_OWN_EVENT_NAMES } from '../agents/copilot-dialect.js';
import { readSettingsFile, type SettingsFileSnapshot } from '../settings-io/settings-file.js';

/*
 * Hooks files in Copilot CLI's own dialect (docs/agents/copilot.md, "Two dialects"), for `hookd import
 * --agent copilot`: every `*.json` beside hookd's own file in `~/.copilot/hooks/` (user scope) or a
 * project's `.github/hooks/` (project scope) that holds `{"version": 1, "hooks": {"preToolUse": [...]}}`,
 * each entry `{"type": "command", "bash": "...", "timeoutSec": 30, "env": {...}}`. A symlink there is
 * not followed (a repository may plant one), nor is a file that is not JSON read further.
 */

/** One entry of such a file, and what hookd makes of it. */
export interface OwnDialectEntry {
  /** Copilot's event name (`preToolUse`). */
  ownEvent: string;
  index: number;
  entry: unknown;
  /** hookd's event name and entry, when hookd can run it. */
  event?: string;
  converted?: Record<string, unknown>;
  /** Why it stays in Copilot's file. */
  reasons?: string[];
}

export interface OwnDialectFile {
  snapshot: SettingsFileSnapshot;
  hooks: Record<string, unknown[]>;
  entries: OwnDialectEntry[];
}

/** A file of the folder that was not read, and why. */
export interface SkippedFile {
  file: string;
  reason: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The keys of an entry hookd takes over; `powershell` and `comment` are Copilot's and left behind. */
const TAKEN = new Set(['type', 'bash', 'timeoutSec', 'env', 'powershell', 'comment']);

function convert(ownEvent: string, entry: unknown): Pick<OwnDialectEntry, 'event' | 'converted' | 'reasons'> {
  const event = Object.hasOwn(COPILOT_OWN_EVENT_NAMES, ownEvent)
    ? COPILOT_OWN_EVENT_NAMES[ownEvent]
    : undefined;
  if (!event) return { reasons: [`hookd has no event for Copilot's "${ownEvent}"`] };
  if (!isObject(entry)) return { reasons: ['not an object'] };
  const reasons: string[] = [];
  if (entry.type !== 'command') reasons.push(`type ${JSON.stringify(entry.type)}: hookd runs only commands`);
  if (typeof entry.bash !== 'string' || entry.bash.trim() === '')
    reasons.push('no "bash" command: hookd runs commands with sh');
  const other = Object.keys(entry).filter((key) => !TAKEN.has(key));
  if (other.length > 0)
    reasons.push(
      `${other.map((k) => `"${k}"`).join(', ')}: not moved (hookd runs commands in the event's folder)`,
    );
  if (entry.timeoutSec !== undefined && (typeof entry.timeoutSec !== 'number' || entry.timeoutSec <= 0))
    reasons.push('"timeoutSec" is not a positive number');
  if (reasons.length > 0) return { event, reasons };
  const hook: Record<string, unknown> = { type: 'command', command: entry.bash };
  if (entry.timeoutSec !== undefined) hook.timeout = entry.timeoutSec;
  if (entry.env !== undefined) hook.env = entry.env;
  return { event, converted: { hooks: [hook] } };
}

/** The files of Copilot's own dialect in `dir`, but `ownFile` (hookd's), in name order. */
export async function readOwnDialectFiles(
  dir: string,
  ownFile: string,
): Promise<{ files: OwnDialectFile[]; skipped: SkippedFile[] }> {
  const files: OwnDialectFile[] = [];
  const skipped: SkippedFile[] = [];
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.json') && name !== ownFile).sort();
  } catch {
    return { files, skipped };
  }
  for (const name of names) {
    const file = join(dir, name);
    const st = await lstat(file).catch(() => undefined);
    if (!st?.isFile()) {
      skipped.push({ file, reason: st?.isSymbolicLink() ? 'a symlink: not followed' : 'not a regular file' });
      continue;
    }
    let snapshot: SettingsFileSnapshot;
    try {
      snapshot = await readSettingsFile(file);
    } catch (error) {
      skipped.push({ file, reason: (error as Error).message });
      continue;
    }
    const hooks = snapshot.data.hooks;
    // Claude Code's dialect (no version) is for the files hookd writes; only version 1 is Copilot's own.
    if (snapshot.data.version !== 1 || !isObject(hooks)) continue;
    const lists: Record<string, unknown[]> = {};
    const entries: OwnDialectEntry[] = [];
    for (const [ownEvent, list] of Object.entries(hooks)) {
      if (!Array.isArray(list)) continue;
      lists[ownEvent] = list;
      list.forEach((entry, index) => entries.push({ ownEvent, index, entry, ...convert(ownEvent, entry) }));
    }
    files.push({ snapshot, hooks: lists, entries });
  }
  return { files, skipped };
}

/** The file's hooks without the entries moved to hookd (an event left empty is dropped). */
export function hooksLeft(file: OwnDialectFile, moved: readonly OwnDialectEntry[]): Record<string, unknown> {
  const left: Record<string, unknown> = {};
  for (const [ownEvent, list] of Object.entries(file.snapshot.data.hooks as Record<string, unknown>)) {
    if (!Array.isArray(list)) {
      left[ownEvent] = list;
      continue;
    }
    const kept = list.filter((_, index) => !moved.some((m) => m.ownEvent === ownEvent && m.index === index));
    if (kept.length > 0) left[ownEvent] = kept;
  }
  return left;
}

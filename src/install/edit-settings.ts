import { CliError, EXIT } from '../errors.js';
import { formatAgentHooksProblems, type AgentHooksProblem } from './agent-hooks.js';
import type { HooksFileKind } from './agent-files.js';
import { hooksObjectOf, validateHooksObject } from './effective-hooks.js';
import { AGENT_PROFILES, type Agent } from './agents.js';
import { patchJsonText } from '../settings-io/json-patch.js';
import { newJsonObjectText } from '../settings-io/json-text.js';
import { unifiedDiff } from '../settings-io/line-diff.js';
import type { AgentHooks } from './merge-hooks.js';
import {
  assertWritable,
  backupSettingsFile,
  writeSettingsFile,
  type SettingsFileSnapshot,
} from '../settings-io/settings-file.js';

/** What an edit of one JSON file did (or, in a dry run, would do). */
export interface FileChange {
  file: string;
  /** The file did not exist before. */
  created: boolean;
  changed: boolean;
  /** Unified diff of the file's text; empty when unchanged. */
  diff: string;
  /** The backup of the original, when one was written. */
  backup?: string;
}

/** The new text of a JSON object file with one top-level key set (or removed when value is undefined). */
export function editedJsonText(snapshot: SettingsFileSnapshot, key: string, value: unknown): string {
  const body = snapshot.text.replace(/^\uFEFF/, '').trim();
  if (body === '') return value === undefined ? snapshot.text : newJsonObjectText(key, value, snapshot.style);
  // A key already there keeps its place; a new one goes last.
  const data: Record<string, unknown> = { ...snapshot.data, [key]: value };
  if (value === undefined) delete data[key];
  return patchJsonText(snapshot.text, data, snapshot.style);
}

/**
 * Plans the change of a whole JSON object file (Droid's hooks.json is the hooks object itself): only
 * what changed is rewritten; new text and diff, nothing written.
 */
export function planJsonRootEdit(
  snapshot: SettingsFileSnapshot,
  value: Record<string, unknown>,
): FileChange & { text: string } {
  const same = JSON.stringify(snapshot.data) === JSON.stringify(value);
  // Never reached for an empty file: hookd writes only into events a hooks.json already names.
  const text =
    same || snapshot.text.trim() === '' ? snapshot.text : patchJsonText(snapshot.text, value, snapshot.style);
  return {
    file: snapshot.file,
    created: false,
    changed: text !== snapshot.text,
    diff: unifiedDiff(snapshot.text, text, { before: snapshot.file, after: snapshot.file }),
    text,
  };
}

/** Plans the change of one top-level key: new text and diff, nothing written. */
export function planJsonEdit(
  snapshot: SettingsFileSnapshot,
  key: string,
  value: unknown,
): FileChange & { text: string } {
  return planJsonEdits(snapshot, { [key]: value });
}

/**
 * Plans the change of several top-level keys of one file, one after the other (a key already there
 * keeps its place, a new one goes last): one new text and one diff against the original.
 */
export function planJsonEdits(
  snapshot: SettingsFileSnapshot,
  edits: Record<string, unknown>,
): FileChange & { text: string } {
  let current = snapshot;
  for (const [key, value] of Object.entries(edits)) {
    if (JSON.stringify(current.data[key]) === JSON.stringify(value)) continue;
    const data: Record<string, unknown> = { ...current.data, [key]: value };
    if (value === undefined) delete data[key];
    current = { ...current, text: editedJsonText(current, key, value), data };
  }
  const text = current.text;
  const wanted = Object.values(edits).some((v) => v !== undefined);
  const changed = text !== snapshot.text || (!snapshot.exists && wanted);
  return {
    file: snapshot.file,
    created: !snapshot.exists && changed,
    changed,
    diff: unifiedDiff(snapshot.text, text, {
      before: snapshot.exists ? snapshot.file : '/dev/null',
      after: snapshot.file,
    }),
    text,
  };
}

/** The mode a file that holds a secret is written with: the owner's bits of `mode` only (default 0600). */
export const privateMode = (mode: number | undefined): number => (mode ?? 0o666) & 0o700;

/** Writes a planned change: refuses read-only files first, backs the original up once, writes atomically. */
export async function applyJsonEdit(
  snapshot: SettingsFileSnapshot,
  plan: FileChange & { text: string; private?: boolean },
  now: Date,
): Promise<FileChange> {
  const { text: _text, private: secret, ...change } = plan;
  if (!plan.changed) return change;
  await assertWritable(snapshot);
  const backup = snapshot.exists ? await backupSettingsFile(snapshot, now) : undefined;
  // A file that holds a token is the owner's alone; so is its backup from now on.
  await writeSettingsFile(secret ? { ...snapshot, mode: privateMode(snapshot.mode) } : snapshot, plan.text);
  return { ...change, ...(backup ? { backup } : {}) };
}

/**
 * Refuses to touch a settings file whose hooks the agent already rejects, naming each broken entry:
 * the agent ignores every hook of such a file, hookd's included.
 */
export function assertAgentAccepts(
  snapshot: SettingsFileSnapshot,
  agent: Agent,
  kind: HooksFileKind = 'settings',
): AgentHooksProblem[] {
  const report = validateHooksObject(kind, hooksObjectOf(kind, snapshot.data), agent);
  if (report.ok) return report.problems;
  const errors = report.problems.filter((p) => p.severity === 'error');
  const name = AGENT_PROFILES[agent].displayName;
  throw new CliError(
    `${snapshot.file} already has hooks ${name} rejects, so ${name} ignores every hook in it; nothing was changed:\n` +
      formatAgentHooksProblems(snapshot.file, errors),
    EXIT.FAILURE,
    'Fix the entries listed above (or remove them), then run the command again.',
  );
}

/** Checks the hooks about to be written; a failure here is a bug in hookd, never written to disk. */
export function assertWritableHooks(
  file: string,
  hooks: AgentHooks | undefined,
  agent: Agent,
  kind: HooksFileKind = 'settings',
): AgentHooksProblem[] {
  const report = validateHooksObject(kind, hooks, agent);
  if (report.ok) return report.problems;
  throw new CliError(
    `hookd refused to write ${file}: the result would be rejected by ${AGENT_PROFILES[agent].displayName}:\n` +
      formatAgentHooksProblems(
        file,
        report.problems.filter((p) => p.severity === 'error'),
      ),
    EXIT.FAILURE,
    'This is a bug in hookd; please report it with the file (nothing was changed).',
  );
}

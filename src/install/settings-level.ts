import { basename, dirname } from 'node:path';
import { CliError, EXIT, UsageError } from '../errors.js';
import { validateAgentHooks, type AgentHooksProblem } from './agent-hooks.js';
import { DROID_HOOKS_JSON, droidHooksJsonFile } from './agent-files.js';
import type { Agent } from './agents.js';
import {
  applyJsonEdit,
  assertAgentAccepts,
  assertWritableHooks,
  planJsonEdits,
  planJsonRootEdit,
  privateMode,
  type FileChange,
} from './edit-settings.js';
import { namedEvents, readHooksFile, type HooksFileRead } from './effective-hooks.js';
import type { AgentHooks } from './merge-hooks.js';
import { assertWritable, readSettingsFile, type SettingsFileSnapshot } from '../settings-io/settings-file.js';

/**
 * The files of one settings level that hookd edits: the agent's settings file and, for Droid, the
 * hooks.json of the same `.factory` folder. Droid runs, for each event that hooks.json names, the
 * hooks.json list instead of settings.json's (Droid 0.225.2 `loadHooks` -> `mergeHookSettings`,
 * `{...settingsJson, ...hooksJson}`), so hookd's entry of such an event goes into hooks.json, and every
 * other event's into settings.json. hookd never creates a hooks.json, nor adds an event to one: that
 * would replace the settings.json hooks the user has for it.
 */
export interface SettingsLevel {
  agent: Agent;
  settings: SettingsFileSnapshot;
  /** Droid's hooks.json beside the settings file, when it exists and Droid reads it. */
  hooksJson?: SettingsFileSnapshot;
  /** The events the hooks.json names (their hookd entries live there). */
  named: ReadonlySet<string>;
  /** What the user should know about the level (a hooks.json Droid ignores, a file Droid does not read). */
  notes: string[];
}

/** The hooks object of a settings file. */
export function settingsHooks(snapshot: SettingsFileSnapshot): AgentHooks | undefined {
  return snapshot.data.hooks as AgentHooks | undefined;
}

function droidNotes(file: string, read: HooksFileRead | undefined): string[] {
  const name = basename(file);
  if (name === 'settings.local.json')
    return [
      `Droid does not read hooks from ${name} (only settings.json and hooks.json): nothing in ${file} runs`,
    ];
  if (!read?.exists) return [];
  if (read.readError)
    return [`${read.file}: ${read.readError.message}; Droid ignores that file, so its hooks do not run`];
  if (read.report && !read.report.ok)
    return [
      `${read.file} has hooks Droid rejects, so Droid ignores that whole file; once it is fixed, each event it names replaces the list in ${file}: run this command again then`,
    ];
  return [];
}

/**
 * Reads the settings file of a level (refusing one the agent already rejects) and, for Droid, the
 * hooks.json beside it. A `--file` naming a hooks.json is refused: hookd edits it together with the
 * settings.json of its folder.
 */
export async function readSettingsLevel(
  agent: Agent,
  file: string,
  options: { lenient?: boolean } = {},
): Promise<SettingsLevel> {
  if (agent === 'droid' && basename(file) === DROID_HOOKS_JSON)
    throw new UsageError(
      `${file} is a Droid hooks.json: hookd edits it together with the settings.json of its folder`,
      `Name that settings.json instead (--file ${dirname(file)}/settings.json), or use --scope.`,
    );
  const settings = await readSettingsFile(file);
  if (!options.lenient) assertAgentAccepts(settings, agent);
  if (agent !== 'droid' || basename(file) !== 'settings.json')
    return { agent, settings, named: new Set(), notes: agent === 'droid' ? droidNotes(file, undefined) : [] };
  const read = await readHooksFile({
    agent,
    layer: 'user', // the level does not matter for one folder's pair
    kind: 'hooks-json',
    file: droidHooksJsonFile(dirname(file)),
  });
  const usable = read.exists && !read.readError && read.report?.ok === true;
  return {
    agent,
    settings,
    ...(usable && read.snapshot ? { hooksJson: read.snapshot } : {}),
    named: namedEvents(read),
    notes: droidNotes(file, read),
  };
}

/** A problem found in one of the level's files. */
export type FileProblem = AgentHooksProblem & { file: string };

/** The new hooks of the level's files: the settings file's `hooks`, and the hooks.json root. */
export interface LevelHooks {
  settings: AgentHooks | undefined;
  hooksJson?: AgentHooks;
  /**
   * A new `env` of the settings file (`hookd install --otel`, uninstall); `secret`: it holds a token,
   * so the file is written private (0600).
   */
  env?: { value: Record<string, unknown> | undefined; secret: boolean };
}

export interface LevelPlan {
  plans: (FileChange & { text: string; private?: boolean })[];
  warnings: FileProblem[];
}

/**
 * Checks the new hooks the agent's way and plans each file's text (nothing written). A settings file
 * the agent already rejected (uninstall cleans it anyway) has its remaining problems as warnings.
 */
export function planLevel(
  level: SettingsLevel,
  next: LevelHooks,
  options: { settingsBroken?: boolean } = {},
): LevelPlan {
  const file = level.settings.file;
  const problems = options.settingsBroken
    ? validateAgentHooks(next.settings, level.agent).problems
    : assertWritableHooks(file, next.settings, level.agent);
  const warnings: FileProblem[] = problems.map((p) => ({ ...p, file }));
  const edits: Record<string, unknown> = { hooks: next.settings };
  if (next.env) edits.env = next.env.value;
  const settingsPlan = planJsonEdits(level.settings, edits);
  const secret = next.env?.secret === true;
  const exposed = secret && level.settings.exists && privateMode(level.settings.mode) !== level.settings.mode;
  const plans: LevelPlan['plans'] = [
    { ...settingsPlan, ...(secret ? { private: true } : {}), changed: settingsPlan.changed || exposed },
  ];
  if (level.hooksJson && next.hooksJson) {
    const json = level.hooksJson.file;
    warnings.push(
      ...assertWritableHooks(json, next.hooksJson, level.agent, 'hooks-json').map((p) => ({
        ...p,
        file: json,
      })),
    );
    plans.push(planJsonRootEdit(level.hooksJson, next.hooksJson));
  }
  return { plans, warnings };
}

/**
 * Writes a level's planned files: every file is checked for writability before the first is written;
 * each original is backed up. A dry run writes nothing.
 */
export async function applyLevel(level: SettingsLevel, plan: LevelPlan, dryRun: boolean, now: Date) {
  const snapshots = [level.settings, ...(level.hooksJson ? [level.hooksJson] : [])];
  const strip = ({
    text: _text,
    private: _secret,
    ...change
  }: FileChange & { text: string; private?: boolean }): FileChange => change;
  if (dryRun) return plan.plans.map(strip);
  for (const [i, p] of plan.plans.entries()) if (p.changed) await assertWritable(snapshots[i]!);
  const done: FileChange[] = [];
  for (const [i, p] of plan.plans.entries()) {
    try {
      done.push(await applyJsonEdit(snapshots[i]!, p, now));
    } catch (error) {
      if (done.some((d) => d.changed) && error instanceof CliError)
        throw new CliError(
          `${error.message}; ${done.map((d) => d.file).join(', ')} was already written`,
          EXIT.FAILURE,
          error.hint,
        );
      throw error;
    }
  }
  return done;
}

/** One change for people and scripts out of a level's file changes: the settings file's, with every diff. */
export function summarize(changes: readonly FileChange[]): FileChange {
  const first = changes[0];
  return {
    file: first!.file,
    created: first!.created,
    changed: changes.some((c) => c.changed),
    diff: changes.map((c) => c.diff).join(''),
    ...(first!.backup ? { backup: first!.backup } : {}),
  };
}

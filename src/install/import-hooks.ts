import { CliError, EXIT } from '../errors.js';
import { formatIssues, formatPath } from '../config/issues.js';
import { hookEntrySchema } from '../config/schema.js';
import { validateConfigText } from '../config/validate.js';
import { projectTrust, trustFixCommand, trustProjectFile } from '../config/trust.js';
import { projectConfigPath, userConfigPath } from '../paths.js';
import { dirname, resolve } from 'node:path';
import type { AgentHooksProblem } from './agent-hooks.js';
import { applyJsonEdit, assertWritableHooks, planJsonEdit, type FileChange } from './edit-settings.js';
import { hooksOf, prepareInstall, stripText, type InstallOptions } from './install.js';
import {
  dropEmptiedEvents,
  listForeignEntries,
  mergeHookdEntries,
  removeForeignEntries,
  type ForeignEntry,
} from './merge-hooks.js';
import { assertWritable, readSettingsFile } from './settings-file.js';

export interface ImportOptions extends InstallOptions {
  /** hookd config file to append to (default: the user config, or <project>/.hookd/config.json for scope project). */
  configPath?: string;
}

export interface ImportedEntry {
  event: string;
  /** Index of the entry in the agent's event array, before the import. */
  index: number;
  entry: Record<string, unknown>;
  /** The same entry was already in hookd's config; it is removed from the agent but not added twice. */
  alreadyInConfig: boolean;
}

export interface RefusedEntry {
  event: string;
  index: number;
  /** Why hookd's config schema rejects it (the entry stays in the agent's settings). */
  reasons: string[];
}

export interface ImportResult {
  dryRun: boolean;
  command: string;
  imported: ImportedEntry[];
  refused: RefusedEntry[];
  settings: FileChange;
  config: FileChange;
  warnings: AgentHooksProblem[];
  /**
   * For a project config: whether the file hookd wrote was recorded as trusted (`hookd trust`). It is,
   * unless it already held content the user had not trusted; then `note` says how to review and trust it.
   */
  trust?: { file: string; recorded: boolean; note?: string };
}

function reasonsFor(entry: Record<string, unknown>): string[] | undefined {
  const parsed = hookEntrySchema.safeParse(entry);
  if (parsed.success) return undefined;
  return parsed.error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const path = formatPath(issue.path);
    if (keys.length > 0)
      return `${path === '(root)' ? '' : `${path}: `}unknown key ${keys.map((k) => `"${k}"`).join(', ')}`;
    return `${path}: ${issue.message}`;
  });
}

/** Hook types the agent runs itself (Claude Code); hookd runs only commands. */
const AGENT_RUN_TYPES = ['http', 'prompt', 'agent', 'mcp_tool'];

/**
 * Splits off the hooks the agent runs itself (Claude Code's `http`, `prompt`, `agent`, `mcp_tool`):
 * they stay in the agent's settings, each with its reason; the entry's command hooks go on to the import.
 */
function splitAgentRun(listed: ForeignEntry): { foreign?: ForeignEntry; kept: string[] } {
  const hooks = listed.entry.hooks as unknown[];
  const kept: string[] = [];
  const moved = hooks.filter((hook, index) => {
    const type = (hook as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || !AGENT_RUN_TYPES.includes(type)) return true;
    kept.push(
      `hooks[${index}]: a Claude Code "${type}" hook is run by Claude Code itself; hookd runs only commands`,
    );
    return false;
  });
  if (moved.length === 0) return { kept };
  return { foreign: { ...listed, entry: { ...listed.entry, hooks: moved } }, kept };
}

function configPathFor(options: ImportOptions): string {
  if (options.configPath) return options.configPath;
  if (options.scope === 'project') return projectConfigPath(options.projectDir ?? process.cwd());
  return userConfigPath(options.env ?? process.env);
}

/**
 * Moves the agent's own hook commands into hookd's config and wires hookd in their place, so they
 * run under hookd (timeouts, logs, notifications). Entries hookd's schema rejects stay where they
 * are and are reported with the reason. The config is validated before anything is written; it is
 * written first, so no command is ever lost between the two files.
 */
export async function importAgentHooks(options: ImportOptions): Promise<ImportResult> {
  const { location, events, timeoutSec, command, snapshot: settings } = await prepareInstall(options);

  const configFile = configPathFor(options);
  const config = await readSettingsFile(configFile);
  const configHooks = structuredClone((config.data.hooks ?? {}) as Record<string, unknown[]>);
  if (typeof configHooks !== 'object' || Array.isArray(configHooks)) {
    throw new CliError(
      `${configFile}: hooks must be an object`,
      EXIT.FAILURE,
      'Run `hookd validate` and fix it.',
    );
  }

  const imported: ImportedEntry[] = [];
  const refused: RefusedEntry[] = [];
  const taken: ForeignEntry[] = [];
  for (const listed of listForeignEntries(hooksOf(settings.data))) {
    const { foreign, kept } = splitAgentRun(listed);
    if (kept.length > 0) refused.push({ event: listed.event, index: listed.index, reasons: kept });
    if (!foreign) continue;
    const reasons = reasonsFor(foreign.entry);
    if (reasons) {
      const already = refused.find((r) => r.event === foreign.event && r.index === foreign.index);
      if (already) already.reasons.push(...reasons);
      else refused.push({ event: foreign.event, index: foreign.index, reasons });
      continue;
    }
    const list = Array.isArray(configHooks[foreign.event]) ? configHooks[foreign.event]! : [];
    // Tagged with the agent it came from: its commands were written for that agent's events and
    // variables. An untagged copy from an older import counts as already there.
    const entry = { ...(foreign.entry as Record<string, unknown>), agent: options.agent };
    const texts = [JSON.stringify(foreign.entry), JSON.stringify(entry)];
    const alreadyInConfig = list.some((existing) => texts.includes(JSON.stringify(existing)));
    if (!alreadyInConfig) configHooks[foreign.event] = [...list, entry];
    imported.push({ ...foreign, alreadyInConfig });
    taken.push(foreign);
  }

  const configPlan = planJsonEdit(config, 'hooks', configHooks);
  const checked = validateConfigText(configPlan.text.trim() === '' ? '{}' : configPlan.text, configFile);
  if (!checked.ok) {
    throw new CliError(
      `hookd refused to write ${configFile}: the result would not be a valid hookd config; nothing was changed:\n` +
        formatIssues(checked.issues),
      EXIT.FAILURE,
      'Fix the config file first (`hookd validate` shows every problem), then run the import again.',
    );
  }

  const before = hooksOf(settings.data) ?? {};
  const merged = mergeHookdEntries(removeForeignEntries(before, taken), { events, command, timeoutSec });
  const newHooks = dropEmptiedEvents(before, merged.hooks);
  const warnings = assertWritableHooks(location.file, newHooks, options.agent);
  const settingsPlan = planJsonEdit(settings, 'hooks', newHooks);

  const dryRun = options.dryRun ?? false;
  if (dryRun) {
    return {
      dryRun,
      command,
      imported,
      refused,
      settings: stripText(settingsPlan),
      config: stripText(configPlan),
      warnings,
    };
  }
  // Check both files before writing either: a half-done import would run commands twice or never.
  if (configPlan.changed) await assertWritable(config);
  if (settingsPlan.changed) await assertWritable(settings);
  const now = (options.now ?? (() => new Date()))();
  // What the user writes with hookd is trusted, but never content that was there untrusted before.
  const projectDir = options.scope === 'project' ? resolve(options.projectDir ?? process.cwd()) : undefined;
  const isProjectFile =
    projectDir !== undefined && resolve(configFile) === resolve(projectConfigPath(projectDir));
  const env = options.env ?? process.env;
  const trustBefore = isProjectFile ? projectTrust(env, projectDir) : undefined;
  const configChange = await applyJsonEdit(config, configPlan, now);
  const settingsChange = await applyJsonEdit(settings, settingsPlan, now);
  let trust: ImportResult['trust'];
  if (isProjectFile) {
    const file = resolve(configFile);
    if (trustBefore && trustBefore.state !== 'trusted')
      trust = {
        file,
        recorded: false,
        note: `${file} already held content you had not trusted, so it stays untrusted: review it, then run ${trustFixCommand(dirname(dirname(file)))}`,
      };
    else {
      trustProjectFile(env, file, now);
      trust = { file, recorded: true };
    }
  }
  return {
    dryRun,
    command,
    imported,
    refused,
    settings: settingsChange,
    config: configChange,
    warnings,
    ...(trust ? { trust } : {}),
  };
}

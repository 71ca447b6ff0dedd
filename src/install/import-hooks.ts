import { CliError, EXIT } from '../errors.js';
import { formatIssues, formatPath } from '../config/issues.js';
import { hookEntrySchema } from '../config/schemas/schema.js';
import { validateConfigText } from '../config/validate.js';
import { projectTrust, trustFixCommand, trustProjectFile } from '../config/trust.js';
import { projectConfigPath, userConfigPath } from '../paths.js';
import { basename, dirname, resolve } from 'node:path';
import { AGENT_PROFILES, entryTimeout, type AgentProfile } from './agents.js';
import { applyJsonEdit, planJsonEdit, type FileChange } from './edit-settings.js';
import { commandForEvent } from './hookd-command.js';
import { prepareInstall, wiredEvents, wireLevel, type InstallOptions } from './install.js';
import {
  dropEmptiedEvents,
  listForeignEntries,
  removeForeignEntries,
  type AgentHooks,
  type ForeignEntry,
} from './merge-hooks.js';
import { hooksLeft, readOwnDialectFiles, type OwnDialectEntry } from './own-dialect-hooks.js';
import { assertWritable, readSettingsFile } from '../settings-io/settings-file.js';
import { agentHooksFiles } from './agent-files.js';
import { readHooksFile } from './effective-hooks.js';
import { isObject } from '../util/json-values.js';
import { applyLevel, planLevel, settingsHooks, summarize, type FileProblem } from './settings-level.js';

export interface ImportOptions extends InstallOptions {
  /** hookd config file to append to (default: the user config, or <project>/.hookd/config.json for scope project). */
  configPath?: string;
}

export interface ImportedEntry {
  event: string;
  /** The file it came from: the settings file, or Droid's hooks.json beside it. */
  file: string;
  /** Index of the entry in the agent's event array, before the import. */
  index: number;
  entry: Record<string, unknown>;
  /** The same entry was already in hookd's config; it is removed from the agent but not added twice. */
  alreadyInConfig: boolean;
}

export interface RefusedEntry {
  event: string;
  file: string;
  index: number;
  /** Why hookd's config schema rejects it (the entry stays in the agent's settings). */
  reasons: string[];
}

export interface ImportResult {
  dryRun: boolean;
  command: string;
  imported: ImportedEntry[];
  refused: RefusedEntry[];
  /** The agent's files: the settings file's change, with every diff (Droid's hooks.json included). */
  settings: FileChange;
  /** Each agent file written (or, in a dry run, to write). */
  files: FileChange[];
  config: FileChange;
  warnings: FileProblem[];
  /** What to do next in the agent (Codex: review and trust the changed hooks in `/hooks`). */
  notes: string[];
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

/**
 * An agent's entry as hookd's config holds it: its command hooks' timeouts in seconds (Gemini writes
 * milliseconds). The rest is kept as written.
 */
function inConfigUnits(entry: Record<string, unknown>, profile: AgentProfile): Record<string, unknown> {
  if (profile.timeoutUnit !== 'milliseconds' || !Array.isArray(entry.hooks)) return entry;
  return {
    ...entry,
    hooks: entry.hooks.map((hook: unknown) =>
      hook !== null && typeof hook === 'object' && typeof (hook as { timeout?: unknown }).timeout === 'number'
        ? { ...hook, timeout: (hook as { timeout: number }).timeout / 1000 }
        : hook,
    ),
  };
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
  const { timeoutSec, command, level } = await prepareInstall(options);

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

  const profile = AGENT_PROFILES[options.agent];
  const imported: ImportedEntry[] = [];
  const refused: RefusedEntry[] = [];
  const taken = new Map<string, ForeignEntry[]>();
  /**
   * Adds an entry to hookd's config under hookd's event name, tagged with the agent it came from: its
   * commands were written for that agent's events and variables. Returns true when it was already there
   * (an untagged copy from an older import counts too).
   */
  const take = (event: string, converted: Record<string, unknown>): boolean => {
    const existing = Array.isArray(configHooks[event]) ? configHooks[event]! : [];
    const entry = { ...converted, agent: options.agent };
    const texts = [JSON.stringify(converted), JSON.stringify(entry)];
    const alreadyInConfig = existing.some((e) => texts.includes(JSON.stringify(e)));
    if (!alreadyInConfig) configHooks[event] = [...existing, entry];
    return alreadyInConfig;
  };
  // What the agent runs: Droid's hooks.json for the events it names, settings.json for the others.
  // A settings.json entry of an event hooks.json names never runs: it stays, said so.
  const sources: {
    file: string;
    hooks: AgentHooks | undefined;
    shadowed: ReadonlySet<string>;
    copyOnly?: boolean;
  }[] = [
    { file: level.settings.file, hooks: settingsHooks(level.settings), shadowed: level.named },
    ...(level.hooksJson
      ? [{ file: level.hooksJson.file, hooks: level.hooksJson.data, shadowed: new Set<string>() }]
      : []),
  ];
  // A TOML config of the same layer (Codex's config.toml): its entries are copied, never removed,
  // as hookd does not edit TOML; the user deletes them there (a note says which).
  const tomlNotes: string[] = [];
  for (const f of agentHooksFiles(options.agent, {
    env: options.env ?? process.env,
    projectDir: options.projectDir ?? process.cwd(),
  })) {
    if (f.kind !== 'settings-toml' || f.layer !== options.scope) continue;
    const read = await readHooksFile(f);
    if (read.readError) tomlNotes.push(`${read.readError.message}; its hooks were not imported`);
    else if (read.exists && isObject(read.hooks))
      sources.push({ file: f.file, hooks: read.hooks, shadowed: new Set(), copyOnly: true });
  }
  for (const source of sources) {
    const list: ForeignEntry[] = [];
    taken.set(source.file, list);
    for (const listed of listForeignEntries(source.hooks)) {
      const at = { event: listed.event, index: listed.index, file: source.file };
      if (source.shadowed.has(listed.event)) {
        refused.push({
          ...at,
          reasons: [
            `Droid does not run it: ${level.hooksJson?.file ?? 'hooks.json'} names ${listed.event}, so its list runs instead`,
          ],
        });
        continue;
      }
      const { foreign, kept } = splitAgentRun(listed);
      if (kept.length > 0) refused.push({ ...at, reasons: kept });
      if (!foreign) continue;
      // In hookd's words: the config's event name (Gemini's BeforeTool is PreToolUse) and its unit.
      const event = profile.configEvent?.(foreign.event) ?? foreign.event;
      const converted = inConfigUnits(foreign.entry as Record<string, unknown>, profile);
      const reasons = reasonsFor(converted);
      if (reasons) {
        const already = refused.find(
          (r) => r.event === at.event && r.index === at.index && r.file === at.file,
        );
        if (already) already.reasons.push(...reasons);
        else refused.push({ ...at, reasons });
        continue;
      }
      imported.push({ ...foreign, file: source.file, alreadyInConfig: take(event, converted) });
      list.push(foreign);
    }
  }

  // Copilot's own dialect: its other hooks files beside hookd's (own-dialect-hooks.ts).
  const env = options.env ?? process.env;
  const ownDir = profile.ownDialectDir?.(options.scope, env, options.projectDir ?? process.cwd());
  const own = ownDir
    ? await readOwnDialectFiles(ownDir, basename(level.settings.file))
    : { files: [], skipped: [] };
  const notes = own.skipped.map((s) => `${s.file}: ${s.reason}; not imported`);
  const ownMoved = own.files.map((file) => {
    const moved: OwnDialectEntry[] = [];
    for (const e of file.entries) {
      const at = { event: e.event ?? e.ownEvent, index: e.index, file: file.snapshot.file };
      if (!e.event || !e.converted) refused.push({ ...at, reasons: e.reasons ?? [] });
      else {
        // In hookd's words, as every imported entry is shown.
        imported.push({ ...at, entry: e.converted, alreadyInConfig: take(e.event, e.converted) });
        moved.push(e);
      }
    }
    return { file, moved };
  });

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

  // The agent's files without the moved hooks (a settings event left empty is dropped; one of
  // hooks.json stays, as it names the event), then hookd wired as install does: its default events and
  // every event a moved command was on.
  const before = settingsHooks(level.settings) ?? {};
  const settingsLeft = dropEmptiedEvents(
    before,
    removeForeignEntries(before, taken.get(level.settings.file)!),
  );
  const jsonLeft = level.hooksJson
    ? removeForeignEntries(level.hooksJson.data, taken.get(level.hooksJson.file)!)
    : undefined;
  const stripped = {
    ...level,
    settings: { ...level.settings, data: { ...level.settings.data, hooks: settingsLeft } },
    ...(level.hooksJson && jsonLeft ? { hooksJson: { ...level.hooksJson, data: jsonLeft } } : {}),
  };
  const known = AGENT_PROFILES[options.agent].knownEvents;
  const events = [
    ...new Set([
      ...wiredEvents(options).map((w) => w.event),
      ...imported.map((i) => i.event).filter((e) => known.includes(e)),
    ]),
  ];
  const next = wireLevel(
    stripped,
    events.map((event) => ({
      event,
      // Copilot CLI skips an entry whose matcher is '' (install writes its catch-all too).
      matcher: profile.catchAllMatcher ?? '',
      // In the agent's unit and within its caps, as install writes it.
      hook: {
        type: 'command',
        command: commandForEvent(command, event),
        timeout: entryTimeout(options.agent, event, timeoutSec),
      },
    })),
    false,
  );
  const plan = planLevel(level, next);
  if (profile.installNote) notes.push(profile.installNote);
  if (ownMoved.some(({ moved }) => moved.length > 0))
    notes.push(
      'The moved commands now get Claude Code\'s payloads (tool_name "Bash", tool_input, session_id) and are read by exit 2 or Claude Code\'s JSON (hookSpecificOutput.permissionDecision): adapt a command that reads toolArgs or answers a top-level permissionDecision',
    );
  const ownPlans = ownMoved
    .filter(({ moved }) => moved.length > 0)
    .map(({ file, moved }) => ({
      snapshot: file.snapshot,
      plan: planJsonEdit(file.snapshot, 'hooks', hooksLeft(file, moved)),
    }));
  const withoutText = ({ text: _text, ...change }: FileChange & { text: string }): FileChange => change;
  notes.push(...tomlNotes);
  for (const source of sources.filter((x) => x.copyOnly)) {
    const copied = imported.filter((i) => i.file === source.file);
    if (copied.length === 0) continue;
    const events = [...new Set(copied.map((i) => i.event))].join(', ');
    notes.push(
      `${source.file}: its hooks for ${events} are now in hookd's config too; delete their \`[[hooks.<Event>]]\` tables from ${source.file} by hand (hookd does not edit it), or ${profile.displayName} runs each of them twice`,
    );
  }

  const dryRun = options.dryRun ?? false;
  if (dryRun) {
    const files = await applyLevel(level, plan, true, new Date(0));
    return {
      dryRun,
      command,
      imported,
      refused,
      settings: summarize(files),
      files: [...files, ...ownPlans.map((p) => withoutText(p.plan))],
      config: withoutText(configPlan),
      warnings: plan.warnings,
      notes,
    };
  }
  // Check every file before writing any: a half-done import would run commands twice or never.
  if (configPlan.changed) await assertWritable(config);
  const snapshots = [level.settings, ...(level.hooksJson ? [level.hooksJson] : [])];
  for (const [i, p] of plan.plans.entries()) if (p.changed) await assertWritable(snapshots[i]!);
  for (const { snapshot } of ownPlans) await assertWritable(snapshot);
  const now = (options.now ?? (() => new Date()))();
  // What the user writes with hookd is trusted, but never content that was there untrusted before.
  const projectDir = options.scope === 'project' ? resolve(options.projectDir ?? process.cwd()) : undefined;
  const isProjectFile =
    projectDir !== undefined && resolve(configFile) === resolve(projectConfigPath(projectDir));
  const trustBefore = isProjectFile ? projectTrust(env, projectDir) : undefined;
  // The config is written first, so no command is ever lost between the files.
  const configChange = await applyJsonEdit(config, configPlan, now);
  const files = await applyLevel(level, plan, false, now);
  // hookd runs its own entries before the agent's files lose the moved ones: none is ever lost.
  for (const { snapshot, plan: p } of ownPlans) files.push(await applyJsonEdit(snapshot, p, now));
  let trust: ImportResult['trust'];
  if (isProjectFile) {
    const file = resolve(configFile);
    const fix = trustFixCommand(dirname(dirname(file)));
    if (trustBefore && trustBefore.state !== 'trusted')
      trust = {
        file,
        recorded: false,
        note: `${file} already held content you had not trusted, so it stays untrusted: review it, then run ${fix}`,
      };
    else if (ownPlans.length > 0)
      // A repository's hooks folder is whoever wrote the repository's: never trusted for the user.
      trust = {
        file,
        recorded: false,
        note: `${file} now holds commands from ${ownDir}, which hookd does not trust for you: review them, then run ${fix}`,
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
    settings: summarize(files),
    files,
    config: configChange,
    warnings: plan.warnings,
    notes,
    ...(trust ? { trust } : {}),
  };
}

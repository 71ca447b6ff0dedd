import { DEFAULT_AGENT } from '../../../agents/ids.js';
import type { Argv, CommandModule } from 'yargs';
import { formatAgentHooksProblems } from '../../../install/agent-hooks.js';
import { AGENT_PROFILES, INSTALL_AGENTS, SCOPES, type Agent, type Scope } from '../../../install/agents.js';
import type { FileChange } from '../../../install/edit-settings.js';
import { currentHookdPath } from '../../../install/hookd-command.js';
import { importAgentHooks, type ImportResult } from '../../../install/import-hooks.js';
import {
  installHookd,
  uninstallHookd,
  type InstallResult,
  type UninstallResult,
} from '../../../install/install.js';
import type { FileProblem } from '../../../install/settings-level.js';
import { TRANSPORTS, type Transport } from '../../../install/transport.js';
import { UsageError } from '../../../errors.js';
import { loadConfig } from '../../../config/load.js';
import { validator } from '../../../config/resolve.js';
import { formatJson, paint, safeText, type Out } from '../../../terminal/output.js';
import { cli, cliOut, cliPath } from '../../../terminal/cli-io.js';

interface TargetArgs {
  agent: Agent;
  scope: Scope;
  project?: string;
  file?: string;
  'dry-run': boolean;
  json: boolean;
}

interface InstallArgs extends TargetArgs {
  events?: string[];
  timeout?: number;
  transport?: string;
  client?: string;
  'all-events'?: boolean;
  otel?: boolean;
}

interface ImportArgs extends InstallArgs {
  config?: string;
}

/** `--transport`: node or fast; http hooks are no longer written (a loopback port cannot be proven). */
function transportArg(value: string): Transport {
  if ((TRANSPORTS as readonly string[]).includes(value)) return value as Transport;
  if (value === 'http')
    throw new UsageError(
      '--transport http is no longer supported: a loopback port cannot prove to Claude Code that hookd is behind it, so another local user who takes the port gets every event and the token',
      'Use --transport fast (the default): the native client reaches the daemon over a private unix socket and checks who listens.',
    );
  throw new UsageError(`--transport ${value}: use fast or node`);
}

/** `--client`: auto or native; the bash client is retired. */
function clientArg(value: string): 'native' | 'auto' {
  if (value === 'auto' || value === 'native') return value;
  if (value === 'bash')
    throw new UsageError(
      '--client bash is no longer supported: bash cannot reach the daemon over its private unix socket or check who listens on it',
      'Use --client native (built with a C compiler), or --transport node.',
    );
  throw new UsageError(`--client ${value}: use auto or native`);
}

function targetOptions<T>(y: Argv<T>) {
  return y
    .option('agent', {
      choices: INSTALL_AGENTS,
      default: DEFAULT_AGENT as Agent,
      describe:
        'Whose settings: Droid (~/.factory/settings.json), Claude Code (~/.claude/settings.json), Codex CLI (~/.codex/hooks.json), Gemini CLI (~/.gemini/settings.json) or Copilot CLI (~/.copilot/hooks/hookd.json)',
    })
    .option('scope', {
      choices: SCOPES,
      default: 'user' as Scope,
      describe:
        "user: the file under your home (see --agent); project: the project's own (<project>/.factory/settings.json with the hooks.json beside it, .claude/settings.json, .gemini/settings.json, .github/hooks/hookd.json; Codex CLI has no project hooks file)",
    })
    .option('project', { type: 'string', describe: 'Project folder for --scope project (default: cwd)' })
    .option('file', {
      type: 'string',
      describe:
        "Edit this settings file instead (e.g. Claude Code's .claude/settings.local.json; Droid reads no hooks from settings.local.json)",
    })
    .option('dry-run', { type: 'boolean', default: false, describe: 'Show the diff; write nothing' })
    .option('json', { type: 'boolean', default: false, describe: 'Print the result as JSON' });
}

function installOptions<T>(y: Argv<T>) {
  return targetOptions(y)
    .option('events', {
      type: 'string',
      array: true,
      describe:
        'Only these events (space or comma separated). Default: every event that can carry a guard or a notification (Droid: all 9; Claude Code: 11), plus any other the config needs',
      coerce: (values: string[]) =>
        values
          .flatMap((v) => String(v).split(','))
          .map((v) => v.trim())
          .filter(Boolean),
    })
    .option('timeout', {
      type: 'number',
      describe:
        'Agent-side timeout of each hookd entry, in seconds (default 60; Claude Code max 600; written in milliseconds for Gemini CLI)',
    });
}

function targetFrom(args: TargetArgs) {
  return {
    agent: args.agent,
    scope: args.scope,
    dryRun: args['dry-run'],
    env: cli().env,
    projectDir: cliPath(args.project ?? '.'),
    ...(args.file !== undefined ? { file: cliPath(args.file) } : {}),
  };
}

function installFrom(args: InstallArgs) {
  return {
    ...targetFrom(args),
    hookdPath: currentHookdPath(),
    ...(args.events !== undefined ? { events: args.events } : {}),
    ...(args.timeout !== undefined ? { timeoutSec: args.timeout } : {}),
  };
}

/** install's own flags: the transport (fast by default), the events the effective config needs. */
function wiringFrom(args: InstallArgs) {
  const projectDir = args.scope === 'project' ? cliPath(args.project ?? '.') : undefined;
  const loaded = loadConfig({ env: cli().env, projectDir, validator: () => validator });
  return {
    transport: transportArg(args.transport ?? 'fast'),
    client: clientArg(args.client ?? 'auto'),
    config: loaded.config,
    allEvents: args['all-events'] ?? false,
    otel: args.otel ?? false,
  };
}

function colourDiff(out: Out, diff: string): string {
  return diff
    .split('\n')
    .map(safeText) // the settings file's lines are shown escaped: it may be a repository's
    .map((line) => {
      if (line.startsWith('+++') || line.startsWith('---')) return paint(out, 'bold', line);
      if (line.startsWith('+')) return paint(out, 'green', line);
      if (line.startsWith('-')) return paint(out, 'red', line);
      if (line.startsWith('@@')) return paint(out, 'cyan', line);
      return line;
    })
    .join('\n');
}

function writeChange(out: Out, change: FileChange, dryRun: boolean): void {
  if (dryRun && change.diff) out.write(colourDiff(out, change.diff));
  if (change.backup) out.write(`  backup:    ${change.backup}\n`);
}

function writeWarnings(warnings: readonly FileProblem[]): void {
  if (warnings.length === 0) return;
  const files = [...new Set(warnings.map((w) => w.file))];
  const text = files
    .map((file) =>
      formatAgentHooksProblems(
        file,
        warnings.filter((w) => w.file === file),
      ),
    )
    .join('\n');
  cli().stderr.write(
    safeLines(`hookd: warning: entries the agent accepts but that do not work as written:\n${text}\n`),
  );
}

/** Lines with their control characters escaped: they quote the agent's files. */
function safeLines(text: string): string {
  return text
    .split('\n')
    .map((line) => safeText(line))
    .join('\n');
}

function scopeLabel(result: { agent: Agent; scope: Scope }): string {
  return `${AGENT_PROFILES[result.agent].displayName} (${result.scope} scope)`;
}

function printInstall(out: Out, result: InstallResult): void {
  const verb = result.dryRun ? 'Would install' : 'Installed';
  const where = result.files.map((f) => `${f.file}${f.created ? ' (new file)' : ''}`).join(' and ');
  if (!result.changed)
    out.write(
      safeText(`hookd is already installed for ${scopeLabel(result)} in ${where}; nothing to change`) + '\n',
    );
  else out.write(safeText(`${verb} hookd for ${scopeLabel(result)} in ${where}`) + '\n');
  for (const action of ['added', 'updated', 'unchanged', 'removed'] as const) {
    const events = result.events.filter((e) => e.action === action);
    if (events.length === 0) continue;
    // Events whose entry went into another file than the settings file say where.
    const list = events.map((e) => (e.file === result.file ? e.event : `${e.event} (${e.file})`));
    out.write(safeText(`  ${`${action}:`.padEnd(11)}${list.join(', ')}`) + '\n');
  }
  out.write(safeText(`  command:   ${result.command} --event <event>`) + '\n');
  if (result.client) out.write(`  client:    ${result.client}\n`);
  for (const transport of ['fast', 'node'] as const) {
    const events = result.paths.filter((p) => p.transport === transport);
    if (events.length === 0) continue;
    const list = events.map((p) => (p.matcher ? `${p.event} (${p.matcher})` : p.event)).join(', ');
    out.write(`  ${`${transport}:`.padEnd(11)}${list}\n`);
  }
  for (const layer of result.layers) {
    const shadowed = layer.shadowed.map((s) => `${s.event} (not run: ${s.by} names it)`);
    const events = [...layer.events, ...shadowed];
    out.write(
      safeText(`  ${`${layer.layer}:`.padEnd(11)}${layer.file}: ${events.join(', ') || 'no events'}`) + '\n',
    );
  }
  if (result.otel?.keys.length) out.write(safeText(`  otel:      ${result.otel.keys.join(', ')}`) + '\n');
  writeNotes(out, result.notes);
  for (const change of result.files) writeChange(out, change, result.dryRun);
  if (result.dryRun && result.changed) out.write(paint(out, 'gray', 'dry run: nothing was written\n'));
}

/** The notes of a result, one a line, in yellow (what they quote is shown escaped). */
function writeNotes(out: Out, notes: readonly string[]): void {
  for (const note of notes) out.write(paint(out, 'yellow', safeText(`  note: ${note}`) + '\n'));
}

function printUninstall(out: Out, result: UninstallResult): void {
  if (!result.changed) {
    const where = result.files.map((f) => f.file).join(' and ');
    out.write(
      safeText(`hookd is not installed for ${scopeLabel(result)} in ${where}; nothing to change`) + '\n',
    );
    writeNotes(out, result.notes);
    return;
  }
  const count = result.removed.reduce((sum, r) => sum + r.count, 0);
  const verb = result.dryRun ? 'Would remove' : 'Removed';
  const files = [...new Set(result.removed.map((r) => r.file))];
  if (count > 0) {
    out.write(
      safeText(`${verb} ${count} hookd hook${count === 1 ? '' : 's'} from ${files.join(' and ')}`) + '\n',
    );
    out.write(`  events:    ${[...new Set(result.removed.map((r) => r.event))].join(', ')}\n`);
  }
  if (result.otelRemoved.length > 0)
    out.write(
      safeText(
        `${verb} hookd's OpenTelemetry settings from ${result.file}: ${result.otelRemoved.join(', ')}`,
      ) + '\n',
    );
  writeNotes(out, result.notes);
  for (const change of result.files) writeChange(out, change, result.dryRun);
  if (result.dryRun) out.write(paint(out, 'gray', 'dry run: nothing was written\n'));
}

function printImport(out: Out, result: ImportResult): void {
  const moved = result.imported.length;
  const verb = result.dryRun ? 'Would move' : 'Moved';
  out.write(
    `${verb} ${moved} hook entr${moved === 1 ? 'y' : 'ies'} from ${result.settings.file} into ${result.config.file}\n`,
  );
  for (const entry of result.imported) {
    const commands = (entry.entry.hooks as { command?: string }[]).map((h) => h.command).join('; ');
    const note = entry.alreadyInConfig ? paint(out, 'gray', ' (already in the config)') : '';
    const from = entry.file === result.settings.file ? '' : ` (${entry.file})`;
    out.write(safeText(`  ${entry.event}[${entry.index}]${from}: ${commands}`) + `${note}\n`);
  }
  for (const refused of result.refused) {
    out.write(
      paint(
        out,
        'yellow',
        safeText(
          `  not moved ${refused.event}[${refused.index}]${refused.file === result.settings.file ? '' : ` (${refused.file})`}: ${refused.reasons.join('; ')}`,
        ) + '\n',
      ),
    );
  }
  out.write(`  command:   ${result.command}\n`);
  writeNotes(out, result.notes);
  if (result.dryRun) {
    out.write(
      colourDiff(out, result.config.diff) + result.files.map((f) => colourDiff(out, f.diff)).join(''),
    );
    out.write(paint(out, 'gray', 'dry run: nothing was written\n'));
  } else {
    if (result.config.backup) out.write(`  backup:    ${result.config.backup}\n`);
    for (const f of result.files) if (f.backup) out.write(`  backup:    ${f.backup}\n`);
    if (result.trust?.recorded) out.write(`  trusted:   ${result.trust.file} (hookd trust)\n`);
    if (result.trust?.note) out.write(paint(out, 'yellow', `  ${result.trust.note}\n`));
  }
}

export const installCommand: CommandModule<object, InstallArgs> = {
  command: 'install',
  describe: "Wire hookd into the agent's settings for every event that can carry a guard or a notification",
  builder: (y) =>
    installOptions(y)
      .option('transport', {
        type: 'string',
        describe:
          'fast: the native fast client, the event runs in the daemon (default; the Node path where the client does not run here); node: start Node per event',
      })
      .option('client', {
        type: 'string',
        default: 'auto',
        describe:
          'The fast client: native (dist/hookd-client, built when a C compiler was there: an error where it does not run), or auto: native where it runs, else the Node path',
      })
      .option('all-events', {
        type: 'boolean',
        default: false,
        describe: 'Wire every event the agent fires (Droid: 9, Claude Code: 33)',
      })
      .option('otel', {
        type: 'boolean',
        default: false,
        describe:
          "Also send the agent's own OpenTelemetry (tokens, cost) to hookd's receiver on 127.0.0.1: writes its settings `env` with the receiver's token (the file becomes 0600); never prompt or tool-detail logging (Claude Code)",
      })
      .example(
        'hookd install',
        'Wire the fast client into ~/.factory/settings.json (and into the events ~/.factory/hooks.json names)',
      )
      .example(
        'hookd install --transport node --events PreToolUse,Stop',
        'Only two events, one Node start each (about 80 ms)',
      )
      .example(
        'hookd install --agent claude --scope project --dry-run',
        'Show the change to .claude/settings.json',
      )
      .example('hookd install --all-events --timeout 30', 'Every event the agent fires, 30 s agent timeout')
      .example(
        'hookd install --agent claude --otel',
        "Wire Claude Code and send its token and cost figures to hookd's receiver",
      )
      .epilogue(
        'Your config decides at run time what each event does: a guard added later runs without installing again. ' +
          "Every other key and hook is kept; hookd's entries are the ones whose command is `<path>/hookd hook`. " +
          "For Droid, an event that the hooks.json of the same folder names gets hookd's entry there (Droid runs that list instead of settings.json's). " +
          'A file the agent already rejects is refused, naming the broken entry. The original is backed up ' +
          'as <file>.hookd-backup-<time>.',
      ) as Argv<InstallArgs>,
  handler: async (args) => {
    const result = await installHookd({ ...installFrom(args), ...wiringFrom(args) });
    const out = cliOut();
    if (args.json) out.write(formatJson(result));
    else printInstall(out, result);
    writeWarnings(result.warnings);
  },
};

export const uninstallCommand: CommandModule<object, TargetArgs> = {
  command: 'uninstall',
  describe: "Remove exactly hookd's entries from the agent's settings (and Droid's hooks.json beside it)",
  builder: (y) =>
    targetOptions(y)
      .example('hookd uninstall', 'Remove hookd from ~/.factory/settings.json')
      .example(
        'hookd uninstall --agent claude --dry-run',
        'Show what would be removed from ~/.claude/settings.json',
      )
      .epilogue(
        "Other hooks and keys are left as they are (the `env` keys `install --otel` added go too); a backup of the original is kept. hookd's tables in Codex's config.toml are named, never edited.",
      ) as Argv<TargetArgs>,
  handler: async (args) => {
    const result = await uninstallHookd(targetFrom(args));
    const out = cliOut();
    if (args.json) out.write(formatJson(result));
    else printUninstall(out, result);
    writeWarnings(result.warnings);
  },
};

export const importCommand: CommandModule<object, ImportArgs> = {
  command: 'import',
  describe: "Move the agent's existing hook commands into hookd's config and wire hookd in their place",
  builder: (y) =>
    installOptions(y)
      .option('config', {
        type: 'string',
        describe:
          'hookd config file to add them to (default: user config; .hookd/config.json for --scope project)',
      })
      .example('hookd import --dry-run', 'Show what would move from ~/.factory/settings.json')
      .example(
        'hookd import --agent claude',
        'Move Claude Code hooks under hookd (timeouts, logs, notifications)',
      )
      .epilogue(
        "Entries hookd's config cannot hold (other hook types, unknown keys) stay in the agent's file and are listed.",
      ) as Argv<ImportArgs>,
  handler: async (args) => {
    const result = await importAgentHooks({
      ...installFrom(args),
      ...(args.config !== undefined ? { configPath: cliPath(args.config) } : {}),
    });
    const out = cliOut();
    if (args.json) out.write(formatJson(result));
    else printImport(out, result);
    writeWarnings(result.warnings);
  },
};

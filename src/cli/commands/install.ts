import type { Argv, CommandModule } from 'yargs';
import { formatAgentHooksProblems, type AgentHooksProblem } from '../../install/agent-hooks.js';
import { AGENT_PROFILES, AGENTS, SCOPES, type Agent, type Scope } from '../../install/agents.js';
import type { FileChange } from '../../install/edit-settings.js';
import { currentHookdPath } from '../../install/hookd-command.js';
import { importAgentHooks, type ImportResult } from '../../install/import-hooks.js';
import {
  installHookd,
  uninstallHookd,
  type InstallResult,
  type UninstallResult,
} from '../../install/install.js';
import { TRANSPORTS, type Transport } from '../../install/transport.js';
import { UsageError } from '../../errors.js';
import { loadConfig } from '../../config/load.js';
import { validator } from '../../config/resolve.js';
import { formatJson, paint, safeText, stdoutOut, type Out } from '../../terminal/output.js';

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
      choices: AGENTS,
      default: 'droid' as Agent,
      describe: 'Whose settings file: Droid (~/.factory) or Claude Code (~/.claude)',
    })
    .option('scope', {
      choices: SCOPES,
      default: 'user' as Scope,
      describe: 'user: ~/.<agent>/settings.json; project: <project>/.<agent>/settings.json',
    })
    .option('project', { type: 'string', describe: 'Project folder for --scope project (default: cwd)' })
    .option('file', {
      type: 'string',
      describe: 'Edit this settings file instead (e.g. settings.local.json)',
    })
    .option('dry-run', { type: 'boolean', default: false, describe: 'Show the diff; write nothing' })
    .option('json', { type: 'boolean', default: false, describe: 'Print the result as JSON' });
}

function installOptions<T>(y: Argv<T>) {
  return targetOptions(y)
    .option('events', {
      type: 'string',
      array: true,
      describe: 'Events to wire (space or comma separated; default: all the agent fires, see docs)',
      coerce: (values: string[]) =>
        values
          .flatMap((v) => String(v).split(','))
          .map((v) => v.trim())
          .filter(Boolean),
    })
    .option('timeout', {
      type: 'number',
      describe: 'Agent-side timeout of each hookd entry, in seconds (default 60; Claude Code max 600)',
    });
}

function targetFrom(args: TargetArgs) {
  return {
    agent: args.agent,
    scope: args.scope,
    dryRun: args['dry-run'],
    ...(args.project !== undefined ? { projectDir: args.project } : {}),
    ...(args.file !== undefined ? { file: args.file } : {}),
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
  const projectDir = args.scope === 'project' ? (args.project ?? process.cwd()) : undefined;
  const loaded = loadConfig({ env: process.env, projectDir, validator: () => validator });
  return {
    transport: transportArg(args.transport ?? 'fast'),
    client: clientArg(args.client ?? 'auto'),
    config: loaded.config,
    allEvents: args['all-events'] ?? false,
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

function writeWarnings(file: string, warnings: readonly AgentHooksProblem[]): void {
  if (warnings.length === 0) return;
  process.stderr.write(
    `hookd: warning: entries the agent accepts but that do not work as written:\n${formatAgentHooksProblems(file, warnings)}\n`,
  );
}

function scopeLabel(result: { agent: Agent; scope: Scope }): string {
  return `${AGENT_PROFILES[result.agent].displayName} (${result.scope} scope)`;
}

function printInstall(out: Out, result: InstallResult): void {
  const verb = result.dryRun ? 'Would install' : 'Installed';
  if (!result.changed)
    out.write(`hookd is already installed for ${scopeLabel(result)} in ${result.file}; nothing to change\n`);
  else
    out.write(
      `${verb} hookd for ${scopeLabel(result)} in ${result.file}${result.created ? ' (new file)' : ''}\n`,
    );
  for (const action of ['added', 'updated', 'unchanged', 'removed'] as const) {
    const events = result.events.filter((e) => e.action === action).map((e) => e.event);
    if (events.length > 0) out.write(`  ${`${action}:`.padEnd(11)}${events.join(', ')}\n`);
  }
  out.write(`  command:   ${result.command} --event <event>\n`);
  if (result.client) out.write(`  client:    ${result.client}\n`);
  for (const transport of ['fast', 'node', 'http'] as const) {
    const events = result.paths.filter((p) => p.transport === transport);
    if (events.length === 0) continue;
    const list = events.map((p) => (p.matcher ? `${p.event} (${p.matcher})` : p.event)).join(', ');
    out.write(`  ${`${transport}:`.padEnd(11)}${list}\n`);
  }
  for (const note of result.notes) out.write(paint(out, 'yellow', `  note: ${note}\n`));
  writeChange(out, result, result.dryRun);
  if (result.dryRun && result.changed) out.write(paint(out, 'gray', 'dry run: nothing was written\n'));
}

function printUninstall(out: Out, result: UninstallResult): void {
  if (!result.changed) {
    out.write(`hookd is not installed for ${scopeLabel(result)} in ${result.file}; nothing to change\n`);
    return;
  }
  const count = result.removed.reduce((sum, r) => sum + r.count, 0);
  const verb = result.dryRun ? 'Would remove' : 'Removed';
  out.write(`${verb} ${count} hookd hook${count === 1 ? '' : 's'} from ${result.file}\n`);
  out.write(`  events:    ${result.removed.map((r) => r.event).join(', ')}\n`);
  writeChange(out, result, result.dryRun);
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
    out.write(`  ${entry.event}[${entry.index}]: ${commands}${note}\n`);
  }
  for (const refused of result.refused) {
    out.write(
      paint(out, 'yellow', `  not moved ${refused.event}[${refused.index}]: ${refused.reasons.join('; ')}\n`),
    );
  }
  out.write(`  command:   ${result.command}\n`);
  if (result.dryRun) {
    out.write(colourDiff(out, result.config.diff) + colourDiff(out, result.settings.diff));
    out.write(paint(out, 'gray', 'dry run: nothing was written\n'));
  } else {
    if (result.config.backup) out.write(`  backup:    ${result.config.backup}\n`);
    if (result.settings.backup) out.write(`  backup:    ${result.settings.backup}\n`);
    if (result.trust?.recorded) out.write(`  trusted:   ${result.trust.file} (hookd trust)\n`);
    if (result.trust?.note) out.write(paint(out, 'yellow', `  ${result.trust.note}\n`));
  }
}

export const installCommand: CommandModule<object, InstallArgs> = {
  command: 'install',
  describe: "Wire hookd into the agent's settings file for the events your config uses",
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
        describe: 'Wire every event the agent fires, not only those the config needs',
      })
      .example(
        'hookd install',
        'Wire the fast client into ~/.factory/settings.json for the events the config needs',
      )
      .example(
        'hookd install --all-events --transport node',
        'Every event, one Node start each (the old default)',
      )
      .example(
        'hookd install --agent claude --scope project --dry-run',
        'Show the change to .claude/settings.json',
      )
      .example('hookd install --events Stop,Notification --timeout 30', 'Only two events, 30 s agent timeout')
      .epilogue(
        "Every other key and hook is kept; hookd's entries are the ones whose command is `<path>/hookd hook`. " +
          'A file the agent already rejects is refused, naming the broken entry. The original is backed up ' +
          'as <file>.hookd-backup-<time>.',
      ) as Argv<InstallArgs>,
  handler: async (args) => {
    const result = await installHookd({ ...installFrom(args), ...wiringFrom(args) });
    const out = stdoutOut();
    if (args.json) out.write(formatJson(result));
    else printInstall(out, result);
    writeWarnings(result.file, result.warnings);
  },
};

export const uninstallCommand: CommandModule<object, TargetArgs> = {
  command: 'uninstall',
  describe: "Remove exactly hookd's entries from the agent's settings file",
  builder: (y) =>
    targetOptions(y)
      .example('hookd uninstall', 'Remove hookd from ~/.factory/settings.json')
      .example(
        'hookd uninstall --agent claude --dry-run',
        'Show what would be removed from ~/.claude/settings.json',
      )
      .epilogue(
        'Other hooks and keys are left as they are; a backup of the original is kept.',
      ) as Argv<TargetArgs>,
  handler: async (args) => {
    const result = await uninstallHookd(targetFrom(args));
    const out = stdoutOut();
    if (args.json) out.write(formatJson(result));
    else printUninstall(out, result);
    writeWarnings(result.file, result.warnings);
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
      ...(args.config !== undefined ? { configPath: args.config } : {}),
    });
    const out = stdoutOut();
    if (args.json) out.write(formatJson(result));
    else printImport(out, result);
    writeWarnings(result.settings.file, result.warnings);
  },
};

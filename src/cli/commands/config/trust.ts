import { resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { formatIssues } from '../../../config/issues.js';
import { ignoredProjectKeys } from '../../../config/merge.js';
import {
  readProjectConfig,
  readTrust,
  revokeProject,
  trustProject,
  trustReport,
  type ProjectConfigRead,
  type TrustReport,
} from '../../../config/trust.js';
import { parseJsonc } from '../../../config/jsonc.js';
import { CliError, EXIT, UsageError } from '../../../errors.js';
import { formatJson, paint, safeText, type Out } from '../../../terminal/output.js';
import { cli, cliOut } from '../../../terminal/cli-io.js';

interface TrustArgs {
  dir?: string;
  revoke: boolean;
  list: boolean;
  json: boolean;
}

/** The project dir named on the command line, else the agent's project dir, else the cwd. */
export function projectDirArg(dir: string | undefined): string {
  const { env, cwd } = cli();
  return resolve(cwd, dir ?? env.FACTORY_PROJECT_DIR ?? env.CLAUDE_PROJECT_DIR ?? cwd);
}

function listCommands(config: { hooks: Record<string, { hooks: { command: string }[] }[]> }): string[] {
  return Object.entries(config.hooks).flatMap(([event, entries]) =>
    entries.flatMap((entry) => entry.hooks.map((h) => `${event}: ${h.command}`)),
  );
}

/** `hookd trust --list` for people: each trusted project and whether its config applies now. */
function printReport(out: Out, report: TrustReport): void {
  if (report.trusted.length === 0 && report.notCarriedOver.length === 0)
    out.write('No project config is trusted.\n');
  for (const t of report.trusted) {
    const meta = `sha256 ${t.sha256.slice(0, 12)}…, ${t.trustedAt}${t.carriedOver ? ', carried over from an older record' : ''}`;
    out.write(`${safeText(t.dir)}  ${paint(out, 'gray', meta)}\n`);
    if (t.state !== 'applies')
      out.write(
        `  ${paint(out, t.state === 'absent' ? 'gray' : 'yellow', `${t.state === 'absent' ? 'no config now' : 'trust lapsed'}: ${safeText(t.problem)}`)}\n  fix: ${safeText(t.fix)}\n`,
      );
  }
  if (report.notCarriedOver.length > 0) {
    out.write(
      `\nRecords of an older hookd (keyed by the config file) that could not carry over to a project dir; kept until you trust the project again or revoke them:\n`,
    );
    for (const o of report.notCarriedOver)
      out.write(
        `${safeText(o.file)}  ${paint(out, 'gray', `sha256 ${o.sha256.slice(0, 12)}…, ${safeText(o.trustedAt)}`)}\n  ${paint(out, 'yellow', safeText(o.reason))}\n  fix: ${safeText(o.fix)}\n`,
      );
  }
}

/** The project config as `hookd trust` reads it, or a clear error: absent, unreadable, or a link. */
function readForTrust(dir: string): Extract<ProjectConfigRead, { kind: 'file' }> {
  let read: ProjectConfigRead;
  try {
    read = readProjectConfig(dir);
  } catch (error) {
    throw new CliError(`cannot read ${dir}/.hookd/config.json: ${(error as Error).message}`);
  }
  if (read.kind === 'absent')
    throw new CliError(
      `${read.file} does not exist`,
      EXIT.FAILURE,
      'Name the project dir that holds .hookd/config.json.',
    );
  if (read.kind === 'unsafe')
    throw new CliError(`${read.reason}; it was not trusted`, EXIT.FAILURE, `Fix: ${read.fix}.`);
  return read;
}

export const trustCommand: CommandModule<object, TrustArgs> = {
  command: 'trust [dir]',
  describe: "Trust a project's .hookd/config.json as it is now, for that project dir only",
  builder: (y) =>
    y
      .positional('dir', {
        type: 'string',
        describe: 'Project dir (default: the agent project dir, else cwd)',
      })
      .option('revoke', {
        type: 'boolean',
        default: false,
        describe: "Stop trusting the project's config (or an older record, by its file)",
      })
      .option('list', {
        type: 'boolean',
        default: false,
        describe: 'List the trusted projects, whether each config applies now, and old records',
      })
      .option('json', { type: 'boolean', default: false, describe: 'Print the result as JSON' })
      .example('hookd trust', "Review, then trust this project's .hookd/config.json")
      .example('hookd trust --revoke ~/src/app', 'Stop applying that project file')
      .example('hookd trust --list --json', 'The trusted projects, their sha256 and state')
      .epilogue(
        "A project config is applied only in the project dir it was trusted for, only while its bytes hash to the trusted sha256, and only as a regular file in a real .hookd folder (hookd follows no symlink inside a project). It may add commands; its settings apply to its own commands only (commandTimeoutSec), and it never changes the user's commands.",
      ),
  handler: async (args) => {
    const env = cli().env;
    const out = cliOut();
    if (args.list) {
      if (args.dir !== undefined || args.revoke) throw new UsageError('--list takes no dir and no --revoke');
      const report = trustReport(env);
      if (args.json) out.write(formatJson(report));
      else printReport(out, report);
      if (report.problem) {
        cli().stderr.write(
          `hookd: ${report.problem}; nothing is trusted until \`hookd trust\` rewrites it\n`,
        );
        cli().exitCode = EXIT.FAILURE;
      }
      return;
    }
    const dir = projectDirArg(args.dir);
    if (args.revoke) {
      const removed = revokeProject(env, dir);
      if (args.json) out.write(formatJson({ dir, revoked: removed.length > 0, removed }));
      else
        out.write(
          removed.length > 0
            ? `No longer trusted: ${safeText(removed.join(', '))}\n`
            : `${safeText(dir)} was not trusted; nothing changed.\n`,
        );
      return;
    }
    const read = readForTrust(dir);
    const { file } = read;
    const text = read.bytes.toString('utf8');
    // The validator (zod and the schemas) is loaded here, not with the module (`--help` needs none of it).
    const { validateConfigText } = await import('../../../config/validate.js');
    const checked = validateConfigText(text, file, 'project');
    if (!checked.ok)
      throw new CliError(
        `${file} is not a valid hookd config; it was not trusted:\n${formatIssues(checked.issues)}`,
        EXIT.FAILURE,
        'Fix it (`hookd validate --project` shows every problem), then trust it.',
      );
    const damaged = readTrust(env).problem;
    if (damaged)
      cli().stderr.write(
        `hookd: ${damaged}; it is rewritten with this record only (trust other projects again)\n`,
      );
    const trusted = trustProject(env, dir, { read });
    const ignored = ignoredProjectKeys(parseJsonc(text) as Record<string, unknown>);
    const commands = listCommands(checked.config);
    if (args.json) {
      out.write(
        formatJson({
          ...trusted,
          commands,
          notifyRules: checked.config.notify?.rules?.length ?? 0,
          ignoredKeys: ignored,
        }),
      );
      return;
    }
    out.write(
      `${paint(out, 'green', '✓')} Trusted ${safeText(trusted.file)} in ${safeText(trusted.dir)} (sha256 ${trusted.sha256.slice(0, 12)}…).\n`,
    );
    out.write(
      commands.length > 0
        ? `Commands it adds:\n${commands.map((c) => `  ${safeText(c)}\n`).join('')}`
        : 'It adds no commands.\n',
    );
    const notify = checked.config.notify;
    const rules = (notify?.rules ?? []).map(
      (r, i) =>
        `project:${r.name ?? `rule-${i}`} (on ${[r.on].flat().join(', ')} → ${r.channels.join(', ')})`,
    );
    const channels = Object.entries(notify?.channels ?? {}).map(([name, c]) => `${name} (${c.type})`);
    if (rules.length > 0)
      out.write(`Notification rules it adds:\n${rules.map((r) => `  ${safeText(r)}\n`).join('')}`);
    if (channels.length > 0) out.write(`Channels it adds: ${safeText(channels.join(', '))}\n`);
    if (ignored.length > 0)
      out.write(
        `Not applied from a project file: ${safeText(ignored.join(', '))} (see docs/configuration.md, "Project configs and trust").\n`,
      );
    out.write('It applies in this project dir only; any change to the file needs `hookd trust` again.\n');
  },
};

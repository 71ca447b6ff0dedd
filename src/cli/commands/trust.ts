import { resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { formatIssues } from '../../config/issues.js';
import { ignoredProjectKeys } from '../../config/merge.js';
import {
  listTrusted,
  readProjectConfigBytes,
  revokeProjectFile,
  trustProjectFile,
} from '../../config/trust.js';
import { validateConfigText } from '../../config/validate.js';
import { projectConfigPath } from '../../paths.js';
import { CliError, EXIT, UsageError } from '../../errors.js';
import { formatJson, paint, safeText, stdoutOut } from '../../terminal/output.js';

interface TrustArgs {
  dir?: string;
  revoke: boolean;
  list: boolean;
  json: boolean;
}

/** The project dir named on the command line, else the agent's project dir, else the cwd. */
export function projectDirArg(dir: string | undefined): string {
  return resolve(dir ?? process.env.FACTORY_PROJECT_DIR ?? process.env.CLAUDE_PROJECT_DIR ?? process.cwd());
}

function listCommands(config: { hooks: Record<string, { hooks: { command: string }[] }[]> }): string[] {
  return Object.entries(config.hooks).flatMap(([event, entries]) =>
    entries.flatMap((entry) => entry.hooks.map((h) => `${event}: ${h.command}`)),
  );
}

export const trustCommand: CommandModule<object, TrustArgs> = {
  command: 'trust [dir]',
  describe: "Trust a project's .hookd/config.json as it is now (a changed file needs trust again)",
  builder: (y) =>
    y
      .positional('dir', {
        type: 'string',
        describe: 'Project dir (default: the agent project dir, else cwd)',
      })
      .option('revoke', { type: 'boolean', default: false, describe: 'Stop trusting the project file' })
      .option('list', { type: 'boolean', default: false, describe: 'List the trusted project files' })
      .option('json', { type: 'boolean', default: false, describe: 'Print the result as JSON' })
      .example('hookd trust', "Review, then trust this project's .hookd/config.json")
      .example('hookd trust --revoke ~/src/app', 'Stop applying that project file')
      .example('hookd trust --list --json', 'The trusted files and their sha256')
      .epilogue(
        "A project file is applied only while its bytes hash to the trusted sha256. It may add commands; its settings apply to its own commands only (commandTimeoutSec), and it never changes the user's commands.",
      ),
  handler: (args) => {
    const env = process.env;
    const out = stdoutOut();
    if (args.list) {
      if (args.dir !== undefined || args.revoke) throw new UsageError('--list takes no dir and no --revoke');
      const { trusted, problem } = listTrusted(env);
      if (args.json) out.write(formatJson({ trusted, ...(problem ? { problem } : {}) }));
      else {
        if (trusted.length === 0) out.write('No project config is trusted.\n');
        for (const t of trusted)
          out.write(
            `${safeText(t.file)}  ${paint(out, 'gray', safeText(`sha256 ${t.sha256.slice(0, 12)}…, ${t.trustedAt}`))}\n`,
          );
      }
      if (problem) {
        process.stderr.write(`hookd: ${problem}; nothing is trusted until \`hookd trust\` rewrites it\n`);
        process.exitCode = EXIT.FAILURE;
      }
      return;
    }
    const dir = projectDirArg(args.dir);
    const file = projectConfigPath(dir);
    if (args.revoke) {
      const removed = revokeProjectFile(env, file);
      if (args.json) out.write(formatJson({ file, revoked: removed }));
      else
        out.write(
          removed
            ? `No longer trusted: ${safeText(file)}\n`
            : `${safeText(file)} was not trusted; nothing changed.\n`,
        );
      return;
    }
    let bytes: Buffer | null;
    try {
      bytes = readProjectConfigBytes(file);
    } catch (error) {
      throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
    }
    if (bytes === null)
      throw new CliError(
        `${file} does not exist`,
        EXIT.FAILURE,
        'Name the project dir that holds .hookd/config.json.',
      );
    const checked = validateConfigText(bytes.toString('utf8'), file, 'project');
    if (!checked.ok)
      throw new CliError(
        `${file} is not a valid hookd config; it was not trusted:\n${formatIssues(checked.issues)}`,
        EXIT.FAILURE,
        'Fix it (`hookd validate --project` shows every problem), then trust it.',
      );
    const damaged = listTrusted(env).problem;
    if (damaged)
      process.stderr.write(
        `hookd: ${damaged}; it is rewritten with this record only (trust other projects again)\n`,
      );
    const trusted = trustProjectFile(env, file);
    const ignored = ignoredProjectKeys(JSON.parse(bytes.toString('utf8')) as Record<string, unknown>);
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
      `${paint(out, 'green', '✓')} Trusted ${safeText(trusted.file)} (sha256 ${trusted.sha256.slice(0, 12)}…).\n`,
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
        `Not applied from a project file: ${safeText(ignored.join(', '))} (see README "Project configs and trust").\n`,
      );
    out.write('Any change to the file needs `hookd trust` again.\n');
  },
};

import { AGENT_PROFILES, AGENTS, type Agent } from '../../../install/agents.js';
import type { HookdConfig } from '../../../config/schemas/schema.js';
import { dirname } from 'node:path';
import type { CommandModule } from 'yargs';
import { readInputFile } from '../../read-input.js';
import { loadConfig, type ConfigSource, type LoadedConfig } from '../../../config/load.js';
import { untrustedFix, untrustedText } from '../../../config/trust.js';
import { untrustedSource } from '../../../config/source-state.js';
import { formatIssues } from '../../../config/issues.js';
import { EXIT } from '../../../errors.js';
import { formatJson, paint, safeLines, safeText, type Out } from '../../../terminal/output.js';
import { projectDirArg } from './trust.js';
import { cli, cliOut } from '../../../terminal/cli-io.js';

interface ConfigArgs {
  project?: string;
  json: boolean;
}

function projectDirFrom(args: { project?: string }): string {
  return projectDirArg(args.project);
}

function untrustedLine(s: ConfigSource): string {
  const lapsed = s.trust!.lapsed ? ' (your trust lapsed)' : '';
  return safeText(
    `${s.file} is ${untrustedText(s.trust!)}${lapsed}, so hookd ignores it; review it, then: ${untrustedFix(s.trust!, dirname(dirname(s.file)))}`,
  );
}

function sourceState(out: Out, s: ConfigSource): string {
  if (!s.exists) return paint(out, 'gray', 'absent');
  if (!s.ok)
    return s.lastGood
      ? paint(out, 'red', `INVALID, running the last config that validated (saved ${s.lastGood.savedAt})`)
      : paint(out, 'red', 'INVALID, ignored');
  if (untrustedSource(s))
    return paint(
      out,
      'red',
      s.trust?.state === 'changed' ? 'CHANGED since trusted, NOT TRUSTED, ignored' : 'NOT TRUSTED, ignored',
    );
  return paint(out, 'green', s.trust ? 'ok, trusted' : 'ok');
}

export const configCommand: CommandModule<object, ConfigArgs> = {
  command: 'config',
  describe: 'Print the effective config and where each part came from',
  builder: (y) =>
    y
      .option('project', {
        type: 'string',
        describe: 'Project dir whose .hookd/config.json is merged (default: cwd)',
      })
      .option('json', {
        type: 'boolean',
        default: false,
        describe: 'Print {config, sources, entryOrigins} as JSON',
      })
      .example('hookd config', 'Show the merged config for the current project')
      .example('hookd config --json | jq .config.hooks', 'Script against the effective hooks'),
  handler: async (args) => {
    const loaded = await loadValidated(projectDirFrom(args), true);
    const { effectiveConfig } = await import('../../../explain/effective-config.js');
    const out = cliOut();
    const config = effectiveConfig(loaded.config);
    if (args.json) {
      out.write(
        formatJson({
          config,
          sources: loaded.sources,
          entryOrigins: loaded.entryOrigins,
          entryLevels: loaded.entryLevels,
        }),
      );
    } else {
      out.write(
        paint(
          out,
          'bold',
          'Sources (a trusted project file adds hooks, notify rules and channels; settings come from the user file):\n',
        ),
      );
      // Paths, event names, matchers and commands may come from a repository's file: shown escaped.
      for (const s of loaded.sources) {
        out.write(`  ${s.level.padEnd(8)} ${safeText(s.file)}  ${sourceState(out, s)}\n`);
        if (untrustedSource(s)) out.write(paint(out, 'gray', `           ${untrustedLine(s)}\n`));
        if (s.ignoredKeys?.length)
          out.write(
            paint(
              out,
              'gray',
              `           not applied from a project file: ${safeText(s.ignoredKeys.join(', '))}\n`,
            ),
          );
      }
      out.write(paint(out, 'bold', '\nHooks:\n'));
      const events = Object.entries(loaded.config.hooks);
      if (events.length === 0) out.write(paint(out, 'gray', '  (none)\n'));
      for (const [event, entries] of events) {
        entries.forEach((entry, i) => {
          const origin = loaded.entryOrigins[event]?.[i] ?? '?';
          const matcher = entry.matcher ? ` matcher ${JSON.stringify(entry.matcher)}` : '';
          out.write(
            `  ${safeText(`${event}[${i}]${matcher}`)}  ${paint(out, 'gray', `from ${safeText(origin)}`)}\n`,
          );
          for (const h of entry.hooks) {
            const opts = [
              h.name ? `name=${h.name}` : '',
              h.timeout ? `timeout=${h.timeout}s` : '',
              h.blocking ? 'blocking' : '',
              h.context ? 'context' : '',
              h.enabled === false ? 'disabled' : '',
            ].filter(Boolean);
            out.write(
              `      ${safeText(h.command)}${opts.length ? paint(out, 'gray', `  (${safeText(opts.join(', '))})`) : ''}\n`,
            );
          }
        });
      }
      out.write(paint(out, 'bold', '\nEffective config (defaults included):\n'));
      out.write(formatJson(config));
    }
    const invalid = loaded.sources.filter((s) => !s.ok);
    if (invalid.length > 0) {
      cli().stderr.write(`${safeLines(formatIssues(invalid.flatMap((s) => s.issues)))}\n`);
      cli().exitCode = EXIT.FAILURE;
    }
  },
};

/**
 * The user and project config, validated afresh. The validator (zod and the schemas) is loaded here, not
 * with the module: these commands' --help needs none of it.
 */
async function loadValidated(projectDir: string, recordLastGood: boolean): Promise<LoadedConfig> {
  const { validator } = await import('../../../config/resolve.js');
  return loadConfig({
    env: cli().env,
    projectDir,
    validator: () => validator,
    useCache: false,
    recordLastGood,
  });
}

/** Per agent wired to hookd: the events the config needs that its settings do not send hookd. */
async function unwiredEvents(
  projectDir: string,
  config: HookdConfig,
): Promise<Partial<Record<Agent, string[]>>> {
  const { agentEventPaths } = await import('../../../doctor/checks/agent/event-paths.js');
  const byAgent = await agentEventPaths(cli().env, projectDir, config);
  const out: Partial<Record<Agent, string[]>> = {};
  for (const agent of AGENTS) {
    if (!byAgent[agent].some((p) => p.path !== 'not wired')) continue;
    const missing = byAgent[agent].filter((p) => p.path === 'not wired' && p.reasons.length > 0);
    if (missing.length > 0) out[agent] = missing.map((p) => p.event);
  }
  return out;
}

interface ValidateArgs {
  file?: string;
  project?: string;
  json: boolean;
}

export const validateCommand: CommandModule<object, ValidateArgs> = {
  command: 'validate [file]',
  describe: 'Check a config file (default: the user and project config); exit 1 when invalid',
  builder: (y) =>
    y
      .positional('file', { type: 'string', describe: 'Config file to check' })
      .option('project', {
        type: 'string',
        describe: 'Project dir for the project-level file (default: cwd)',
      })
      .option('json', { type: 'boolean', default: false, describe: 'Print {valid, issues} as JSON' })
      .example('hookd validate', 'Check the config files hookd would use here')
      .example('hookd validate ./config.json', 'Check one file before installing it'),
  handler: async (args) => {
    const out = cliOut();
    let files: { file: string; text: string | null; level?: 'user' | 'project' }[];
    let notTrusted: ConfigSource[] = [];
    let unwired: Partial<Record<Agent, string[]>> = {};
    if (args.file) {
      const text = readInputFile(args.file);
      files = [{ file: args.file, text }];
    } else {
      const loaded = await loadValidated(projectDirFrom(args), false);
      notTrusted = loaded.sources.filter(untrustedSource);
      unwired = await unwiredEvents(projectDirFrom(args) ?? cli().cwd, loaded.config);
      files = loaded.sources
        .filter((s) => s.exists)
        .map((s) => ({ file: s.file, text: readInputFile(s.file), level: s.level }));
      if (files.length === 0) {
        if (args.json) out.write(formatJson({ valid: true, files: [], issues: [] }));
        else
          out.write('No config file found; hookd runs with defaults. (hookd config shows where it looks.)\n');
        return;
      }
    }
    const { validateConfigText } = await import('../../../config/validate.js');
    const issues = files.flatMap(({ file, text, level }) => {
      const result = validateConfigText(text ?? '', file, level);
      return result.ok ? [] : result.issues;
    });
    if (args.json)
      out.write(
        formatJson({
          valid: issues.length === 0,
          trusted: notTrusted.length === 0,
          files: files.map((f) => f.file),
          issues,
          untrusted: notTrusted.map((s) => ({
            file: s.file,
            trust: s.trust!.state,
            sha256: s.trust!.sha256,
          })),
          unwired,
        }),
      );
    else {
      if (issues.length === 0)
        out.write(`${paint(out, 'green', '✓')} ${safeText(files.map((f) => f.file).join(', '))}: valid\n`);
      else out.write(`${safeLines(formatIssues(issues))}\n\n${issues.length} problem(s) found.\n`);
      for (const s of notTrusted) out.write(`${paint(out, 'red', '✗')} ${untrustedLine(s)}\n`);
      for (const [agent, events] of Object.entries(unwired))
        out.write(
          paint(
            out,
            'yellow',
            `note: ${AGENT_PROFILES[agent as Agent].displayName} does not send hookd ${safeText(events.join(', '))}, which this config needs: run \`hookd install --agent ${agent}\`\n`,
          ),
        );
    }
    if (issues.length > 0 || notTrusted.length > 0) cli().exitCode = EXIT.FAILURE;
  },
};

export const schemaCommand: CommandModule = {
  command: 'schema',
  describe: 'Print the JSON Schema of the config file (for editors: "$schema")',
  builder: (y) => y.example('hookd schema > hookd.schema.json', 'Save the schema for your editor'),
  handler: async () => {
    const { configJsonSchema } = await import('../../../config/validate.js');
    cliOut().write(formatJson(configJsonSchema()));
  },
};

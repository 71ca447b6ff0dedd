import type { CommandModule } from 'yargs';
import { readInputFile } from '../read-input.js';
import { DROID_EVENTS } from '../../events/names.js';
import { samplePayload } from '../../events/sample.js';
import { processEvent } from '../../hook/process-event.js';
import { UsageError } from '../../errors.js';
import { cliProcessIO } from '../hook-io.js';
import { formatJson, stdoutOut } from '../../terminal/output.js';
import { formatReport, reportJson } from '../../explain/format-report.js';

interface EmitArgs {
  event?: string;
  tool?: string;
  command?: string;
  file?: string;
  message?: string;
  type?: string;
  source?: string;
  reason?: string;
  trigger?: string;
  session?: string;
  cwd?: string;
  field?: string[];
  from?: string;
  daemon: boolean;
  json: boolean;
  print: boolean;
}

/** `key=value` flags: the value is parsed as JSON when it can be (numbers, booleans, objects). */
export function parseFields(pairs: readonly string[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0)
      throw new UsageError(
        `--field ${JSON.stringify(pair)} is not key=value`,
        'Example: --field stop_hook_active=true',
      );
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {}
    fields[pair.slice(0, eq)] = value;
  }
  return fields;
}

export function buildPayload(args: EmitArgs): Record<string, unknown> {
  if (args.from) {
    const text = readInputFile(args.from, `--from ${args.from}`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`--from ${args.from} is not JSON: ${(error as Error).message}`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value))
      throw new UsageError(`--from ${args.from} is not a JSON object`);
    const payload = { ...(value as Record<string, unknown>), ...parseFields(args.field ?? []) };
    if (args.event) payload.hook_event_name = args.event;
    return payload;
  }
  if (!args.event)
    throw new UsageError('name an event or give --from <file>', `Events: ${DROID_EVENTS.join(', ')}`);
  return samplePayload(args.event, {
    ...(args.tool ? { tool: args.tool } : {}),
    ...(args.command ? { command: args.command } : {}),
    ...(args.file ? { filePath: args.file } : {}),
    ...(args.message ? { message: args.message } : {}),
    ...(args.type ? { notificationType: args.type } : {}),
    ...(args.source ? { source: args.source } : {}),
    ...(args.reason ? { reason: args.reason } : {}),
    ...(args.trigger ? { trigger: args.trigger } : {}),
    ...(args.session ? { sessionId: args.session } : {}),
    ...(args.cwd ? { cwd: args.cwd } : {}),
    fields: parseFields(args.field ?? []),
  });
}

export const emitCommand: CommandModule<object, EmitArgs> = {
  command: 'emit [event]',
  describe: 'Build a realistic event and run it through the hook path, showing what ran',
  builder: (y) =>
    y
      .positional('event', {
        type: 'string',
        describe: `Event name (${DROID_EVENTS.join(', ')}, or any other)`,
      })
      .option('tool', { type: 'string', describe: 'tool_name for PreToolUse/PostToolUse (default Execute)' })
      .option('command', { type: 'string', describe: 'tool_input.command for Execute' })
      .option('file', { type: 'string', describe: 'tool_input.file_path for Create/Edit/Read' })
      .option('message', { type: 'string', describe: 'Notification message' })
      .option('type', { type: 'string', describe: 'Notification notification_type' })
      .option('source', { type: 'string', describe: 'SessionStart source' })
      .option('reason', { type: 'string', describe: 'SessionEnd reason' })
      .option('trigger', { type: 'string', describe: 'PreCompact trigger' })
      .option('session', { type: 'string', describe: 'session_id (default: a new UUID)' })
      .option('cwd', { type: 'string', describe: 'cwd of the event (default: the current directory)' })
      .option('field', {
        type: 'string',
        array: true,
        describe: 'Extra or replaced top-level field, key=value (JSON values parsed)',
      })
      .option('from', { type: 'string', describe: 'Read the payload from a JSON file instead' })
      .option('daemon', {
        type: 'boolean',
        default: true,
        describe: 'Hand the event to the daemon (--no-daemon to skip)',
      })
      .option('print', { type: 'boolean', default: false, describe: 'Only print the payload, run nothing' })
      .option('json', { type: 'boolean', default: false, describe: 'Print the result as JSON' })
      .example(
        'hookd emit PreToolUse --tool Execute --command "rm -rf /"',
        'Try a guard against a dangerous command',
      )
      .example('hookd emit Notification --type idle_prompt --no-daemon', 'Run Notification commands only')
      .example('hookd emit --from event.json', 'Run a recorded payload')
      .example('hookd emit Stop --print | hookd hook', 'Build a payload and pipe it to the real entry'),
  handler: async (args) => {
    const payload = buildPayload(args);
    const out = stdoutOut();
    if (args.print) {
      out.write(`${JSON.stringify(payload)}\n`);
      return;
    }
    const io = cliProcessIO({ daemon: args.daemon });
    try {
      const report = await processEvent(Buffer.from(JSON.stringify(payload)), io);
      out.write(args.json ? formatJson(reportJson(report)) : formatReport(report, out));
    } finally {
      io.logger.close();
    }
  },
};

import { existsSync, statSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { DROID_EVENTS, isDroidEvent } from '../../events/names.js';
import { explainEvent } from '../../explain/explain-event.js';
import { formatExplanation } from '../../explain/format-explain.js';
import { formatJson, stdoutOut } from '../../terminal/output.js';
import { buildPayload } from './emit.js';

type EmitFlags = Parameters<typeof buildPayload>[0];

interface ExplainArgs extends Omit<EmitFlags, 'daemon' | 'json' | 'print'> {
  target?: string;
  json: boolean;
}

/** The event-building flags explain shares with `hookd emit` (same meaning, same defaults). */
const EVENT_FLAGS: Record<string, string> = {
  tool: 'tool_name for PreToolUse/PostToolUse (default Execute)',
  command: 'tool_input.command for Execute',
  file: 'tool_input.file_path for Create/Edit/Read',
  message: 'Notification message',
  type: 'Notification notification_type',
  source: 'SessionStart source',
  reason: 'SessionEnd reason',
  trigger: 'PreCompact trigger',
  session: 'session_id (default: a new UUID)',
  cwd: 'cwd of the event (default: the current directory)',
};

/** A target that is a file (or looks like one) is a recorded payload; anything else is an event name. */
function isPayloadFile(target: string): boolean {
  if (target.endsWith('.json') || target.includes('/')) return true;
  return !isDroidEvent(target) && existsSync(target) && statSync(target).isFile();
}

export const explainCommand: CommandModule<object, ExplainArgs> = {
  command: 'explain [target]',
  describe: 'Show which commands would run and which notifications would fire for an event, running nothing',
  builder: (y) =>
    y
      .positional('target', {
        type: 'string',
        describe: `A payload file (event.json), or an event name (${DROID_EVENTS.join(', ')}) built as hookd emit does`,
      })
      .options(
        Object.fromEntries(
          Object.entries(EVENT_FLAGS).map(([name, describe]) => [
            name,
            { type: 'string' as const, describe },
          ]),
        ),
      )
      .option('field', {
        type: 'string',
        array: true,
        describe: 'Extra or replaced top-level field, key=value (JSON values parsed)',
      })
      .option('from', { type: 'string', describe: 'Read the payload from a JSON file' })
      .option('json', { type: 'boolean', default: false, describe: 'Print the explanation as JSON' })
      .example('hookd explain event.json', 'Explain a recorded payload')
      .example('hookd explain PreToolUse --tool Edit', 'Explain a built event, as hookd emit would build it')
      .example('hookd explain Stop --cwd ~/work/api --json', 'The same, as JSON for scripts'),
  handler: async (args) => {
    const target = args.target;
    const fromFile = target !== undefined && isPayloadFile(target);
    const payload = buildPayload({
      ...args,
      daemon: false,
      json: false,
      print: false,
      ...(fromFile ? { from: target, event: undefined } : { event: target }),
    });
    const explanation = await explainEvent(payload, { env: process.env });
    const out = stdoutOut();
    out.write(args.json ? formatJson(explanation) : formatExplanation(explanation, out));
  },
};

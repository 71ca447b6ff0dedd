import { existsSync, statSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { CLAUDE_EVENTS, isDroidEvent } from '../../../events/names.js';
import { explainEvent } from '../../../explain/explain-event.js';
import { formatExplanation } from '../../../explain/format-explain.js';
import { formatJson } from '../../../terminal/output.js';
import { buildPayload, EVENT_NAMES_HELP, eventAgent, eventFlags } from './emit.js';
import { cli, cliOut, cliPath } from '../../../terminal/cli-io.js';

type EmitFlags = Parameters<typeof buildPayload>[0];

interface ExplainArgs extends Omit<EmitFlags, 'daemon' | 'json' | 'print'> {
  target?: string;
  json: boolean;
}

/** A target that is a file (or looks like one) is a recorded payload; anything else is an event name. */
function isPayloadFile(target: string): boolean {
  if (target.endsWith('.json') || target.includes('/')) return true;
  const eventName = isDroidEvent(target) || (CLAUDE_EVENTS as readonly string[]).includes(target);
  return !eventName && existsSync(cliPath(target)) && statSync(cliPath(target)).isFile();
}

export const explainCommand: CommandModule<object, ExplainArgs> = {
  command: 'explain [target]',
  describe: 'Show which commands would run and which notifications would fire for an event, running nothing',
  builder: (y) =>
    eventFlags(
      y.positional('target', {
        type: 'string',
        describe: `A payload file (event.json), or an event name built as hookd emit does: ${EVENT_NAMES_HELP}`,
      }),
    )
      .option('from', { type: 'string', describe: 'Read the payload from a JSON file' })
      .option('json', { type: 'boolean', default: false, describe: 'Print the explanation as JSON' })
      .example('hookd explain event.json', 'Explain a recorded payload (its agent guessed)')
      .example('hookd explain PreToolUse --tool Edit', 'Explain a built event, as hookd emit would build it')
      .example(
        'hookd explain PreToolUse --agent claude --json',
        'As Claude Code sends it: entries for "agent": "droid" are listed as not run, and why',
      )
      .example('hookd explain Stop --cwd ~/work/api --json', 'The same, as JSON for scripts'),
  handler: async (args) => {
    const target = args.target;
    const fromFile = target !== undefined && isPayloadFile(target);
    const flags = {
      ...args,
      daemon: false,
      json: false,
      print: false,
      ...(fromFile ? { from: target, event: undefined } : { event: target }),
    };
    const payload = buildPayload(flags);
    const { agent, from } = eventAgent(flags);
    const explanation = await explainEvent(payload, { env: cli().env, agent, agentFrom: from });
    const out = cliOut();
    out.write(args.json ? formatJson(explanation) : formatExplanation(explanation, out));
  },
};

import { AGENT_IDS, DEFAULT_AGENT } from '../../../agents/ids.js';
import { ADAPTERS } from '../../../agents/adapters/registry.js';
import type { Argv, CommandModule } from 'yargs';
import { readInputFile } from '../../read-input.js';
import { homedir } from 'node:os';
import { CLAUDE_EVENTS, DROID_EVENTS } from '../../../events/names.js';
import { geminiNative } from '../../../events/gemini-facts.js';
import { canonicalEventName, type DeclaredAgent } from '../../../events/parse.js';
import { samplePayload } from '../../../events/sample.js';
import { UsageError } from '../../../errors.js';
import { formatJson, formatJsonLine } from '../../../terminal/output.js';
import type { AgentFrom } from '../../../explain/explain-event.js';
import { cliOut, cliPath } from '../../../terminal/cli-io.js';

interface EmitArgs {
  event?: string;
  agent?: DeclaredAgent;
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
    // An own property whatever the key: `__proto__=...` is a field like any other, not the prototype.
    Object.defineProperty(fields, pair.slice(0, eq), {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return fields;
}

/**
 * The agent an event of emit or explain is processed as: --agent when given; else droid for an event
 * built from flags (its payload is Droid's), and guessed from a recorded payload, as `hookd hook` does.
 */
export function eventAgent(args: Pick<EmitArgs, 'agent' | 'from'>): {
  agent: DeclaredAgent | undefined;
  from: AgentFrom;
} {
  if (args.agent) return { agent: args.agent, from: '--agent' };
  return args.from ? { agent: undefined, from: 'guessed' } : { agent: DEFAULT_AGENT, from: 'built' };
}

/** The option both emit and explain take. */
export const AGENT_OPTION = {
  choices: AGENT_IDS,
  describe:
    'Build and process the event as this agent sends it: its matchers, "agent" entries and decisions (explain: its path); default: droid for a built event, guessed for a payload file',
};

/** The events an agent sends, for usage messages. */
export function eventsOf(agent: DeclaredAgent | undefined): readonly string[] {
  return ADAPTERS[agent ?? DEFAULT_AGENT].events;
}

/**
 * A built event as Codex or Gemini CLI sends it. Codex speaks Claude Code's dialect (its shell tool is
 * `Bash`) with its transcript under ~/.codex/sessions; Gemini names the event and its tools its own way
 * (`BeforeTool`, `run_shell_command`): docs/agents/codex.md, gemini.md.
 */
function asAgent(
  agent: DeclaredAgent,
  payload: Record<string, unknown>,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  if (agent !== 'codex' && agent !== 'gemini') return payload;
  const id = String(payload.session_id);
  const out: Record<string, unknown> = { ...payload };
  out.transcript_path =
    agent === 'codex'
      ? `${homedir()}/.codex/sessions/rollout-${id}.jsonl`
      : `${homedir()}/.gemini/tmp/project/chats/session-${id}.jsonl`;
  if (agent === 'gemini') {
    out.hook_event_name = geminiNative(String(payload.hook_event_name));
    const tool = Object.hasOwn(GEMINI_TOOLS, String(payload.tool_name))
      ? GEMINI_TOOLS[String(payload.tool_name)]
      : undefined;
    if (tool) out.tool_name = tool;
  }
  return { ...out, ...fields };
}

/** Claude Code's tool names -> Gemini CLI's, for built events. */
const GEMINI_TOOLS: Readonly<Record<string, string>> = {
  Bash: 'run_shell_command',
  Write: 'write_file',
  Edit: 'replace',
  Read: 'read_file',
  WebFetch: 'web_fetch',
};

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
    throw new UsageError('name an event or give --from <file>', `Events: ${eventsOf(args.agent).join(', ')}`);
  const agent = args.agent ?? DEFAULT_AGENT;
  // Codex and Copilot CLI speak Claude Code's dialect; Gemini's events are built as Claude's, then renamed.
  const claudeLike = agent === 'codex' || agent === 'gemini' || agent === 'copilot';
  const event = canonicalEventName(agent, args.event);
  const built = samplePayload(event, {
    agent: claudeLike ? 'claude' : agent,
    ...(args.tool ? { tool: args.tool } : {}),
    ...(args.command ? { command: args.command } : {}),
    ...(args.file ? { filePath: args.file } : {}),
    ...(args.message ? { message: args.message } : {}),
    ...(args.type ? { notificationType: args.type } : {}),
    ...(args.source ? { source: args.source } : {}),
    ...(args.reason ? { reason: args.reason } : {}),
    ...(args.trigger ? { trigger: args.trigger } : {}),
    ...(args.session ? { sessionId: args.session } : {}),
    cwd: cliPath(args.cwd ?? '.'),
    fields: parseFields(args.field ?? []),
  });
  return asAgent(agent, built, parseFields(args.field ?? []));
}

const text = (describe: string) => ({ type: 'string' as const, describe });

/** The event-building flags emit and explain share (same meaning, same defaults). */
const EVENT_FLAGS = {
  tool: text('tool_name for tool events (default Execute; Bash with --agent claude)'),
  command: text('tool_input.command for Execute (Claude: Bash)'),
  file: text(
    'tool_input.file_path for Create/Edit/Read (Claude: Write/Edit/Read, and FileChanged, ConfigChange, InstructionsLoaded)',
  ),
  message: text(
    'Notification message (Claude: also last_assistant_message of Stop, SubagentStop, StopFailure)',
  ),
  type: text('Notification notification_type'),
  source: text('SessionStart source (Claude: also ConfigChange, DirectoryAdded, Pre/PostModelSwitch)'),
  reason: text('SessionEnd reason (Claude: also PermissionDenied)'),
  trigger: text('PreCompact trigger (Claude: also PostCompact, Setup)'),
  session: text('session_id (default: a new UUID)'),
  cwd: text('cwd of the event (default: the current directory)'),
  agent: AGENT_OPTION,
  field: {
    type: 'string' as const,
    array: true as const,
    describe: 'Extra or replaced top-level field, key=value (JSON values parsed)',
  },
};

/** The positional event name's help: Droid's nine events, Claude Code's others with --agent claude. */
export const EVENT_NAMES_HELP =
  `Droid's ${DROID_EVENTS.join(', ')}; with --agent claude also Claude Code's ` +
  `${CLAUDE_EVENTS.filter((e) => !(DROID_EVENTS as readonly string[]).includes(e)).join(', ')}; ` +
  'any other name gets the common fields (add more with --field)';

/** Adds the shared event-building flags to a command. */
export function eventFlags<T>(y: Argv<T>) {
  return y.options(EVENT_FLAGS);
}

export const emitCommand: CommandModule<object, EmitArgs> = {
  command: 'emit [event]',
  describe: 'Build a realistic event and run it through the hook path, showing what ran',
  builder: (y) =>
    eventFlags(y.positional('event', { type: 'string', describe: `Event name: ${EVENT_NAMES_HELP}` }))
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
      .example(
        'hookd emit PreToolUse --agent claude --command "rm -rf /"',
        'The same as Claude Code sends it (tool Bash): entries for "agent": "droid" are skipped',
      )
      .example('hookd emit PermissionRequest --agent claude --tool Write', 'An event only Claude Code has')
      .example('hookd emit Notification --type idle_prompt --no-daemon', 'Run Notification commands only')
      .example('hookd emit --from event.json --agent claude', 'Run a recorded payload as Claude Code sent it')
      .example(
        'hookd emit Stop --agent claude --print | hookd hook --agent claude',
        'Build a payload and pipe it to the real entry',
      ),
  handler: async (args) => {
    const payload = buildPayload(args);
    const { agent } = eventAgent(args);
    const out = cliOut();
    if (args.print) {
      out.write(formatJsonLine(payload));
      return;
    }
    // Loaded here, not with the module: `hookd emit --help` needs none of it (config schemas, runner).
    const [{ processEvent }, { cliProcessIO }, { formatReport, reportJson }] = await Promise.all([
      import('../../../hook-path/process-event.js'),
      import('../../hook-io.js'),
      import('../../../explain/format-report.js'),
    ]);
    // An agent named here (or droid for a built event) is the sender: emit acts as that agent.
    const io = { ...cliProcessIO({ daemon: args.daemon }), agent, agentGiven: true };
    try {
      // Claude Code ends its stdin line with a newline, Droid does not: commands get the agent's bytes.
      const bytes = Buffer.from(`${JSON.stringify(payload)}${agent === 'claude' ? '\n' : ''}`);
      const report = await processEvent(bytes, io);
      out.write(args.json ? formatJson(reportJson(report)) : formatReport(report, out));
    } finally {
      io.logger.close();
    }
  },
};

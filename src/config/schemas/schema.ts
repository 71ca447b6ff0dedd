import { AGENT_IDS } from '../../agents/ids.js';
import { TOOL_KINDS } from '../../agents/types.js';
import * as z from 'zod';
import { DEFAULTS } from '../defaults.js';
import { notifyObjectSchema, notifySchema } from './notify-schema.js';
import { apiConfigSchema } from './api-schema.js';
import { ledgerConfigSchema } from './ledger-schema.js';
import { enrichConfigSchema } from './enrich-schema.js';
import { daemonConfigSchema } from './daemon-schema.js';
import { projectRemoteSchema, remoteConfigSchema } from './remote-schema.js';
import { telemetryConfigSchema } from './telemetry-schema.js';
import { watchConfigSchema } from './watch-schema.js';

/** A matcher as the agent reads it: empty, `*` or absent match all; else exact, then unanchored RegExp. */
const matcherSchema = z.string().superRefine((value, ctx) => {
  if (value === '' || value === '*') return;
  try {
    new RegExp(value);
  } catch (error) {
    ctx.addIssue({
      code: 'custom',
      message: `invalid pattern: ${(error as Error).message}`,
      params: { hint: 'use a JavaScript regular expression such as "Edit|Create", or "*" for all' },
    });
  }
});

/** One of a fixed list of names; an unknown one is refused with the list. */
function oneOf<const T extends readonly [string, ...string[]]>(what: string, names: T) {
  return z.enum(names, {
    error: (issue) => `unknown ${what} ${JSON.stringify(issue.input)}: the ${what}s are ${names.join(', ')}`,
  });
}

export const hookCommandSchema = z
  .strictObject({
    type: z.literal('command').describe('Always "command", as in the agent settings.'),
    command: z.string().min(1).describe('Shell command, run with `sh -c` and the event JSON on stdin.'),
    timeout: z
      .number()
      .positive()
      .max(3600)
      .optional()
      .describe(
        `Seconds before the command's process group is killed (default ${DEFAULTS.commandTimeoutSec}).`,
      ),
    name: z.string().min(1).optional().describe('A label for logs and `hookd emit` output.'),
    blocking: z
      .boolean()
      .default(true)
      .describe(
        'As in the agent, exit code 2 (with stderr) and a JSON decision on stdout reach the agent. false makes the command observe-only.',
      ),
    context: z
      .boolean()
      .optional()
      .describe(
        'Whether plain stdout is passed to the agent as context (SessionStart, UserPromptSubmit). Default: as the agent does, for a blocking command.',
      ),
    onError: z
      .enum(['allow', 'block'])
      .default('allow')
      .describe(
        'When hookd cannot run the command (spawn error, timeout, crash): allow lets the agent go on; block answers exit 2 (fail closed).',
      ),
    env: z.record(z.string(), z.string()).optional().describe('Extra environment; values may use ${VAR}.'),
    cwd: z.string().min(1).optional().describe("Working directory (default: the event's cwd)."),
    enabled: z
      .boolean()
      .default(true)
      .describe('Set false to keep a command in the file without running it.'),
    local: z
      .boolean()
      .optional()
      .describe(
        "true: an event that runs this command is run by the hook process (the Node path), never by the daemon for the fast client: for commands that must live in the agent's own process tree.",
      ),
  })
  .describe('One command, in the agent format plus hookd options.');

export const hookEntrySchema = z
  .strictObject({
    matcher: matcherSchema
      .optional()
      .describe(
        'Tested against the tool name (Pre/PostToolUse), source (SessionStart), trigger (PreCompact), notification_type (Notification) or reason (SessionEnd).',
      ),
    tool: matcherSchema.optional().describe('Matcher on tool_name, for any event that carries one.'),
    source: matcherSchema
      .optional()
      .describe('Matcher on SessionStart source (startup, resume, clear, compact).'),
    trigger: matcherSchema.optional().describe('Matcher on PreCompact trigger (manual, auto).'),
    notification_type: matcherSchema
      .optional()
      .describe('Matcher on Notification notification_type (permission_prompt, idle_prompt, ...).'),
    reason: matcherSchema
      .optional()
      .describe('Matcher on SessionEnd reason (clear, logout, prompt_input_exit, other).'),
    commandRegex: matcherSchema.optional().describe("Matcher on an Execute/Bash call's shell command."),
    kinds: z
      .array(oneOf('tool kind', TOOL_KINDS))
      .min(1)
      .optional()
      .describe(
        "Only for calls of tools of these canonical kinds, whatever the agent names them (shell: Droid's Execute, Claude Code's and Codex's Bash, Gemini's run_shell_command; edit, write, read, fetch, task, mcp).",
      ),
    agent: z
      .enum(AGENT_IDS)
      .optional()
      .describe(
        'Only for events from this agent (absent: every agent). An event whose agent hookd cannot tell runs the entry anyway: a guard never goes missing. `hookd import` sets it.',
      ),
    agents: z
      .array(oneOf('agent', AGENT_IDS))
      .min(1)
      .optional()
      .describe(
        'Only for events from these agents (absent: every agent). An event whose agent hookd cannot tell runs the entry anyway.',
      ),
    hooks: z.array(hookCommandSchema).describe('Commands to run when the entry matches.'),
  })
  .refine((entry) => entry.agent === undefined || entry.agents === undefined, {
    message: 'use "agents" (a list) or "agent", not both',
    path: ['agents'],
  })
  .describe('A matcher and its commands.');

export const hooksSchema = z
  .record(z.string().min(1), z.array(hookEntrySchema))
  .describe("The agent's own hooks object, keyed by event name.");

export const settingsSchema = z
  .strictObject({
    commandTimeoutSec: z.number().positive().max(3600).default(DEFAULTS.commandTimeoutSec),
    eventBudgetSec: z.number().positive().max(3600).default(DEFAULTS.eventBudgetSec),
    eventBudgetSecByEvent: z
      .record(z.string(), z.number().positive().max(3600))
      .default(DEFAULTS.eventBudgetSecByEvent),
    killGraceMs: z.number().int().min(0).max(60_000).default(DEFAULTS.killGraceMs),
    maxOutputBytes: z
      .number()
      .int()
      .min(256)
      .max(64 * 1024 * 1024)
      .default(DEFAULTS.maxOutputBytes),
    deadLetterMax: z.number().int().min(0).max(100_000).default(DEFAULTS.deadLetterMax),
    sequentialEvents: z
      .array(z.string())
      .default([])
      .describe('Events whose commands run one after another in config order instead of concurrently.'),
  })
  .describe('How hookd runs commands.');

export const configSchema = z
  .strictObject({
    $schema: z.string().optional(),
    settings: settingsSchema.default(() => settingsSchema.parse({})),
    hooks: hooksSchema.default({}),
    notify: notifySchema.optional(),
    api: apiConfigSchema.optional(),
    ledger: ledgerConfigSchema.optional(),
    daemon: daemonConfigSchema.default(() => daemonConfigSchema.parse({})),
    enrich: enrichConfigSchema.optional(),
    remote: remoteConfigSchema.optional(),
    telemetry: telemetryConfigSchema.optional(),
    watch: watchConfigSchema.optional(),
  })
  .describe('hookd configuration. Reference: docs/configuration.md; `hookd schema` prints this schema.');

/** A project file alone: its rules may name the user's channels, checked once merged (config/project-notify.ts). */
// Where telemetry goes and what the platform watchers poll are the user's to say: a repository's file
// cannot set them. It may only turn remote answers off (remote-schema.ts).
export const projectConfigSchema = configSchema
  .extend({
    notify: notifyObjectSchema.optional(),
    remote: projectRemoteSchema.optional(),
  })
  .omit({ telemetry: true, watch: true });

export type HookdConfig = z.infer<typeof configSchema>;
export type HookCommand = z.infer<typeof hookCommandSchema>;
export type HookEntry = z.infer<typeof hookEntrySchema>;
export type Settings = z.infer<typeof settingsSchema>;

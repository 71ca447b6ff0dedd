import { randomBytes, randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { HookPayload } from './types.js';
import { ownValue } from '../util/own.js';

/**
 * Realistic payloads for `hookd emit`, `explain` and the demo, shaped like the ones the real Droid CLI
 * 0.225.2 sends (fixtures/droid-0.225.2), or with `agent: 'claude'` like the real Claude Code 2.1.330
 * (fixtures/claude-code-2.1.330). Overrides replace or add top-level fields.
 */
export interface SampleOptions {
  /** Whose payload to build: Droid's (default) or Claude Code's. */
  agent?: 'droid' | 'claude';
  sessionId?: string;
  cwd?: string;
  home?: string;
  tool?: string;
  command?: string;
  filePath?: string;
  message?: string;
  notificationType?: string;
  source?: string;
  reason?: string;
  trigger?: string;
  prompt?: string;
  fields?: Record<string, unknown>;
}

/**
 * A tool's `tool_input` as the agent sends it: Droid's tools (Execute, Create, Edit, Read, Task) as
 * recorded; Claude Code's Bash, Write and Agent as recorded, its Edit and Read by the tools' own schema.
 */
function toolInput(
  agent: 'droid' | 'claude',
  tool: string,
  o: SampleOptions,
  cwd: string,
): Record<string, unknown> {
  const claude = agent === 'claude';
  const filePath = (fallback: string) => o.filePath ?? join(cwd, fallback);
  switch (tool) {
    case 'Execute':
    case 'Bash': {
      const command = o.command ?? 'echo hi';
      return claude
        ? { command, description: 'Run a shell command' }
        : { command, summary: 'Run a shell command', riskLevel: 'low' };
    }
    case 'Create':
    case 'Write':
      return { file_path: filePath('hook-demo.txt'), content: 'hello\n' };
    case 'Edit':
      return claude
        ? { file_path: filePath('src/index.ts'), old_string: 'a', new_string: 'b', replace_all: false }
        : { file_path: filePath('src/index.ts'), old_str: 'a', new_str: 'b' };
    case 'Read':
      return { file_path: filePath('README.md') };
    case 'Task':
      return {
        subagent_type: 'worker',
        description: 'Tiny sub task',
        prompt: 'Reply with a one-line report.',
      };
    case 'Agent':
      if (!claude) return {};
      return {
        description: 'Tiny sub task',
        prompt: 'Reply with a one-line report.',
        subagent_type: 'general-purpose',
      };
    default:
      if (!claude) return {};
      return {
        ...(o.command !== undefined ? { command: o.command } : {}),
        ...(o.filePath !== undefined ? { file_path: o.filePath } : {}),
      };
  }
}

export function samplePayload(eventName: string, o: SampleOptions = {}): HookPayload {
  if (o.agent === 'claude') return claudeSamplePayload(eventName, o);
  const sessionId = o.sessionId ?? randomUUID();
  const cwd = o.cwd ?? process.cwd();
  const home = o.home ?? process.env.HOME ?? '/home/user';
  const slug = cwd.replace(/\//g, '-');
  const base: HookPayload = {
    session_id: sessionId,
    transcript_path: join(home, '.factory', 'sessions', slug, `${sessionId}.jsonl`),
    cwd,
    permission_mode: 'auto-low',
    hook_event_name: eventName,
  };
  const tool = o.tool ?? 'Execute';
  let extra: HookPayload = {};
  switch (eventName) {
    case 'SessionStart':
      extra = { source: o.source ?? 'startup' };
      break;
    case 'UserPromptSubmit':
      extra = {
        message_id: randomUUID(),
        prompt: o.prompt ?? 'Run the tests and fix what fails.',
        has_images: false,
      };
      break;
    case 'PreToolUse':
      extra = { tool_name: tool, tool_input: toolInput('droid', tool, o, cwd) };
      break;
    case 'PostToolUse':
      extra = {
        tool_name: tool,
        tool_input: toolInput('droid', tool, o, cwd),
        tool_response: tool === 'Execute' ? 'hi\n\n\n[Process exited with code 0]' : '{"success":true}',
      };
      break;
    case 'Notification':
      extra = {
        message: o.message ?? 'Factory CLI needs permission to execute 1 tool(s)',
        notification_type: o.notificationType ?? 'permission_prompt',
      };
      break;
    case 'Stop':
      extra = {
        message_id: randomUUID(),
        stop_hook_active: false,
        tool_execution_count: 0,
        elapsed_time: 1207,
      };
      break;
    case 'SubagentStop':
      extra = { task_name: 'Tiny sub task', task_result: 'subagent finished', stop_hook_active: false };
      break;
    case 'PreCompact':
      extra = {
        trigger: o.trigger ?? 'manual',
        message_count: 21,
        estimated_tokens: 327,
        message_id: randomUUID(),
      };
      break;
    case 'SessionEnd':
      extra = {
        message_id: randomUUID(),
        reason: o.reason ?? 'other',
        session_duration_ms: 2277.14,
        message_count: 23,
      };
      break;
  }
  return { ...base, ...extra, ...(o.fields ?? {}) };
}

/** PostToolUse's `tool_response`, an object under Claude Code (Droid: a string). */
function claudeToolResponse(
  tool: string,
  input: Record<string, unknown>,
  agentId: string,
): Record<string, unknown> {
  switch (tool) {
    case 'Bash':
      return { stdout: 'hi', stderr: '', interrupted: false, isImage: false, noOutputExpected: false };
    case 'Write':
      return {
        type: 'create',
        filePath: input.file_path,
        content: input.content,
        structuredPatch: [],
        originalFile: null,
        userModified: false,
      };
    case 'Edit':
      return {
        filePath: input.file_path,
        oldString: input.old_string,
        newString: input.new_string,
        originalFile: 'a\n',
        structuredPatch: [],
        userModified: false,
        replaceAll: false,
      };
    case 'Read':
      return {
        type: 'text',
        file: { filePath: input.file_path, content: '# demo\n', numLines: 1, startLine: 1, totalLines: 1 },
      };
    case 'Agent':
      return {
        status: 'completed',
        prompt: input.prompt,
        agentId,
        agentType: 'general-purpose',
        content: [{ type: 'text', text: 'subagent finished' }],
        totalDurationMs: 346,
        totalTokens: 15,
        totalToolUseCount: 0,
      };
    default:
      return {};
  }
}

/** PostToolBatch's per-call `tool_response`: the text the model saw. */
function claudeBatchText(tool: string, input: Record<string, unknown>): string {
  switch (tool) {
    case 'Bash':
      return 'hi';
    case 'Write':
      return `File created successfully at: ${String(input.file_path)}`;
    case 'Edit':
      return `The file ${String(input.file_path)} has been updated.`;
    case 'Agent':
      return 'subagent finished';
    default:
      return '';
  }
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** An id shaped like Claude's tool-use ids (`toolu_01` and 22 letters or digits). */
function toolUseId(): string {
  return `toolu_01${[...randomBytes(22)].map((b) => BASE62[b % BASE62.length]).join('')}`;
}

/** Tool and stop events: they carry both `permission_mode` and `effort` under Claude Code 2.1.330. */
const CLAUDE_TOOL_AND_STOP = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PostToolBatch',
  'PermissionRequest',
  'PermissionDenied',
  'Stop',
  'SubagentStop',
];

/** Events whose payload carries `permission_mode` (absent elsewhere). */
const CLAUDE_PERMISSION_MODE = new Set([...CLAUDE_TOOL_AND_STOP, 'UserPromptSubmit', 'UserPromptExpansion']);

/** Events whose payload carries `effort: {level}`. */
const CLAUDE_EFFORT = new Set([...CLAUDE_TOOL_AND_STOP, 'StopFailure']);

const LAST_MESSAGE = 'All done: ran `echo hi` and reported back.';

/**
 * A payload as Claude Code 2.1.330 sends it (spec/hook-protocol-claude.md, "Payloads"): the recorded
 * fields of each of its events, in its key order. Events never recorded (TeammateIdle, TaskCreated,
 * TaskCompleted, Elicitation, ElicitationResult, WorktreeRemove) and unknown names get the common fields
 * only; `fields` adds the rest.
 */
function claudeSamplePayload(eventName: string, o: SampleOptions): HookPayload {
  const sessionId = o.sessionId ?? randomUUID();
  const cwd = o.cwd ?? process.cwd();
  const home = o.home ?? process.env.HOME ?? '/home/user';
  // ~/.claude/projects/<the cwd with every character but letters and digits as ->/<session>.jsonl
  const sessionDir = join(home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
  const tool = o.tool ?? 'Bash';
  const agentId = `a${randomBytes(8).toString('hex')}`;
  const source = o.source ?? 'startup';
  // No prompt yet: Setup, InstructionsLoaded and a SessionStart other than after /compact.
  const beforePrompt =
    eventName === 'Setup' ||
    eventName === 'InstructionsLoaded' ||
    (eventName === 'SessionStart' && source !== 'compact');
  const subagent = eventName === 'SubagentStart' || eventName === 'SubagentStop';
  const base: HookPayload = {
    session_id: sessionId,
    transcript_path: join(sessionDir, `${sessionId}.jsonl`),
    cwd,
    ...(beforePrompt ? {} : { prompt_id: randomUUID() }),
    ...(CLAUDE_PERMISSION_MODE.has(eventName) ? { permission_mode: 'default' } : {}),
    ...(subagent ? { agent_id: agentId, agent_type: 'general-purpose' } : {}),
    ...(CLAUDE_EFFORT.has(eventName) ? { effort: { level: 'medium' } } : {}),
    hook_event_name: eventName,
  };
  const input = toolInput('claude', tool, o, cwd);
  const lastMessage = o.message ?? LAST_MESSAGE;
  const stopFields = { background_tasks: [], session_crons: [] };
  const switchFields = {
    from_model: 'claude-opus-5-5',
    to_model: 'claude-sonnet-5-5',
    requested_model: 'sonnet',
    source: o.source ?? 'command',
    context_tokens: 15,
    prompt_cache_warm: true,
    cache_ttl: '5m',
    estimated_cache_write_usd: 0,
    pricing: 'catalog',
  };
  const toolCall = { tool_name: tool, tool_input: input };
  const fields: Record<string, () => HookPayload> = {
    SessionStart: () => ({ source, model: 'claude-opus-5-5' }),
    Setup: () => ({ trigger: o.trigger ?? 'init' }),
    InstructionsLoaded: () => ({
      file_path: o.filePath ?? join(cwd, 'CLAUDE.md'),
      memory_type: 'Project',
      load_reason: 'session_start',
    }),
    UserPromptSubmit: () => ({ prompt: o.prompt ?? 'Run the tests and fix what fails.' }),
    UserPromptExpansion: () => ({
      expansion_type: 'slash_command',
      command_name: 'greet',
      command_args: 'world',
      command_source: 'projectSettings',
      prompt: o.prompt ?? '/greet world',
    }),
    PreToolUse: () => ({ ...toolCall, tool_use_id: toolUseId() }),
    PostToolUse: () => ({
      ...toolCall,
      tool_response: claudeToolResponse(tool, input, agentId),
      tool_use_id: toolUseId(),
      duration_ms: 45,
    }),
    PostToolUseFailure: () => ({
      ...toolCall,
      tool_use_id: toolUseId(),
      error: 'Exit code 1',
      is_interrupt: false,
      duration_ms: 10,
    }),
    PostToolBatch: () => ({
      tool_calls: [{ ...toolCall, tool_use_id: toolUseId(), tool_response: claudeBatchText(tool, input) }],
    }),
    // Recorded for Write (accept edits for the session); other tools' suggestions were not recorded.
    PermissionRequest: () => ({
      ...toolCall,
      permission_suggestions:
        tool === 'Write' || tool === 'Edit'
          ? [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }]
          : [],
    }),
    PermissionDenied: () => ({
      ...toolCall,
      tool_use_id: toolUseId(),
      reason: o.reason ?? 'Classifier unavailable',
    }),
    Notification: () => {
      const type = o.notificationType ?? 'permission_prompt';
      const message =
        type === 'idle_prompt' ? 'Claude is waiting for your input' : 'Claude needs your permission';
      return { message: o.message ?? message, notification_type: type };
    },
    MessageDisplay: () => ({
      turn_id: randomUUID(),
      message_id: randomUUID(),
      index: 0,
      final: true,
      delta: lastMessage,
    }),
    Stop: () => ({ stop_hook_active: false, last_assistant_message: lastMessage, ...stopFields }),
    StopFailure: () => ({
      error: 'unknown',
      last_assistant_message: o.message ?? 'API Error: 400 invalid request',
    }),
    SubagentStop: () => ({
      stop_hook_active: false,
      agent_transcript_path: join(sessionDir, sessionId, 'subagents', `agent-${agentId}.jsonl`),
      last_assistant_message: o.message ?? 'subagent finished',
      ...stopFields,
    }),
    PreCompact: () => ({ trigger: o.trigger ?? 'manual', custom_instructions: null }),
    PostCompact: () => ({ trigger: o.trigger ?? 'manual', compact_summary: LAST_MESSAGE }),
    SessionEnd: () => ({ reason: o.reason ?? 'other' }),
    // `cwd` is already the new directory.
    CwdChanged: () => ({ old_cwd: dirname(cwd), new_cwd: cwd }),
    FileChanged: () => ({ file_path: o.filePath ?? join(cwd, '.envrc'), event: 'change' }),
    ConfigChange: () => ({
      source: o.source ?? 'user_settings',
      file_path: o.filePath ?? join(home, '.claude', 'settings.json'),
    }),
    WorktreeCreate: () => ({ name: `agent-${agentId}` }),
    PreModelSwitch: () => switchFields,
    PostModelSwitch: () => switchFields,
    DirectoryAdded: () => ({ directory: join(cwd, 'sub'), source: o.source ?? 'register_repo_root' }),
  };
  const extra = ownValue(fields, eventName)?.() ?? {};
  return { ...base, ...extra, ...(o.fields ?? {}) };
}

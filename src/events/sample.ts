import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { HookPayload } from './types.js';

/**
 * Realistic payloads for `hookd emit`, `explain` and the demo, shaped like the ones the real Droid CLI
 * 0.225.2 sends (fixtures/droid-0.225.2). Overrides replace or add top-level fields.
 */
export interface SampleOptions {
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

function toolInput(tool: string, o: SampleOptions, cwd: string): Record<string, unknown> {
  switch (tool) {
    case 'Execute':
    case 'Bash':
      return { command: o.command ?? 'echo hi', summary: 'Run a shell command', riskLevel: 'low' };
    case 'Create':
    case 'Write':
      return { file_path: o.filePath ?? join(cwd, 'hook-demo.txt'), content: 'hello\n' };
    case 'Edit':
      return { file_path: o.filePath ?? join(cwd, 'src/index.ts'), old_str: 'a', new_str: 'b' };
    case 'Read':
      return { file_path: o.filePath ?? join(cwd, 'README.md') };
    case 'Task':
      return {
        subagent_type: 'worker',
        description: 'Tiny sub task',
        prompt: 'Reply with a one-line report.',
      };
    default:
      return {};
  }
}

export function samplePayload(eventName: string, o: SampleOptions = {}): HookPayload {
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
      extra = { tool_name: tool, tool_input: toolInput(tool, o, cwd) };
      break;
    case 'PostToolUse':
      extra = {
        tool_name: tool,
        tool_input: toolInput(tool, o, cwd),
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

/**
 * What an agent event means, beyond its name: the facts observed from the real Claude Code 2.1.330
 * (spec/hook-protocol-claude.md) and their Droid counterparts, in one place. The rules, the noise
 * control, the enricher and the ledger ask these questions here, and a later session-state machine
 * should too. Pure functions over the payload; no imports, so the hook path may use them.
 */

/** The part of an event these facts read (a HookEvent fits). */
export interface EventLike {
  name: string;
  payload: Record<string, unknown>;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** The sub-agent a Claude event comes from: `agent_id` (+ `agent_type`) beside the parent's session_id. */
export function subagentOf(event: EventLike): { agentId: string; agentType: string } | undefined {
  const agentId = text(event.payload.agent_id);
  if (!agentId) return undefined;
  return { agentId, agentType: typeof event.payload.agent_type === 'string' ? event.payload.agent_type : '' };
}

/**
 * True when the event itself says it comes from a sub-agent: Claude's sub-agents run in-process and
 * their hooks carry the parent's `session_id` plus `agent_id` (SubagentStart, SubagentStop, and the
 * sub-agent's own tool events); Droid's sub-agents are sessions of their own whose SessionStart names
 * the `calling_session_id` (their later events say nothing: remember the session, as noise.ts does).
 */
export function isSubagentEvent(event: EventLike): boolean {
  return subagentOf(event) !== undefined || text(event.payload.calling_session_id) !== undefined;
}

/**
 * Claude's `/compact` runs two internal forks that end in a SubagentStop with an empty `agent_type`
 * and no SubagentStart or transcript: not a sub-agent anyone started.
 */
export function isCompactionFork(event: EventLike): boolean {
  return event.name === 'SubagentStop' && subagentOf(event)?.agentType === '';
}

const TASK_NOTIFICATION = /^\s*<task-notification>/;

/** True for a prompt that is a `<task-notification>` block: a background task reporting, not a person. */
export function isTaskNotification(prompt: unknown): boolean {
  return typeof prompt === 'string' && TASK_NOTIFICATION.test(prompt);
}

/**
 * Where a UserPromptSubmit's prompt came from: `person`, or `task-notification` when Claude Code feeds
 * a finished background task (a sub-agent run in the background) back as a prompt. Undefined for other
 * events.
 */
export function promptOrigin(event: EventLike): 'person' | 'task-notification' | undefined {
  if (event.name !== 'UserPromptSubmit') return undefined;
  return isTaskNotification(event.payload.prompt) ? 'task-notification' : 'person';
}

/** True for a UserPromptSubmit typed by a person (not a `<task-notification>`). */
export function isHumanPrompt(event: EventLike): boolean {
  return promptOrigin(event) === 'person';
}

/** A background task a Claude Stop reports as still running. */
export interface BackgroundTask {
  id?: string;
  type?: string;
  status?: string;
  description?: string;
}

const DONE_STATUSES = new Set(['completed', 'failed', 'killed', 'cancelled', 'canceled', 'stopped', 'done']);

/**
 * The background tasks still running when a Claude Stop (or SubagentStop) fired: `background_tasks`
 * entries whose `status` is not a finished one (observed: `running`). Empty for other events and for
 * Droid. A Stop with running background tasks is a pause, not the end of the work: their completion
 * comes back as a `<task-notification>` prompt and a later Stop. A background sub-agent's own
 * SubagentStop lists itself as still running (observed in the TUI run): that entry is left out.
 */
export function backgroundTasksRunning(event: EventLike): BackgroundTask[] {
  if (event.name !== 'Stop' && event.name !== 'SubagentStop') return [];
  const tasks = event.payload.background_tasks;
  if (!Array.isArray(tasks)) return [];
  const running: BackgroundTask[] = [];
  const self = text(event.payload.agent_id);
  for (const task of tasks) {
    if (typeof task !== 'object' || task === null) continue;
    const t = task as Record<string, unknown>;
    const status = text(t.status);
    if ((status && DONE_STATUSES.has(status)) || (self !== undefined && t.id === self)) continue;
    running.push({
      ...(text(t.id) ? { id: text(t.id) } : {}),
      ...(text(t.type) ? { type: text(t.type) } : {}),
      ...(status ? { status } : {}),
      ...(text(t.description) ? { description: text(t.description) } : {}),
    });
  }
  return running;
}

/**
 * How a turn failed: Claude's StopFailure (the turn ended on an API error) with its `error` kind
 * (rate_limit, overloaded, authentication_failed, ..., unknown) and the `last_assistant_message`
 * (`API Error: 400 ...`). Undefined for every other event.
 */
export function failureOf(event: EventLike): { error: string; message?: string } | undefined {
  if (event.name !== 'StopFailure') return undefined;
  const message = text(event.payload.last_assistant_message);
  return { error: text(event.payload.error) ?? 'unknown', ...(message ? { message } : {}) };
}

/**
 * The tool a permission prompt is about: PermissionRequest names it (`tool_name`); Claude's
 * Notification `permission_prompt` says "Claude needs your permission to use Write" (stream-json) or
 * only "Claude needs your permission" (the interactive UI: undefined).
 */
export function permissionTool(event: EventLike): string | undefined {
  if (event.name === 'PermissionRequest') return text(event.payload.tool_name);
  return text(event.payload.message)?.match(/permission to use ([\w.:-]+)/i)?.[1];
}

/** True for the events that ask the person for a permission: PermissionRequest and Notification permission_prompt. */
export function isPermissionAsk(event: EventLike): boolean {
  return (
    event.name === 'PermissionRequest' ||
    (event.name === 'Notification' && event.payload.notification_type === 'permission_prompt')
  );
}

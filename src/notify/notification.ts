import {
  backgroundTasksRunning,
  failureOf,
  permissionTool,
  promptOrigin,
  subagentOf,
} from '../events/claude-facts.js';
import type { CommandOutcome, HookEvent } from '../events/types.js';
import { type TemplateContext } from './template.js';
import { formatDuration } from '../util/text/format-duration.js';
import { ownValue } from '../util/own.js';
import { str } from '../util/json-values.js';
import { failed } from '../events/failed.js';
import { PLATFORM_WATCH_EVENT } from '../events/names.js';

export type Urgency = 'low' | 'normal' | 'critical';

/** A notification after rules and templates: what every channel formats in its own way. */
export interface RenderedNotification {
  title: string;
  body: string;
  urgency: Urgency;
  sound?: boolean | string;
  /** The rule that made it. */
  rule: string;
  /** The event name (Stop, Notification...), and the event ids it stands for (several when coalesced). */
  event: string;
  eventIds: string[];
  count: number;
  sessionId?: string;
  project?: string;
  cwd?: string;
  durationMs?: number;
  /** Unix ms of the (first) event. */
  at: number;
  /** Short labelled facts for channels that show fields (Slack, webhook). */
  fields: { label: string; value: string }[];
  /** The session's state after the event (channels that keep one message per session show it). */
  session?: SessionSnapshot;
  /**
   * Not a rule's notification (absent): `update`, the session's state changed (one message per session);
   * `summary`, its final summary; `resolved`, a "waiting" notification already shown was answered.
   */
  kind?: 'update' | 'summary' | 'resolved';
  /** For `resolved`: the delivery shown, and what its channel said to find it again (its `ref`). */
  resolves?: { deliveryId: string; ref: string; by: string };
}

/** A session's state as notifications carry it (docs/sessions.md). */
export interface SessionSnapshot {
  phase: 'starting' | 'working' | 'waiting' | 'done' | 'failed' | 'interrupted' | 'ended';
  waitingFor?: 'permission' | 'question' | 'idle';
  failure?: string;
  startedAt: number;
  since: number;
}

/** Text for a rule without its own title/body; the enrichment module may provide a richer one. */
export type DefaultText = (
  event: HookEvent,
  enrichment: Record<string, unknown>,
) => { title: string; body: string } | undefined;

export interface EventFacts {
  project?: string;
  projectDir?: string;
  durationMs?: number;
  sessionKind: 'main' | 'subagent';
  commandsFailed: number;
}

function basename(dir: string): string {
  const trimmed = dir.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1) || trimmed;
}

export function projectDirOf(event: HookEvent): string | undefined {
  return event.projectDir ?? event.cwd ?? str(event.payload.cwd);
}

/** The values templates can use: event fields, payload shortcuts, facts and the enrichment. */
export function buildTemplateContext(
  event: HookEvent,
  enrichment: Record<string, unknown>,
  facts: EventFacts,
  results: readonly CommandOutcome[] = [],
): TemplateContext {
  const p = event.payload;
  const failures = results.filter((r) => failed(r, r.blocking));
  const core: TemplateContext = {
    event: {
      name: event.name,
      id: event.id,
      agent: event.agent,
      sessionId: event.sessionId,
      cwd: event.cwd,
      receivedAt: event.receivedAt,
    },
    payload: p,
    project: facts.project,
    projectDir: facts.projectDir,
    cwd: event.cwd,
    sessionId: event.sessionId,
    sessionKind: facts.sessionKind,
    message: str(p.message),
    notificationType: str(p.notification_type),
    tool: str(p.tool_name),
    reason: str(p.reason),
    taskName: str(p.task_name),
    taskResult: str(p.task_result),
    lastAssistantMessage: str(p.last_assistant_message),
    // Claude facts (src/events/claude-facts.ts).
    failure: failureOf(event),
    subagent: subagentOf(event),
    promptFrom: promptOrigin(event),
    backgroundTasks: backgroundTasksRunning(event).length || undefined,
    permissionTool: permissionTool(event),
    durationMs: facts.durationMs,
    duration: facts.durationMs === undefined ? undefined : formatDuration(facts.durationMs),
    commands: {
      total: results.length,
      failed: failures.length,
      failedNames: failures.map((r) => r.name).join(', '),
    },
    count: 1,
  };
  const out: TemplateContext = { ...enrichment };
  for (const [key, value] of Object.entries(core)) if (value !== undefined || !(key in out)) out[key] = value;
  if (out.lastMessage === undefined && core.lastAssistantMessage) out.lastMessage = core.lastAssistantMessage;
  return out;
}

const NOTIFICATION_LABELS: Record<string, string> = {
  permission_prompt: 'needs your permission',
  idle_prompt: 'waiting for your input',
  elicitation_dialog: 'has a question',
  auth_success: 'signed in',
};

/** hookd's own wording, used when neither the rule nor the enrichment module provides one. */
export function builtInText(context: TemplateContext): { title: string; body: string } {
  const event = (context.event as { name: string }).name;
  const project = (context.project as string | undefined) ?? 'agent';
  const session = (context.session as { title?: unknown } | undefined)?.title;
  const sessionTitle = typeof session === 'string' ? session : undefined;
  const last = (context.lastMessage as string | undefined) ?? undefined;
  const truncate = (text: string | undefined, max: number) =>
    text && text.length > max ? `${text.slice(0, max - 1)}…` : text;
  const lines = (...parts: (string | undefined)[]) => parts.filter((x) => x).join('\n');
  switch (event) {
    case 'Notification': {
      const type = context.notificationType as string | undefined;
      const label = (type && ownValue(NOTIFICATION_LABELS, type)) ?? 'needs you';
      return {
        title: `${project}: ${label}`,
        body: lines(sessionTitle, context.message as string | undefined),
      };
    }
    case 'PermissionRequest':
      return {
        title: `${project}: needs your permission`,
        body: lines(sessionTitle, context.tool ? `to use ${String(context.tool)}` : undefined),
      };
    case 'StopFailure': {
      const failure = context.failure as { error: string; message?: string } | undefined;
      return {
        title: `${project}: failed (${failure?.error ?? 'unknown'})`,
        body: lines(sessionTitle, truncate(failure?.message, 300)),
      };
    }
    case 'Stop':
      return {
        title: `${project}: finished`,
        body:
          lines(sessionTitle, truncate(last, 300)) ||
          `Finished${context.duration ? ` after ${context.duration}` : ''}.`,
      };
    case 'SubagentStop':
      return {
        title: `${project}: sub-agent finished`,
        body: lines(
          context.taskName as string | undefined,
          truncate(context.taskResult as string | undefined, 300),
        ),
      };
    case 'SessionEnd':
      return {
        title: `${project}: session ended`,
        body: lines(
          sessionTitle,
          `Reason: ${String(context.reason ?? 'unknown')}`,
          context.duration ? `Duration: ${String(context.duration)}` : undefined,
        ),
      };
    case PLATFORM_WATCH_EVENT: {
      const payload = context.payload as Record<string, unknown> | undefined;
      const title = typeof payload?.title === 'string' ? payload.title : 'platform';
      return { title, body: (context.message as string | undefined) ?? '' };
    }
    default:
      return {
        title: `${project}: ${event}${context.tool ? ` ${String(context.tool)}` : ''}`,
        body: lines(sessionTitle, context.message as string | undefined),
      };
  }
}

export { basename as folderName };

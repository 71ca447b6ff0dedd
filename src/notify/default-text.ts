import { formatDuration } from '../util/text/format-duration.js';
import { failureOf, permissionTool } from '../events/claude-facts.js';
import type { HookEvent } from '../events/types.js';
import { excerpt } from '../enrich/excerpt.js';
import type { Enrichment, TokenCounts } from '../enrich/types.js';
import { positive, str } from '../util/json-values.js';

/** A notification's text before any channel formats it. */
export interface NotificationText {
  title: string;
  body: string;
}

/** `12.3k tokens`, `1.2M tokens`, `950 tokens`. */
export function formatTokens(tokens: TokenCounts | undefined): string | undefined {
  if (!tokens || tokens.total <= 0) return undefined;
  const n = tokens.total;
  const short =
    n >= 1_000_000
      ? `${(n / 1_000_000).toFixed(1)}M`
      : n >= 1000
        ? `${(n / 1000).toFixed(1)}k`
        : String(Math.round(n));
  return `${short.replace('.0', '')} tokens`;
}

/** `3.25 credits`; none when zero or unknown. */
export function formatCredits(credits: number | undefined): string | undefined {
  if (credits === undefined || !(credits > 0)) return undefined;
  const rounded =
    credits >= 100 ? credits.toFixed(0) : credits >= 1 ? credits.toFixed(2) : credits.toPrecision(2);
  const trimmed = rounded.includes('.') ? rounded.replace(/0+$/, '').replace(/\.$/, '') : rounded;
  return `${trimmed} credit${credits === 1 ? '' : 's'}`;
}

/**
 * The duration a notification states, the same in its text and in its fields: a Stop's turn time when
 * the agent reports one (a Droid sub-agent's Stop says 0: unknown), else the session's duration so far;
 * none for a SubagentStop, whose session is the parent's.
 */
export function notificationDurationMs(
  event: HookEvent,
  session: { turnDurationMs?: unknown; durationMs?: unknown } = {},
): number | undefined {
  // A SubagentStop belongs to the parent session: its duration so far is not the sub-agent's.
  if (event.name === 'SubagentStop') return undefined;
  const p = event.payload;
  return (
    positive(session.turnDurationMs) ??
    (event.name === 'Stop' ? positive(p.elapsed_time) : undefined) ??
    positive(session.durationMs) ??
    positive(p.session_duration_ms)
  );
}

/** `105 tokens (15 in sub-agents)`: the total says when it includes sub-agents the ledger lists apart. */
function tokensText(session: Enrichment['session']): string | undefined {
  const all = formatTokens(session.tokens);
  const own = session.ownTokens?.total;
  if (!all || own === undefined || !session.tokens || session.tokens.total <= own) return all;
  return `${all} (${Math.round(session.tokens.total - own)} in sub-agents)`;
}

/** `4m12s · 12.3k tokens · 3.25 credits`, from what is known. */
function statsLine(e: Enrichment, durationMs: number | undefined): string | undefined {
  const parts = [
    durationMs !== undefined && durationMs > 0 ? formatDuration(durationMs) : undefined,
    tokensText(e.session),
    formatCredits(e.session.credits),
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(' · ') : undefined;
}

/** `in demo (main)`. */
function where(e: Enrichment): string | undefined {
  const name = e.session.projectName;
  if (!name) return undefined;
  return e.session.branch ? `${name} (${e.session.branch})` : name;
}

function lines(...parts: Array<string | undefined>): string {
  return parts.filter((p): p is string => Boolean(p)).join('\n');
}

function titled(prefix: string, title: string | undefined, project: string | undefined): string {
  if (title && project) return `${prefix}: ${title} in ${project}`;
  if (title) return `${prefix}: ${title}`;
  return project ? `${prefix} in ${project}` : prefix;
}

/** What a tool call is about, in one line: the command, the file or the description. */
function toolInputLine(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const i = input as Record<string, unknown>;
  const line = str(i.command) ?? str(i.file_path) ?? str(i.description) ?? str(i.url) ?? str(i.pattern);
  return line ? excerpt(line, 160) : undefined;
}

/**
 * The default notification texts, used when a rule has no template of its own:
 * - Stop: "Finished: <title> in <project>", the last message's excerpt, duration · tokens · credits
 *   (a sub-agent's own Stop: "Sub-agent finished: <title>");
 * - SubagentStop: "Sub-agent finished: <task>", the result (or error) excerpt;
 * - Notification: "Needs your permission: <tool>" (permission_prompt), "Waiting for your input"
 *   (idle_prompt), else "Needs your attention", each with the project;
 * - PermissionRequest (Claude): "Needs your permission: <tool>", the command or file it is about;
 * - StopFailure (Claude): "Failed: <title> in <project>", the error kind and the agent's last message;
 * - SessionEnd: "Session ended: <reason>", title, project, duration, messages, tokens and credits;
 * - anything else: the event name and the project.
 * Handles Claude Code's `last_assistant_message` (through the enrichment) and Notification `title`.
 */
export function defaultNotificationText(event: HookEvent, enrichment: Enrichment): NotificationText {
  const p = event.payload;
  const s = enrichment.session;
  const project = where(enrichment);
  const message = enrichment.lastMessageExcerpt;
  switch (event.name) {
    case 'Stop': {
      const duration = notificationDurationMs(event, s);
      if (s.isSubagent) {
        return {
          title: `Sub-agent finished: ${s.title ?? 'task'}`,
          body: lines(message, statsLine(enrichment, duration)),
        };
      }
      return {
        title: titled('Finished', s.title, project),
        body: lines(message, statsLine(enrichment, duration)),
      };
    }
    case 'SubagentStop': {
      const task = enrichment.task;
      const name = task?.name ?? 'task';
      if (task?.error && !task.result) {
        return {
          title: `Sub-agent failed: ${name}`,
          body: lines(excerpt(task.error, 280), project && `in ${project}`),
        };
      }
      return { title: `Sub-agent finished: ${name}`, body: lines(message, project && `in ${project}`) };
    }
    case 'PermissionRequest':
      return {
        title: `Needs your permission: ${permissionTool(event) ?? 'a tool'}`,
        body: lines(
          s.title && project ? `${s.title} in ${project}` : (s.title ?? (project && `in ${project}`)),
          toolInputLine(p.tool_input),
        ),
      };
    case 'StopFailure': {
      const failure = failureOf(event);
      return {
        title: titled('Failed', s.title, project),
        body: lines(
          `Error: ${failure?.error ?? 'unknown'}`,
          failure?.message ? excerpt(failure.message, 280) : undefined,
        ),
      };
    }
    case 'Notification': {
      const type = str(p.notification_type);
      const context = lines(
        s.title && project ? `${s.title} in ${project}` : (s.title ?? (project && `in ${project}`)),
      );
      if (type === 'permission_prompt') {
        return {
          title: `Needs your permission: ${enrichment.pendingTool ?? 'a tool'}`,
          body: lines(context, str(p.message)),
        };
      }
      if (type === 'idle_prompt') return { title: 'Waiting for your input', body: lines(context, message) };
      return { title: str(p.title) ?? 'Needs your attention', body: lines(context, str(p.message)) };
    }
    case 'SessionEnd': {
      const count = s.messageCount !== undefined ? `${s.messageCount} messages` : undefined;
      const stats = [statsLine(enrichment, notificationDurationMs(event, s)), count]
        .filter(Boolean)
        .join(' · ');
      return {
        title: `Session ended: ${str(p.reason) ?? 'unknown reason'}`,
        body: lines(
          s.title && project ? `${s.title} in ${project}` : (s.title ?? project),
          stats || undefined,
        ),
      };
    }
    default:
      return { title: project ? `${event.name} in ${project}` : event.name, body: lines(s.title, message) };
  }
}

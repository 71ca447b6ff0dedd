import { createHash } from 'node:crypto';
import type { CommandOutcome, HookEvent } from '../events/types.js';
import { effectiveRules, type NotifyConfig, type NotifyRule } from '../config/schemas/notify-schema.js';
import {
  backgroundTasksRunning,
  isPermissionAsk,
  isSubagentEvent,
  permissionTool,
  promptOrigin,
} from '../events/claude-facts.js';
import { matchesProject } from './glob.js';
import { isIdlePrompt, notifiedPermissionAsk, type NoiseState } from './noise.js';
import { breaksQuietHours, quietStateAt } from './quiet-hours.js';
import { isWaitingAsk } from './session-state.js';
import type { LadderStep } from './escalation.js';
import { renderTemplate } from './template.js';
import { formatAgo, formatDuration } from '../util/text/format-duration.js';
import { notificationDurationMs } from './default-text.js';
import { failed } from '../events/failed.js';
import { PLATFORM_WATCH_EVENT } from '../events/names.js';
import {
  buildTemplateContext,
  builtInText,
  folderName,
  projectDirOf,
  type DefaultText,
  type EventFacts,
  type RenderedNotification,
} from './notification.js';

/** A rule that fired for an event: its notification and where it goes. */
export interface FiredRule {
  rule: string;
  index: number;
  channels: string[];
  notification: RenderedNotification;
  dedupeKey: string;
  cooldownKey?: string;
  /** The event is one the config coalesces in bursts (SubagentStop by default). */
  coalesce: boolean;
  /** Set for a PermissionRequest: its permission_prompt Notification will not be notified again by this rule. */
  permissionAsk?: { rule: string; tool?: string };
  /** Set when quiet hours hold the notification back until `quietEndsAt` (then sent in a digest). */
  deferred?: 'quiet hours';
  quietEndsAt?: number;
  /** Urgent: urgency critical, or a failure (StopFailure, a session ended mid-turn). */
  urgent: boolean;
  /** Goes through quiet hours (the rule's `breakthrough`, else urgent and quietHours.allowUrgent). */
  breakthrough: boolean;
  /** The rule's escalation ladder (docs/sessions.md#escalation-ladders), durations in ms. */
  escalate?: LadderStep[];
  /** Whether presence changes where it goes now: the rule's, else auto for a "waiting" notification. */
  presence: 'auto' | 'ignore';
}

export interface SkippedRule {
  rule: string;
  index: number;
  /** Why, for people: "filter: tool Edit does not match Execute", "cooldown: ...", "dedupe: ...". */
  reason: string;
}

export interface RuleEvaluation {
  fired: FiredRule[];
  skipped: SkippedRule[];
  facts: EventFacts;
  /** True when the built-in default rules were used (no rules in the config). */
  builtInRules: boolean;
}

export interface EvaluateOptions {
  /** Home dir for `~` in project globs. */
  home?: string;
  /** Text for rules without title/body (the enrichment module's richer wording). */
  defaultText?: DefaultText;
  /** The hook commands' outcomes, for `commandsFailed` and templates. */
  results?: readonly CommandOutcome[];
  /** The event failed the session (StopFailure, a SessionEnd mid-turn): its notifications are urgent. */
  sessionFailed?: boolean;
}

export { effectiveRules };

function list(value: string | string[] | undefined): string[] | undefined {
  return value === undefined ? undefined : Array.isArray(value) ? value : [value];
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Matcher semantics of the agent: empty or "*" match all, else exact, else an unanchored RegExp. */
function matchesTool(pattern: string, tool: string): boolean {
  if (pattern === '' || pattern === '*' || pattern === tool) return true;
  try {
    return new RegExp(pattern).test(tool);
  } catch {
    return false;
  }
}

/** Duration, main/sub-agent, project and failures: what filters and templates need about an event. */
export function eventFacts(
  event: HookEvent,
  enrichment: Record<string, unknown>,
  noise: NoiseState,
  now: number,
  results: readonly CommandOutcome[] = [],
): EventFacts {
  const session = (enrichment.session ?? {}) as Record<string, unknown>;
  const known = event.sessionId ? noise.sessions.get(event.sessionId) : undefined;
  let durationMs = notificationDurationMs(event, session) ?? num(enrichment.durationMs);
  if (durationMs === undefined && known?.startedAt !== undefined && event.name !== 'SubagentStop')
    durationMs = Math.max(0, now - known.startedAt);
  // The event's own word first (Claude's agent_id, Droid's calling_session_id), then the enrichment's
  // (a Claude sub-agent's events carry its parent's session, whose enrichment says "main").
  const subagent =
    isSubagentEvent(event) ||
    session.isSubagent === true ||
    (session.isSubagent !== false && known?.parent !== undefined);
  const projectDir = projectDirOf(event);
  const project =
    (typeof session.projectName === 'string' && session.projectName) ||
    (typeof enrichment.project === 'string' && enrichment.project) ||
    (projectDir ? folderName(projectDir) : undefined);
  return {
    ...(project ? { project } : {}),
    ...(projectDir ? { projectDir } : {}),
    ...(durationMs !== undefined ? { durationMs } : {}),
    sessionKind: subagent ? 'subagent' : 'main',
    commandsFailed: results.filter((r) => failed(r, r.blocking)).length,
  };
}

/** Why a rule's filters reject the event, or undefined when they all pass. */
function filterRejection(
  rule: NotifyRule,
  event: HookEvent,
  facts: EventFacts,
  home?: string,
): string | undefined {
  const p = event.payload;
  const on = list(rule.on)!;
  if (!on.includes(event.name) && !on.includes('*'))
    return `filter: event ${event.name} is not one of ${on.join(', ')}`;
  // Claude semantics for rules that name the event (a "*" rule gets every event as it is).
  if (on.includes(event.name)) {
    const running = backgroundTasksRunning(event);
    if (event.name === 'Stop' && running.length > 0)
      return `held: Stop with ${running.length} background task(s) still running (${running
        .map((t) => t.description ?? t.id ?? t.type ?? 'task')
        .join(', ')}): the turn paused, the work is not finished; the Stop after them notifies`;
    if (promptOrigin(event) === 'task-notification')
      return 'filter: the prompt is a <task-notification> (a background task reporting back), not typed by a person';
  }
  const types = list(rule.notificationType);
  if (types) {
    const type = typeof p.notification_type === 'string' ? p.notification_type : '(none)';
    if (!types.includes(type)) return `filter: notification_type ${type} is not one of ${types.join(', ')}`;
  }
  if (rule.tool !== undefined) {
    const tool = typeof p.tool_name === 'string' ? p.tool_name : undefined;
    if (tool === undefined) return `filter: event has no tool (rule wants ${rule.tool})`;
    if (!matchesTool(rule.tool, tool)) return `filter: tool ${tool} does not match ${rule.tool}`;
  }
  const projects = list(rule.project);
  if (projects) {
    const dir = facts.projectDir;
    if (!dir) return 'filter: event has no cwd to match project against';
    if (
      !projects.some((glob) => matchesProject(glob, dir, home)) &&
      !(event.cwd && projects.some((g) => matchesProject(g, event.cwd!, home)))
    )
      return `filter: project ${dir} does not match ${projects.join(', ')}`;
  }
  if (
    rule.minDurationMs !== undefined &&
    facts.durationMs !== undefined &&
    facts.durationMs < rule.minDurationMs
  )
    return `filter: duration ${Math.round(facts.durationMs)}ms is under minDurationMs ${rule.minDurationMs}`;
  if (rule.session !== 'any' && rule.session !== facts.sessionKind)
    return `filter: session is a ${facts.sessionKind === 'main' ? 'main session' : 'sub-agent'} (rule wants ${rule.session})`;
  const reasons = list(rule.reason);
  if (reasons) {
    const reason = typeof p.reason === 'string' ? p.reason : '(none)';
    if (!reasons.includes(reason)) return `filter: reason ${reason} is not one of ${reasons.join(', ')}`;
  }
  if (rule.commandsFailed !== undefined && rule.commandsFailed !== facts.commandsFailed > 0)
    return rule.commandsFailed ? 'filter: no hook command failed' : 'filter: a hook command failed';
  return undefined;
}

function safeDefaultText(
  defaultText: DefaultText | undefined,
  event: HookEvent,
  enrichment: Record<string, unknown>,
): { title: string; body: string } | undefined {
  try {
    return defaultText?.(event, enrichment);
  } catch {
    return undefined;
  }
}

/**
 * Decides, without side effects, which rules fire for an event and why the others do not.
 * The caller records what it sends in the noise state (recordSent) and handles coalescing and quiet hours.
 */
export function evaluateRules(
  event: HookEvent,
  enrichment: Record<string, unknown>,
  config: NotifyConfig,
  noise: NoiseState,
  now: number,
  options: EvaluateOptions = {},
): RuleEvaluation {
  const results = options.results ?? [];
  const facts = eventFacts(event, enrichment, noise, now, results);
  const { rules, builtIn } = effectiveRules(config);
  const fired: FiredRule[] = [];
  const skipped: SkippedRule[] = [];
  const quiet = quietStateAt(now, config.quietHours);
  const context = buildTemplateContext(event, enrichment, facts, results);
  rules.forEach((rule, index) => {
    const name = rule.name ?? `rule-${index}`;
    const skip = (reason: string) => skipped.push({ rule: name, index, reason });
    if (!config.enabled) return skip('notify.enabled is false');
    if (!rule.enabled) return skip('rule disabled (enabled: false)');
    const rejection = filterRejection(rule, event, facts, options.home);
    if (rejection) return skip(rejection);
    // A watcher's event carries its own words; the enrichment's wording is about agent sessions.
    const fallback =
      rule.title === undefined || rule.body === undefined
        ? ((event.name === PLATFORM_WATCH_EVENT
            ? undefined
            : safeDefaultText(options.defaultText, event, enrichment)) ?? builtInText(context))
        : undefined;
    const title = rule.title !== undefined ? renderTemplate(rule.title, context) : fallback!.title;
    const body = rule.body !== undefined ? renderTemplate(rule.body, context) : fallback!.body;
    const dedupeKey = createHash('sha1').update(`${name}\u0000${title}\u0000${body}`).digest('hex');
    const dedupeWindowMs = rule.dedupeWindowMs ?? config.noise.dedupeWindowMs;
    const lastSent = noise.sent.get(dedupeKey);
    if (dedupeWindowMs > 0 && lastSent !== undefined && now - lastSent < dedupeWindowMs)
      return skip(
        `dedupe: identical notification sent ${formatAgo(now - lastSent)} (window ${dedupeWindowMs}ms)`,
      );
    const cooldownMs = rule.cooldownMs ?? config.noise.cooldownMs;
    const cooldownKey = event.sessionId ? `${name}\u0000${event.sessionId}` : undefined;
    const lastFired = cooldownKey ? noise.cooldowns.get(cooldownKey) : undefined;
    if (cooldownMs > 0 && lastFired !== undefined && now - lastFired < cooldownMs)
      return skip(
        `cooldown: this rule fired for the session ${formatAgo(now - lastFired)} (cooldown ${cooldownMs}ms)`,
      );
    const repeated = notifiedPermissionAsk(noise, event, name, now);
    if (repeated)
      return skip(
        `duplicate: this rule notified the PermissionRequest${repeated.tool ? ` for ${repeated.tool}` : ''} of this session ${formatAgo(now - repeated.at)}; this permission_prompt is the same request`,
      );
    if (
      isIdlePrompt(event) &&
      !config.noise.repeatIdlePrompts &&
      event.sessionId &&
      noise.idleNotified.has(event.sessionId)
    )
      return skip('idle repeat: this idle prompt was already notified; waiting for activity in the session');
    const urgency = rule.urgency ?? 'normal';
    const notification: RenderedNotification = {
      title: title || `${facts.project ?? 'agent'}: ${event.name}`,
      body,
      urgency,
      ...(rule.sound !== undefined ? { sound: rule.sound } : {}),
      rule: name,
      event: event.name,
      eventIds: [event.id],
      count: 1,
      ...(event.sessionId ? { sessionId: event.sessionId } : {}),
      ...(facts.project ? { project: facts.project } : {}),
      ...(event.cwd ? { cwd: event.cwd } : {}),
      ...(facts.durationMs !== undefined ? { durationMs: facts.durationMs } : {}),
      at: event.receivedAt,
      fields: notificationFields(facts, event),
    };
    const urgent = urgency === 'critical' || event.name === 'StopFailure' || options.sessionFailed === true;
    const breakthrough = breaksQuietHours(rule.breakthrough, urgent, config.quietHours);
    const deferred = quiet.quiet && !breakthrough;
    fired.push({
      rule: name,
      index,
      channels: [...rule.channels],
      notification,
      dedupeKey,
      ...(cooldownKey && cooldownMs > 0 ? { cooldownKey } : {}),
      coalesce: config.noise.coalesceEvents.includes(event.name),
      ...(event.name === 'PermissionRequest' && isPermissionAsk(event)
        ? {
            permissionAsk: { rule: name, ...(permissionTool(event) ? { tool: permissionTool(event)! } : {}) },
          }
        : {}),
      ...(deferred ? { deferred: 'quiet hours' as const, quietEndsAt: quiet.endsAt! } : {}),
      urgent,
      breakthrough,
      ...(rule.escalate
        ? {
            escalate: rule.escalate.map((step) => ({
              afterMs: step.after,
              channels: [...step.channels],
              ...(step.repeat !== undefined ? { repeatMs: step.repeat } : {}),
              ...(step.maxRepeats !== undefined ? { maxRepeats: step.maxRepeats } : {}),
            })),
          }
        : {}),
      presence: rule.presence ?? (isWaitingAsk(event) ? 'auto' : 'ignore'),
    });
  });
  return { fired, skipped, facts, builtInRules: builtIn };
}

function notificationFields(facts: EventFacts, event: HookEvent): { label: string; value: string }[] {
  const fields: { label: string; value: string }[] = [];
  if (facts.project) fields.push({ label: 'Project', value: facts.project });
  if (facts.durationMs !== undefined)
    fields.push({ label: 'Duration', value: formatDuration(facts.durationMs) });
  if (event.sessionId) fields.push({ label: 'Session', value: event.sessionId.slice(0, 8) });
  fields.push({ label: 'Event', value: event.name });
  return fields;
}

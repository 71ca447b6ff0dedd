import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { CommandOutcome, EventHandoff } from '../events/types.js';
import { failed } from '../events/failed.js';
import { redactText } from '../logging/redact.js';
import type { Delivery } from '../notify/records.js';
import { str } from '../util/json-values.js';
import type { OtlpExporter } from './exporter.js';
import { newSpanId } from './ids.js';
import { SEVERITY, SPAN_KIND, STATUS, type Attributes } from './signals.js';

/** The journal records of a delivery's life that telemetry reports. */
export type DeliveryRecord =
  | { t: 'add'; d: Delivery }
  | { t: 'ok'; id: string; at: number }
  | { t: 'fail'; id: string; attempts: number; error: string }
  | { t: 'dead'; id: string; at: number; error: string };

/** Token and cost figures of one session, as the agent's own telemetry reported them (the receiver). */
export interface SessionUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  costUsd?: number;
  models: string[];
}

export interface DaemonTelemetryOptions {
  exporter: OtlpExporter;
  includeCommandLines: boolean;
  includePrompts: boolean;
  now: () => number;
  /** What the agent's own telemetry reported for a session so far (the receiver), if anything. */
  usage?: (sessionId: string) => SessionUsage | undefined;
  /**
   * Runs the work of what was seen later, off the path of the event that brought it (default: a timer
   * of DEFER_MS). Tests hold it to show nothing waits for it.
   */
  defer?: (work: () => void) => void;
}

/** How long after an event or delivery its spans, logs and metrics are built (in one batch). */
export const DEFER_MS = 50;
/** Events and deliveries waiting to be turned into telemetry; the oldest are dropped past it. */
const MAX_PENDING = 4096;

const deferByTimer = (work: () => void) => setTimeout(work, DEFER_MS).unref();

/** Sessions, events and deliveries remembered to link spans; the oldest are forgotten past these. */
const MAX_SESSIONS = 1000;
const MAX_EVENTS = 4096;
const MAX_DELIVERIES = 4096;
/** Text from events (tool names, the project's name) is cut to this many characters. */
const MAX_TEXT = 256;

const PROVIDER: Record<string, string> = { claude: 'anthropic' };

/** A Map that forgets its oldest entries past `max`. */
class Bounded<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super();
  }
  override set(key: K, value: V): this {
    super.delete(key);
    super.set(key, value);
    if (this.size > this.max) this.delete(this.keys().next().value as K);
    return this;
  }
}

const clean = (text: string | undefined): string | undefined =>
  text === undefined ? undefined : redactText(text.slice(0, MAX_TEXT));

/** The trace of a session: every event of one session shares it (derived from the session id). */
export const sessionTraceId = (sessionId: string): string =>
  createHash('sha256').update(`hookd-session:${sessionId}`).digest('hex').slice(0, 32);

/** How a command ended, in one word (docs/telemetry.md). */
export function commandOutcome(run: CommandOutcome): string {
  if (run.spawnError !== undefined) return 'spawn_error';
  if (run.timedOut) return 'timeout';
  if (run.signal !== null) return 'signal';
  if (run.blocking && run.exitCode === 2) return 'blocked';
  return failed(run, run.blocking) ? 'failed' : 'ok';
}

/**
 * What the daemon sees, as OpenTelemetry (docs/telemetry.md): one span and one log record per event,
 * a child span per command run, a span per notification delivery, a span per session at its end, and
 * counters and duration histograms. Nothing here waits or throws: items go to the exporter's queues.
 * No prompt text or command line leaves unless the config asks, and what does goes through the redactor.
 */
export class DaemonTelemetry {
  private readonly sessions = new Bounded<
    string,
    { startMs: number; spanId: string; events: number; agent: string }
  >(MAX_SESSIONS);
  private readonly events = new Bounded<string, { traceId: string; spanId: string }>(MAX_EVENTS);
  private readonly deliveries = new Bounded<string, { channel: string; createdAt: number; eventId: string }>(
    MAX_DELIVERIES,
  );

  private pending: (() => void)[] = [];
  private scheduled = false;
  /** Events and deliveries not reported because too many waited at once. */
  skipped = 0;

  constructor(private readonly o: DaemonTelemetryOptions) {}

  /**
   * Takes an event once it is handled. Only a reference is kept here: the spans, log record and
   * metrics are built later in a batch, so the notification and the agent's answer never wait for them.
   */
  event(handoff: EventHandoff): void {
    this.later(() => this.recordEvent(handoff));
  }

  delivery(record: DeliveryRecord): void {
    this.later(() => this.recordDelivery(record));
  }

  /** Builds what is still waiting now (before the exporter's last send at stop). */
  flush(): void {
    this.scheduled = false;
    for (const work of this.pending.splice(0))
      try {
        work();
      } catch {
        // Telemetry never stops anything.
      }
  }

  private later(work: () => void): void {
    this.pending.push(work);
    if (this.pending.length > MAX_PENDING) {
      this.pending.shift();
      this.skipped += 1;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    try {
      (this.o.defer ?? deferByTimer)(() => this.flush());
    } catch {
      this.scheduled = false;
    }
  }

  private recordEvent({ event, results }: EventHandoff): void {
    const { exporter } = this.o;
    const sid = event.sessionId;
    const traceId = sessionTraceId(sid ?? event.id);
    let session = sid ? this.sessions.get(sid) : undefined;
    if (sid && !session) {
      session = { startMs: event.receivedAt, spanId: newSpanId(), events: 0, agent: event.agent };
      this.sessions.set(sid, session);
    }
    if (session) session.events += 1;
    const spanId = newSpanId();
    this.events.set(event.id, { traceId, spanId });
    const tool = clean(str(event.payload.tool_name));
    const common: Attributes = {
      'hookd.event.name': event.name,
      'gen_ai.agent.name': event.agent,
      'gen_ai.provider.name': PROVIDER[event.agent],
      'gen_ai.conversation.id': sid,
      'session.id': sid,
      'gen_ai.tool.name': tool,
    };
    const runs = results.map((run) => ({ run, outcome: commandOutcome(run) }));
    const blocked = runs.some((r) => r.outcome === 'blocked');
    const failures = runs.filter((r) => r.outcome !== 'ok' && r.outcome !== 'blocked').length;
    const endMs = event.receivedAt + Math.max(0, ...results.map((r) => r.durationMs));
    const prompt =
      this.o.includePrompts && event.name === 'UserPromptSubmit' ? str(event.payload.prompt) : undefined;
    // Only the project folder's name: its full path tells who the user is.
    const project = event.projectDir ?? event.cwd;
    const eventAttributes: Attributes = {
      ...common,
      'hookd.event.id': event.id,
      'hookd.project.name': project ? clean(basename(project)) : undefined,
      'hookd.commands': results.length,
      'hookd.commands.failed': failures,
      'hookd.blocked': blocked,
      ...(tool ? { 'gen_ai.operation.name': 'execute_tool' } : {}),
      ...(prompt !== undefined ? { 'hookd.prompt': redactText(prompt) } : {}),
    };
    exporter.record('traces', {
      traceId,
      spanId,
      ...(session ? { parentSpanId: session.spanId } : {}),
      name: `hookd ${event.name}`,
      kind: SPAN_KIND.internal,
      startMs: event.receivedAt,
      endMs,
      attributes: eventAttributes,
      status:
        failures > 0
          ? { code: STATUS.error, message: `${failures} command(s) failed` }
          : { code: STATUS.unset },
    });
    exporter.record('logs', {
      timeMs: event.receivedAt,
      severity: failures > 0 ? SEVERITY.warn : SEVERITY.info,
      severityText: failures > 0 ? 'WARN' : 'INFO',
      body: `hookd.event ${event.name}`,
      attributes: { 'event.name': 'hookd.event', ...eventAttributes },
      traceId,
      spanId,
    });
    const metric = { unit: '{event}', type: 'sum' as const, timeMs: event.receivedAt, value: 1 };
    exporter.record('metrics', {
      ...metric,
      name: 'hookd.events',
      description: 'Agent events hookd handled.',
      attributes: { 'hookd.event.name': event.name, 'gen_ai.agent.name': event.agent },
    });
    for (const { run, outcome } of runs) {
      const attributes: Attributes = {
        ...common,
        'hookd.command.name': clean(run.name),
        'hookd.command.outcome': outcome,
        'hookd.command.blocked': outcome === 'blocked',
        'hookd.command.blocking': run.blocking,
        'hookd.command.exit_code': run.exitCode ?? undefined,
        'hookd.command.origin': run.origin,
        ...(this.o.includeCommandLines ? { 'hookd.command.line': redactText(run.command) } : {}),
      };
      exporter.record('traces', {
        traceId,
        spanId: newSpanId(),
        parentSpanId: spanId,
        name: `hookd.command ${clean(run.name) ?? ''}`.trim(),
        kind: SPAN_KIND.internal,
        startMs: event.receivedAt,
        endMs: event.receivedAt + run.durationMs,
        attributes,
        status:
          outcome === 'ok' || outcome === 'blocked'
            ? { code: STATUS.ok }
            : { code: STATUS.error, message: outcome },
      });
      const series = {
        'hookd.command.name': attributes['hookd.command.name'],
        'hookd.command.outcome': outcome,
        'hookd.event.name': event.name,
      };
      exporter.record('metrics', {
        name: 'hookd.command.duration',
        unit: 'ms',
        description: 'How long hook commands ran.',
        type: 'histogram',
        timeMs: event.receivedAt,
        value: run.durationMs,
        attributes: series,
      });
      exporter.record('metrics', {
        ...metric,
        unit: '{run}',
        name: 'hookd.command.runs',
        description: 'Hook command runs, by outcome (blocked: a guard said no).',
        attributes: series,
      });
    }
    if (event.name === 'SessionEnd' && sid && session) this.endSession(sid, session, event, traceId);
  }

  private endSession(
    sid: string,
    session: { startMs: number; spanId: string; events: number; agent: string },
    event: EventHandoff['event'],
    traceId: string,
  ): void {
    this.sessions.delete(sid);
    const usage = this.o.usage?.(sid);
    const reason = clean(str(event.payload.reason)) ?? 'other';
    const attributes: Attributes = {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': session.agent,
      'gen_ai.provider.name': PROVIDER[session.agent],
      'gen_ai.conversation.id': sid,
      'session.id': sid,
      'hookd.session.outcome': reason,
      'hookd.session.events': session.events,
      ...(usage
        ? {
            'gen_ai.usage.input_tokens': usage.inputTokens,
            'gen_ai.usage.output_tokens': usage.outputTokens,
            'hookd.session.cache_read_tokens': usage.cacheReadTokens,
            'hookd.session.cache_creation_tokens': usage.cacheCreationTokens,
            'hookd.session.cost_usd': usage.costUsd,
            'gen_ai.request.model': usage.models[0],
          }
        : {}),
    };
    const endMs = event.receivedAt;
    this.o.exporter.record('traces', {
      traceId,
      spanId: session.spanId,
      name: `invoke_agent ${session.agent}`,
      kind: SPAN_KIND.internal,
      startMs: session.startMs,
      endMs,
      attributes,
    });
    this.o.exporter.record('metrics', {
      name: 'hookd.session.duration',
      unit: 'ms',
      description: 'How long agent sessions lasted, first event to SessionEnd.',
      type: 'histogram',
      timeMs: endMs,
      value: endMs - session.startMs,
      attributes: { 'gen_ai.agent.name': session.agent, 'hookd.session.outcome': reason },
    });
  }

  private recordDelivery(record: DeliveryRecord): void {
    const { exporter, now } = this.o;
    if (record.t === 'add') {
      const eventId = record.d.id.split('/')[0] ?? record.d.id;
      this.deliveries.set(record.d.id, { channel: record.d.channel, createdAt: record.d.createdAt, eventId });
      exporter.record('metrics', {
        name: 'hookd.notifications',
        unit: '{notification}',
        description: 'Notifications queued, by channel.',
        type: 'sum',
        timeMs: record.d.createdAt,
        value: 1,
        attributes: { 'hookd.channel': record.d.channel },
      });
      return;
    }
    const known = this.deliveries.get(record.id);
    if (!known) return;
    const outcome = record.t === 'ok' ? 'delivered' : record.t === 'dead' ? 'dead' : 'retrying';
    exporter.record('metrics', {
      name: 'hookd.deliveries',
      unit: '{attempt}',
      description: 'Delivery attempts, by channel and outcome.',
      type: 'sum',
      timeMs: now(),
      value: 1,
      attributes: { 'hookd.channel': known.channel, 'hookd.delivery.outcome': outcome },
    });
    if (record.t === 'fail') return;
    this.deliveries.delete(record.id);
    const parent = this.events.get(known.eventId);
    exporter.record('traces', {
      traceId: parent?.traceId ?? sessionTraceId(known.eventId),
      spanId: newSpanId(),
      ...(parent ? { parentSpanId: parent.spanId } : {}),
      name: `hookd.notify ${known.channel}`,
      kind: SPAN_KIND.client,
      startMs: known.createdAt,
      endMs: record.at,
      attributes: {
        'hookd.channel': known.channel,
        'hookd.delivery.outcome': outcome,
        'hookd.event.id': known.eventId,
        ...(record.t === 'dead' ? { 'error.type': clean(record.error) } : {}),
      },
      status: record.t === 'ok' ? { code: STATUS.ok } : { code: STATUS.error, message: 'not delivered' },
    });
  }
}

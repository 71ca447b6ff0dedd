import * as z from 'zod';
import { isObject } from '../util/json-values.js';
import type { AgentModelUsage, AgentUsage } from '../ledger/agent-usage.js';
import { attributesOf } from './otlp-decode.js';
import type { SessionUsage } from './daemon-telemetry.js';

/** Claude Code's metric and event names (verified against the 2.1.330 binary; docs/telemetry.md). */
export const CLAUDE_TOKEN_METRIC = 'claude_code.token.usage';
export const CLAUDE_COST_METRIC = 'claude_code.cost.usage';
const TOKEN_TYPES: Record<string, keyof Omit<SessionUsage, 'costUsd' | 'models'>> = {
  input: 'inputTokens',
  output: 'outputTokens',
  cacheRead: 'cacheReadTokens',
  cacheCreation: 'cacheCreationTokens',
};

/** How one usage metric names its model and its token type (a TOKEN_TYPES key, or 'cost'). */
interface UsageRule {
  modelKey: string;
  type: (attributes: Record<string, unknown>) => string;
}
const fixedType = (type: string) => (): string => type;
/**
 * The metrics that carry tokens or cost: Claude Code's two (the token type in `type`, the model in
 * `model`) and Droid 0.225.2's four delta counters (one per token type, the model in `model.id`; Droid
 * reports no cost).
 */
const USAGE_METRICS = {
  [CLAUDE_TOKEN_METRIC]: { modelKey: 'model', type: (a) => String(a.type ?? '') },
  [CLAUDE_COST_METRIC]: { modelKey: 'model', type: fixedType('cost') },
  'droid.token.input': { modelKey: 'model.id', type: fixedType('input') },
  'droid.token.output': { modelKey: 'model.id', type: fixedType('output') },
  'droid.token.cache_read': { modelKey: 'model.id', type: fixedType('cacheRead') },
  'droid.token.cache_write': { modelKey: 'model.id', type: fixedType('cacheCreation') },
} satisfies Record<string, UsageRule>;
type UsageMetric = keyof typeof USAGE_METRICS;
const USAGE_METRIC_NAMES = Object.keys(USAGE_METRICS) as [UsageMetric, ...UsageMetric[]];
const usageRule = (name: unknown): UsageRule | undefined =>
  typeof name === 'string' && Object.hasOwn(USAGE_METRICS, name)
    ? USAGE_METRICS[name as UsageMetric]
    : undefined;
const AGGREGATION_CUMULATIVE = 2;

/** Sessions whose usage is kept (the least recently updated forgotten past it), and series per session. */
export const MAX_SESSIONS = 1000;
const MAX_SERIES = 64;
/** A session id or model name is cut to this many characters (the agent's data, kept in memory). */
export const MAX_NAME = 128;

interface Series {
  metric: UsageMetric;
  model: string;
  type: string;
  /** The series' start time for a cumulative point ('' for deltas). */
  start: string;
  value: number;
}

interface Book {
  /** Per series (metric, model, type, start): the latest value, or the sum of deltas. */
  series: Map<string, Series>;
  apiErrors: number;
  toolDecisions: Record<string, number>;
  updatedAt: number;
}

/** One model's share of a session. */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  costUsd?: number;
}

export interface SessionTelemetry extends SessionUsage {
  sessionId: string;
  /** Tokens and cost per model ('' when the agent named none). */
  perModel: Record<string, ModelUsage>;
  apiErrors: number;
  toolDecisions: Record<string, number>;
  updatedAt: number;
}

const count = z.number().finite().nonnegative();
const name = z.string().max(MAX_NAME);
/** The saved book (telemetry/sessions.json): exactly what is needed to go on adding points. */
const savedSchema = z.strictObject({
  v: z.literal(2),
  sessions: z
    .array(
      z.strictObject({
        sessionId: name.min(1),
        updatedAt: count,
        apiErrors: count,
        toolDecisions: z.record(z.string().max(32), count).refine((r) => Object.keys(r).length <= 16),
        series: z
          .array(
            z.strictObject({
              metric: z.enum(USAGE_METRIC_NAMES),
              model: name,
              type: z.string().max(32),
              start: z.string().max(32),
              value: count,
            }),
          )
          .max(MAX_SERIES),
      }),
    )
    .max(MAX_SESSIONS),
});
export type SavedBook = z.infer<typeof savedSchema>;

const seriesKey = (s: Pick<Series, 'metric' | 'model' | 'type' | 'start'>) =>
  JSON.stringify([s.metric, s.model, s.type, s.start]);

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const number = (point: Record<string, unknown>): number => {
  const value = Number(point.asDouble ?? point.asInt ?? 0);
  return Number.isFinite(value) && value >= 0 ? value : 0;
};

/**
 * What an agent's own telemetry said about each session: tokens per model and type, cost, API errors
 * and tool decisions, keyed by the `session.id` attribute. Delta points add up; a cumulative point
 * replaces the last value of its series, so either temporality gives the same totals.
 */
export class UsageBook {
  private readonly books = new Map<string, Book>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * The book of a session, made when new, moved to the end of the map (the most recently updated); past
   * MAX_SESSIONS the first of the map, the least recently updated, is forgotten.
   */
  private book(sessionId: string): Book {
    const book = this.books.get(sessionId) ?? {
      series: new Map(),
      apiErrors: 0,
      toolDecisions: {},
      updatedAt: 0,
    };
    this.books.delete(sessionId);
    this.books.set(sessionId, book);
    if (this.books.size > MAX_SESSIONS) this.books.delete(this.books.keys().next().value as string);
    book.updatedAt = this.now();
    return book;
  }

  /** Takes one metrics export request (OTLP/JSON shape); returns the sessions it changed. */
  addMetrics(request: Record<string, unknown>): Set<string> {
    const changed = new Set<string>();
    for (const rm of list(request.resourceMetrics))
      for (const sm of list(isObject(rm) ? rm.scopeMetrics : undefined))
        for (const metric of list(isObject(sm) ? sm.metrics : undefined)) {
          const rule = isObject(metric) ? usageRule(metric.name) : undefined;
          if (!isObject(metric) || !rule) continue;
          const sum = isObject(metric.sum) ? metric.sum : undefined;
          const cumulative = sum?.aggregationTemporality === AGGREGATION_CUMULATIVE;
          for (const point of list(sum?.dataPoints)) {
            if (!isObject(point)) continue;
            const a = attributesOf(point.attributes);
            const sessionId = sessionOf(a);
            if (!sessionId) continue;
            const named = a[rule.modelKey];
            const model = typeof named === 'string' ? named.slice(0, MAX_NAME) : '';
            const type = rule.type(a).slice(0, 32);
            const book = this.book(sessionId);
            const start = cumulative ? String(point.startTimeUnixNano).slice(0, 32) : '';
            const series = { metric: metric.name as UsageMetric, model, type, start };
            const key = seriesKey(series);
            const entry = book.series.get(key);
            if (entry) entry.value = cumulative ? number(point) : entry.value + number(point);
            else if (book.series.size < MAX_SERIES) book.series.set(key, { ...series, value: number(point) });
            changed.add(sessionId);
          }
        }
    return changed;
  }

  /** Takes one logs export request: Claude Code's api_error and tool_decision events. */
  addLogs(request: Record<string, unknown>): Set<string> {
    const changed = new Set<string>();
    for (const rl of list(request.resourceLogs))
      for (const sl of list(isObject(rl) ? rl.scopeLogs : undefined))
        for (const record of list(isObject(sl) ? sl.logRecords : undefined)) {
          if (!isObject(record)) continue;
          const a = attributesOf(record.attributes);
          const sessionId = sessionOf(a);
          if (!sessionId) continue;
          if (a['event.name'] === 'api_error') this.book(sessionId).apiErrors += 1;
          else if (a['event.name'] === 'tool_decision') {
            const decision = String(a.decision ?? 'unknown').slice(0, 32);
            const book = this.book(sessionId);
            if (decision in book.toolDecisions || Object.keys(book.toolDecisions).length < 16)
              book.toolDecisions[decision] = (book.toolDecisions[decision] ?? 0) + 1;
          } else continue;
          changed.add(sessionId);
        }
    return changed;
  }

  /** The totals of one session, or undefined when its agent reported nothing. */
  get(sessionId: string): SessionTelemetry | undefined {
    const book = this.books.get(sessionId);
    if (!book) return undefined;
    const out: SessionTelemetry = {
      sessionId,
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
      models: [],
      perModel: {},
      apiErrors: book.apiErrors,
      toolDecisions: { ...book.toolDecisions },
      updatedAt: book.updatedAt,
    };
    const models = new Set<string>();
    for (const s of book.series.values()) {
      if (s.model) models.add(s.model);
      const share = (out.perModel[s.model] ??= {
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheCreationTokens: 0,
      });
      if (s.metric === CLAUDE_COST_METRIC) {
        out.costUsd = (out.costUsd ?? 0) + s.value;
        share.costUsd = (share.costUsd ?? 0) + s.value;
      } else {
        const field = TOKEN_TYPES[s.type];
        if (field) {
          out[field] += s.value;
          share[field] += s.value;
        }
      }
    }
    out.models = [...models];
    return out;
  }

  /** Every session's totals, least recently updated first. */
  all(): SessionTelemetry[] {
    return [...this.books.keys()].map((id) => this.get(id)!);
  }

  /** The book as saved to disk (telemetry/sessions.json). */
  save(): SavedBook {
    return {
      v: 2,
      sessions: [...this.books].map(([sessionId, b]) => ({
        sessionId,
        updatedAt: b.updatedAt,
        apiErrors: b.apiErrors,
        toolDecisions: { ...b.toolDecisions },
        series: [...b.series.values()].map((s) => ({ ...s })),
      })),
    };
  }

  /** Takes back a saved book; a problem (not a saved book) leaves this one empty and is returned. */
  restore(saved: unknown): string | undefined {
    const parsed = savedSchema.safeParse(saved);
    if (!parsed.success) return `not a saved usage book: ${z.prettifyError(parsed.error).split('\n')[0]}`;
    this.books.clear();
    const sessions = [...parsed.data.sessions].sort((a, b) => a.updatedAt - b.updatedAt);
    for (const s of sessions)
      this.books.set(s.sessionId, {
        series: new Map(s.series.map((x) => [seriesKey(x), { ...x }])),
        apiErrors: s.apiErrors,
        toolDecisions: { ...s.toolDecisions },
        updatedAt: s.updatedAt,
      });
    return undefined;
  }
}

/** The point's session, cut to MAX_NAME characters; undefined when it names none. */
function sessionOf(a: Record<string, unknown>): string | undefined {
  const id = a['session.id'];
  return typeof id === 'string' && id.length > 0 ? id.slice(0, MAX_NAME) : undefined;
}

const modelUsage = (u: ModelUsage): AgentModelUsage => ({
  inputTokens: u.inputTokens,
  outputTokens: u.outputTokens,
  cacheReadTokens: u.cacheReadTokens,
  cacheCreationTokens: u.cacheCreationTokens,
  costUsd: u.costUsd ?? null,
});

/** A session's totals as its ledger record carries them. */
export function agentUsageOf(t: SessionTelemetry): AgentUsage {
  return {
    source: 'agent-telemetry',
    ...modelUsage(t),
    models: Object.fromEntries(Object.entries(t.perModel).map(([m, u]) => [m, modelUsage(u)])),
    updatedAtMs: t.updatedAt,
  };
}

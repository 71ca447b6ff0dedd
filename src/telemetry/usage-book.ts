import { isObject } from '../util/json-values.js';
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
const AGGREGATION_CUMULATIVE = 2;

/** Sessions whose usage is kept (the oldest forgotten past it), and series per session. */
const MAX_SESSIONS = 1000;
const MAX_SERIES = 64;

interface Book {
  /** Per series (metric, model, type, start): the latest value, or the sum of deltas. */
  series: Map<string, { metric: string; model: string; type: string; value: number }>;
  apiErrors: number;
  toolDecisions: Record<string, number>;
  updatedAt: number;
}

export interface SessionTelemetry extends SessionUsage {
  sessionId: string;
  apiErrors: number;
  toolDecisions: Record<string, number>;
  updatedAt: number;
}

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

  private book(sessionId: string): Book | undefined {
    let book = this.books.get(sessionId);
    if (!book) {
      book = { series: new Map(), apiErrors: 0, toolDecisions: {}, updatedAt: this.now() };
      this.books.set(sessionId, book);
      if (this.books.size > MAX_SESSIONS) this.books.delete(this.books.keys().next().value as string);
    }
    book.updatedAt = this.now();
    return book;
  }

  /** Takes one metrics export request (OTLP/JSON shape); returns the sessions it changed. */
  addMetrics(request: Record<string, unknown>): Set<string> {
    const changed = new Set<string>();
    for (const rm of list(request.resourceMetrics))
      for (const sm of list(isObject(rm) ? rm.scopeMetrics : undefined))
        for (const metric of list(isObject(sm) ? sm.metrics : undefined)) {
          if (
            !isObject(metric) ||
            (metric.name !== CLAUDE_TOKEN_METRIC && metric.name !== CLAUDE_COST_METRIC)
          )
            continue;
          const sum = isObject(metric.sum) ? metric.sum : undefined;
          const cumulative = sum?.aggregationTemporality === AGGREGATION_CUMULATIVE;
          for (const point of list(sum?.dataPoints)) {
            if (!isObject(point)) continue;
            const a = attributesOf(point.attributes);
            const sessionId = typeof a['session.id'] === 'string' ? a['session.id'] : undefined;
            if (!sessionId) continue;
            const model = typeof a.model === 'string' ? a.model : '';
            const type = metric.name === CLAUDE_COST_METRIC ? 'cost' : String(a.type ?? '');
            const book = this.book(sessionId)!;
            const key = JSON.stringify([
              metric.name,
              model,
              type,
              cumulative ? String(point.startTimeUnixNano) : '',
            ]);
            const entry = book.series.get(key);
            if (entry) entry.value = cumulative ? number(point) : entry.value + number(point);
            else if (book.series.size < MAX_SERIES)
              book.series.set(key, { metric: metric.name, model, type, value: number(point) });
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
          const sessionId = typeof a['session.id'] === 'string' ? a['session.id'] : undefined;
          if (!sessionId) continue;
          if (a['event.name'] === 'api_error') this.book(sessionId)!.apiErrors += 1;
          else if (a['event.name'] === 'tool_decision') {
            const decision = String(a.decision ?? 'unknown').slice(0, 32);
            const book = this.book(sessionId)!;
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
      apiErrors: book.apiErrors,
      toolDecisions: { ...book.toolDecisions },
      updatedAt: book.updatedAt,
    };
    const models = new Set<string>();
    for (const s of book.series.values()) {
      if (s.model) models.add(s.model);
      if (s.metric === CLAUDE_COST_METRIC) out.costUsd = (out.costUsd ?? 0) + s.value;
      else {
        const field = TOKEN_TYPES[s.type];
        if (field) out[field] += s.value;
      }
    }
    out.models = [...models];
    return out;
  }

  all(): SessionTelemetry[] {
    return [...this.books.keys()].map((id) => this.get(id)!);
  }
}

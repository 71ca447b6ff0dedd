import { basename } from 'node:path';
import { permissionTool } from '../events/claude-facts.js';
import type { HookEvent } from '../events/types.js';
import { sessionFactsFromApi } from './api-data.js';
import { DEFAULT_EXCERPT_CHARS, excerpt } from './excerpt.js';
import { readGitInfo, type GitInfo } from './git-branch.js';
import { readLocalSession } from './session-store.js';
import type { ApiSessionData, EnrichedSession, Enrichment, LocalSessionInfo } from './types.js';
import { causeOf, createWarnOnce, hintFor } from './warn-once.js';
import { positive, str } from '../util/json-values.js';

/** Default time budget of one enrichment. */
export const DEFAULT_BUDGET_MS = 1500;
/** API session data is reused for this long before it is asked for again. */
const API_SESSION_TTL_MS = 60_000;
const DEFAULT_MAX_SESSIONS = 500;

export interface CreateEnricherOptions {
  /** Time budget per event; when it runs out the enrichment returns what is known (default 1500). */
  budgetMs?: number;
  /** The platform's message by session id and message id; injected (off when absent). */
  fetchMessage?: (sessionId: string, messageId: string) => Promise<{ text: string } | null>;
  /** The platform's session data; injected (off when absent). */
  fetchSession?: (sessionId: string) => Promise<ApiSessionData | null>;
  /** The clock (Unix ms), for the cache. */
  now?: () => number;
  /** Where the one-per-cause warnings go (the daemon's logger). */
  warn?: (message: string) => void;
  /** The agent's home (default: from the event's transcript path, `$FACTORY_HOME`, `~/.factory`). */
  factoryHome?: string;
  /** Transcript bytes read at most per event (see readLocalSession). */
  maxReadBytes?: number;
  /** Length of `lastMessageExcerpt` (default 280). */
  excerptChars?: number;
  /** Read the git branch from `.git/HEAD` (default true). */
  gitBranch?: boolean;
  /** Sessions kept in the cache (least recently used dropped first; default 500). */
  maxCachedSessions?: number;
}

export interface Enricher {
  /** Enrich one event within the time budget. Never throws. */
  enrich(event: HookEvent): Promise<Enrichment>;
  /** Drop a session's cache (call after its SessionEnd was handled). */
  forget(sessionId: string): void;
}

interface SessionCache {
  local?: LocalSessionInfo;
  git?: GitInfo | null;
  api?: { data: ApiSessionData | null; atMs: number };
  messages: Map<string, string>;
  inflight: Map<string, Promise<unknown>>;
}

/** What one enrichment has gathered so far; read when the work ends or the budget runs out. */
interface Gathered {
  local?: LocalSessionInfo;
  localFromCache: boolean;
  git?: GitInfo;
  api?: ApiSessionData;
  message?: { text: string; source: string };
  pending: Set<string>;
  warnings: string[];
  budgetExceeded: boolean;
}

type ApiResult<T> = { ok: true; value: T } | { ok: false };

/** Events whose `message_id` names the final assistant message. */
const FINAL_MESSAGE_EVENTS = new Set(['Stop', 'SessionEnd']);

/**
 * Create the enricher the daemon runs between rules and rendering. Local first (the agent's session
 * store), then the injected API functions, all within `budgetMs`; results are cached per session, and API
 * failures warn once per cause (`warn`), not once per event.
 */
export function createEnricher(opts: CreateEnricherOptions = {}): Enricher {
  const budgetMs = opts.budgetMs ?? DEFAULT_BUDGET_MS;
  const now = opts.now ?? Date.now;
  const warnOnce = createWarnOnce(opts.warn ?? (() => undefined));
  const maxSessions = opts.maxCachedSessions ?? DEFAULT_MAX_SESSIONS;
  const cache = new Map<string, SessionCache>();

  function cacheFor(sessionId: string): SessionCache {
    let entry = cache.get(sessionId);
    if (entry) cache.delete(sessionId);
    else entry = { messages: new Map(), inflight: new Map() };
    cache.set(sessionId, entry);
    while (cache.size > maxSessions) cache.delete(cache.keys().next().value as string);
    return entry;
  }

  /** Run one API call once per key at a time; a failure becomes a warning and `{ok: false}`, never a throw. */
  function callApi<T>(c: SessionCache, g: Gathered, source: string, key: string, call: () => Promise<T>) {
    const existing = c.inflight.get(key) as Promise<ApiResult<T>> | undefined;
    if (existing) return existing;
    g.pending.add(source);
    const run = (async (): Promise<ApiResult<T>> => {
      try {
        const value = await call();
        if (!g.budgetExceeded) warnOnce.ok(source);
        return { ok: true, value };
      } catch (error) {
        const cause = causeOf(error);
        const detail = error instanceof Error ? error.message : String(error);
        g.warnings.push(`${source} failed (${cause})`);
        warnOnce.fail(source, cause, `enrichment: ${source} failed (${cause}): ${detail}; ${hintFor(cause)}`);
        return { ok: false };
      } finally {
        g.pending.delete(source);
        c.inflight.delete(key);
      }
    })();
    c.inflight.set(key, run);
    return run;
  }

  async function gatherLocal(
    event: HookEvent,
    sessionId: string,
    c: SessionCache,
    g: Gathered,
    signal: AbortSignal,
  ) {
    g.pending.add('local');
    const local = await readLocalSession({
      sessionId,
      transcriptPath: event.transcriptPath ?? str(event.payload.transcript_path),
      factoryHome: opts.factoryHome,
      messageId: FINAL_MESSAGE_EVENTS.has(event.name) ? str(event.payload.message_id) : undefined,
      maxReadBytes: opts.maxReadBytes,
      signal,
      agent: event.agent,
      event: { name: event.name, timestamp: event.payload.timestamp },
      ...(event.cwd ? { cwd: event.cwd } : {}),
      ...(str(event.payload.agent_id) ? { agentId: str(event.payload.agent_id) } : {}),
    });
    g.pending.delete('local');
    const merged = c.local ? keepKnown(local, c.local) : local;
    c.local = merged;
    g.local = merged;
    if (local.message?.text) c.messages.set(local.message.id, local.message.text);
  }

  async function gatherMessage(event: HookEvent, sessionId: string, c: SessionCache, g: Gathered) {
    const messageId = str(event.payload.message_id);
    if (!messageId || !FINAL_MESSAGE_EVENTS.has(event.name) || str(event.payload.last_assistant_message))
      return;
    const known = c.messages.get(messageId);
    if (known) {
      g.message = { text: known, source: g.local?.message?.id === messageId ? 'transcript' : 'cache' };
      return;
    }
    if (!opts.fetchMessage) return;
    const fetchMessage = opts.fetchMessage;
    const found = await callApi(c, g, 'api:message', `message:${messageId}`, () =>
      fetchMessage(sessionId, messageId),
    );
    const text = found.ok ? found.value?.text : undefined;
    if (typeof text === 'string' && text) {
      c.messages.set(messageId, text);
      g.message = { text, source: 'api:message' };
    }
  }

  async function gatherApiSession(sessionId: string, c: SessionCache, g: Gathered) {
    if (c.api && now() - c.api.atMs < API_SESSION_TTL_MS) {
      if (c.api.data) g.api = c.api.data;
      return;
    }
    if (!opts.fetchSession) return;
    const fetchSession = opts.fetchSession;
    const result = await callApi(c, g, 'api:session', 'session', () => fetchSession(sessionId));
    // A failure is not cached: the next event tries again (and warns only if the cause changed).
    if (!result.ok) return;
    c.api = { data: result.value, atMs: now() };
    if (result.value) g.api = result.value;
  }

  function gatherGit(cwd: string, c: SessionCache, g: Gathered) {
    if (c.git === undefined) c.git = readGitInfo(cwd) ?? null;
    if (c.git) g.git = c.git;
  }

  async function gather(
    event: HookEvent,
    sessionId: string,
    c: SessionCache,
    g: Gathered,
    signal: AbortSignal,
  ) {
    const cwd = event.cwd ?? str(event.payload.cwd);
    const side = [gatherApiSession(sessionId, c, g)];
    if (opts.gitBranch !== false && cwd) gatherGit(cwd, c, g);
    await gatherLocal(event, sessionId, c, g, signal);
    await gatherMessage(event, sessionId, c, g);
    await Promise.all(side);
  }

  async function enrich(event: HookEvent): Promise<Enrichment> {
    const g: Gathered = { localFromCache: false, pending: new Set(), warnings: [], budgetExceeded: false };
    const sessionId = event.sessionId ?? str(event.payload.session_id);
    if (!sessionId) return buildEnrichment(event, undefined, g, opts.excerptChars);
    const c = cacheFor(sessionId);
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(resolve, budgetMs, 'timeout');
    });
    try {
      const work = gather(event, sessionId, c, g, controller.signal).then(
        () => 'done' as const,
        (error: unknown) => {
          g.warnings.push(`enrichment failed: ${error instanceof Error ? error.message : String(error)}`);
          return 'done' as const;
        },
      );
      if ((await Promise.race([work, deadline])) === 'timeout') {
        g.budgetExceeded = true;
        controller.abort();
        for (const source of g.pending) {
          g.warnings.push(`${source} did not answer within ${budgetMs} ms`);
          warnOnce.fail(
            source,
            'no-answer',
            `enrichment: ${source} did not answer within ${budgetMs} ms; ${hintFor('no-answer')}`,
          );
        }
        if (!g.local && c.local) {
          // The last read's session facts, without its then-latest message (stale for this event).
          g.local = {
            ...c.local,
            lastAssistantMessage: undefined,
            message: undefined,
            pendingTools: undefined,
          };
          g.localFromCache = true;
        }
      }
    } finally {
      clearTimeout(timer);
    }
    return buildEnrichment(event, sessionId, g, opts.excerptChars);
  }

  return {
    enrich,
    forget(sessionId) {
      cache.delete(sessionId);
    },
  };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Keep what an earlier read knew when this one could not say (transcript gone or cut, budget spent). */
function keepKnown(current: LocalSessionInfo, previous: LocalSessionInfo): LocalSessionInfo {
  if (!current.sources.includes('transcript')) {
    // Session facts carry over; what was the latest then (last message, pending tools) is not news now.
    return {
      ...previous,
      ...definedOnly(current),
      lastAssistantMessage: undefined,
      message: undefined,
      pendingTools: undefined,
      warnings: current.warnings,
      sources: current.sources,
    };
  }
  return {
    ...current,
    title: current.title ?? previous.title,
    cwd: current.cwd ?? previous.cwd,
    parentId: current.parentId ?? previous.parentId,
    isSubagent: current.isSubagent || previous.isSubagent,
    startedAtMs: current.startedAtMs ?? previous.startedAtMs,
  };
}

/** The tool a permission prompt is about: Claude names it in the message, Droid in the transcript. */
function pendingToolOf(event: HookEvent, local: LocalSessionInfo | undefined): string | undefined {
  const named = permissionTool(event);
  if (named) return named;
  const tools = local?.pendingTools;
  return tools && tools.length > 0 ? [...new Set(tools)].join(', ') : undefined;
}

function buildEnrichment(
  event: HookEvent,
  sessionId: string | undefined,
  g: Gathered,
  excerptChars = DEFAULT_EXCERPT_CHARS,
): Enrichment {
  const payload = event.payload;
  const local = g.local;
  const api = g.api ? sessionFactsFromApi(g.api) : {};
  const sources = ['event'];
  if (local) sources.push(...(g.localFromCache ? ['cache'] : local.sources));
  if (g.git) sources.push('git');
  if (g.api) sources.push('api:session');
  if (g.message && !sources.includes(g.message.source)) sources.push(g.message.source);

  const cwd = event.cwd ?? str(payload.cwd) ?? local?.cwd;
  const project = event.projectDir ?? g.git?.root ?? cwd;
  const start = local?.startedAtMs ?? api.startedAtMs;
  const localSpan =
    start !== undefined && local?.updatedAtMs !== undefined ? local.updatedAtMs - start : undefined;
  const callingSession = str(payload.calling_session_id);
  const session: EnrichedSession = {
    id: sessionId ?? 'unknown',
    title: local?.title ?? api.title,
    project,
    projectName: project ? basename(project) : undefined,
    cwd,
    branch: g.git?.branch,
    parentId: local?.parentId ?? callingSession,
    isSubagent: Boolean(local?.isSubagent || callingSession || api.isSubagent),
    model: local?.model ?? api.model,
    messageCount: positive(payload.message_count) ?? local?.messageCount ?? api.messageCount,
    promptCount: local?.promptCount,
    durationMs: positive(payload.session_duration_ms) ?? localSpan ?? api.durationMs,
    turnDurationMs: event.name === 'Stop' ? positive(payload.elapsed_time) : undefined,
    activeTimeMs: local?.activeTimeMs ?? api.activeTimeMs,
    startedAtMs: start,
    tokens: local?.inclusiveTokens ?? local?.tokens ?? api.tokens,
    ownTokens: local?.tokens ?? api.ownTokens,
    credits: local?.inclusiveCredits ?? local?.credits ?? api.credits,
    ownCredits: local?.credits ?? api.ownCredits,
    toolCalls: local?.toolCalls && Object.keys(local.toolCalls).length > 0 ? local.toolCalls : undefined,
    tags: local?.tags ?? api.tags,
  };

  let lastMessage: string | undefined;
  let task: Enrichment['task'];
  if (event.name === 'SubagentStop') {
    // Droid: task_name/task_result; Claude: the sub-agent's description (.meta.json) or agent_type, and its
    // last_assistant_message.
    const sub = local?.subagent?.id === str(payload.agent_id) ? local?.subagent : undefined;
    task = {
      name: str(payload.task_name) ?? sub?.description ?? str(payload.agent_type),
      result: str(payload.task_result) ?? str(payload.last_assistant_message),
      error: str(payload.task_error),
    };
    lastMessage = task.result ?? task.error;
  }
  lastMessage ??= str(payload.last_assistant_message) ?? g.message?.text ?? local?.lastAssistantMessage?.text;

  return {
    session,
    ...(lastMessage ? { lastMessage, lastMessageExcerpt: excerpt(lastMessage, excerptChars) } : {}),
    ...(event.name === 'Notification' ? { pendingTool: pendingToolOf(event, local) } : {}),
    ...(task ? { task } : {}),
    sources,
    warnings: [...(local && !g.localFromCache ? local.warnings : []), ...g.warnings],
    budgetExceeded: g.budgetExceeded,
  };
}

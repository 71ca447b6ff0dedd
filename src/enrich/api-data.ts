import { textOfContent } from './transcript.js';
import { creditsFrom, tokenCountsFrom } from './tokens.js';
import type { ApiSessionData, EnrichedSession } from './types.js';
import { finite } from '../util/json-values.js';

/**
 * The text of a platform API Message (`GET /api/v0/sessions/{id}/messages/{messageId}`): its content
 * items' `text` joined. For wiring the platform client into `createEnricher({ fetchMessage })`.
 */
export function apiMessageText(message: unknown): string | null {
  if (typeof message !== 'object' || message === null) return null;
  const text = textOfContent((message as { content?: unknown }).content);
  return text || null;
}

/** Session facts the platform's Session resource adds to (never overrides) local data. */
export function sessionFactsFromApi(data: ApiSessionData): Partial<EnrichedSession> {
  const settings = data.sessionSettings ?? {};
  const created = finite(data.createdAt);
  const end = finite(data.completedAt) ?? finite(data.updatedAt);
  const own = tokenCountsFrom(settings.tokenUsage);
  const inclusive = tokenCountsFrom(settings.inclusiveTokenUsage);
  const tags = Array.isArray(settings.tags) ? settings.tags : undefined;
  const facts: Partial<EnrichedSession> = {
    title: typeof data.title === 'string' && data.title ? data.title : undefined,
    model: typeof settings.model === 'string' && settings.model ? settings.model : undefined,
    messageCount: finite(data.messageCount),
    startedAtMs: created,
    durationMs: created !== undefined && end !== undefined && end >= created ? end - created : undefined,
    activeTimeMs: finite(settings.assistantActiveTimeMs),
    tokens: inclusive ?? own,
    ownTokens: own,
    credits: creditsFrom(settings.inclusiveTokenUsage) ?? creditsFrom(settings.tokenUsage),
    ownCredits: creditsFrom(settings.tokenUsage),
    tags,
  };
  if (tags?.some((t) => t.name === 'subagent')) facts.isSubagent = true;
  return facts;
}

import type { SessionTag } from '../enrich/types.js';
import type { SessionRecord } from './types.js';

/** The body of PATCH /api/v0/sessions/{sessionId} that tagging sends. */
export interface SessionTagUpdate {
  sessionSettings: { tags: SessionTag[] };
}

export type UpdateSession = (sessionId: string, update: SessionTagUpdate) => Promise<unknown>;

export interface TagSessionOptions {
  /** The tag's name (ledger.tagName, default "hookd"). */
  tagName?: string;
  /** The session's current tags (local settings or API), kept: the API replaces the whole list. */
  existingTags?: SessionTag[];
}

export type TagResult = { ok: true; tags: SessionTag[] } | { ok: false; error: string };

/**
 * Tag a finished session on the platform with its ledger totals (off by default: ledger.tagOnPlatform).
 * `updateSession` is the platform client's session update, injected. Existing tags are kept and an
 * earlier tag of the same name replaced. A failure is returned as a value, never thrown.
 */
export async function tagSessionOnEnd(
  record: SessionRecord,
  updateSession: UpdateSession,
  options: TagSessionOptions = {},
): Promise<TagResult> {
  const name = options.tagName ?? 'hookd';
  const tag: SessionTag = {
    name,
    metadata: {
      reason: record.reason,
      endedAt: new Date(record.endedAtMs).toISOString(),
      durationMs: record.durationMs,
      messageCount: record.messageCount,
      tokens: record.tokens?.total ?? null,
      credits: record.credits,
      hookFailures: record.hookFailures,
      hookTimeouts: record.hookTimeouts,
      subagentCount: record.subagentCount,
    },
  };
  const tags = [...(options.existingTags ?? []).filter((t) => t.name !== name), tag];
  try {
    await updateSession(record.sessionId, { sessionSettings: { tags } });
    return { ok: true, tags };
  } catch (error) {
    return {
      ok: false,
      error: `tagging session ${record.sessionId} failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

import { isTaskNotification } from '../events/claude-facts.js';
import type { TokenCounts, TranscriptMessage } from './types.js';
import { isObject, str, type Json } from '../util/json-values.js';
import { addCount } from '../util/own.js';

/** The transcript's first line (`type: session_start`), as far as hookd reads it. */
export interface SessionStartLine {
  title?: string;
  cwd?: string;
  /** The session this one continues (compaction). */
  parent?: string;
  /** Set on a sub-agent's transcript. */
  callingSessionId?: string;
  version?: number;
}

/** What a run of transcript lines says. Later lines win. */
export interface TranscriptSummary {
  sessionStart?: SessionStartLine;
  messageLines: number;
  corruptLines: number;
  firstTimestampMs?: number;
  lastTimestampMs?: number;
  lastAssistant?: TranscriptMessage;
  /** Tool names of the last assistant message that made tool calls. */
  lastToolUses?: string[];
  toolCalls: Record<string, number>;
  model?: string;
  /** The message with the wanted id, when among the lines. */
  wanted?: TranscriptMessage;
  /**
   * Claude Code transcripts: each assistant message's `usage` by message id (streaming writes one line
   * per content block, all with the same id: the last line's usage counts, once).
   */
  claudeUsage: Record<string, TokenCounts>;
  /** Claude Code: the first prompt typed by a person (the session's title when it has no summary). */
  firstPrompt?: string;
  /** Claude Code: prompts typed by a person (not tool results, meta lines or `<task-notification>`s). */
  prompts: number;
  /** Claude Code: user lines (not meta) plus distinct assistant message ids. */
  claudeMessages: number;
  /** Claude Code: assistant message ids seen (for claudeMessages). */
  claudeAssistantIds: Set<string>;
}

/** Token counts from a Claude Messages API `usage` object (input_tokens, output_tokens, cache_*). */
export function claudeUsageTokens(usage: unknown): TokenCounts | undefined {
  if (!isObject(usage)) return undefined;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
  const counts = {
    input: n(usage.input_tokens),
    output: n(usage.output_tokens),
    cacheRead: n(usage.cache_read_input_tokens),
    cacheWrite: n(usage.cache_creation_input_tokens),
    // Thinking tokens are part of output_tokens in the Messages API: shown, never added twice.
    thinking: 0,
  };
  return { ...counts, total: counts.input + counts.output + counts.cacheRead + counts.cacheWrite };
}

/** Claude lines that are output or bookkeeping in the user role, not something a person typed. */
const NOT_TYPED =
  /^\s*<(command-name|local-command-stdout|local-command-stderr|local-command-caveat|task-notification)>/;

/** Whether a Claude `user` line is a prompt typed by a person. */
function isClaudePrompt(line: Json, message: Json): boolean {
  if (line.isMeta === true || line.isCompactSummary === true || line.isVisibleInTranscriptOnly === true)
    return false;
  const origin = isObject(line.origin) ? str(line.origin.kind) : undefined;
  if (origin) return origin === 'human';
  const content = message.content;
  if (Array.isArray(content) && content.some((c) => isObject(c) && c.type === 'tool_result')) return false;
  const text = textOfContent(content);
  return text !== '' && !NOT_TYPED.test(text) && !isTaskNotification(text);
}

function timestampOf(line: Json): number | undefined {
  const raw = line.timestamp;
  const ms = typeof raw === 'string' ? Date.parse(raw) : typeof raw === 'number' ? raw : NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

/** The text parts of a message's content (string content is taken as text). */
export function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const item of content) {
    if (
      isObject(item) &&
      (item.type === 'text' || item.type === undefined) &&
      typeof item.text === 'string'
    ) {
      parts.push(item.text);
    }
  }
  return parts.join('\n').trim();
}

/** Read a session_start line leniently (fields of another version are ignored). */
export function parseSessionStart(line: Json): SessionStartLine {
  return {
    title: str(line.title),
    cwd: str(line.cwd),
    parent: str(line.parent),
    callingSessionId: str(line.callingSessionId),
    version: typeof line.version === 'number' ? line.version : undefined,
  };
}

/** A fresh, empty summary. */
export function emptySummary(): TranscriptSummary {
  return {
    messageLines: 0,
    corruptLines: 0,
    toolCalls: {},
    claudeUsage: {},
    prompts: 0,
    claudeMessages: 0,
    claudeAssistantIds: new Set(),
  };
}

/**
 * Fold one transcript line (already split, without its newline) into the summary. Lines that are not JSON
 * count as corrupt; unknown line types and fields are ignored.
 */
export function addTranscriptLine(summary: TranscriptSummary, raw: string, wantedId?: string): void {
  const trimmed = raw.trim();
  if (!trimmed) return;
  let line: unknown;
  try {
    line = JSON.parse(trimmed);
  } catch {
    summary.corruptLines++;
    return;
  }
  if (!isObject(line)) {
    summary.corruptLines++;
    return;
  }
  if (line.type === 'session_start') {
    summary.sessionStart = parseSessionStart(line);
    return;
  }
  // Claude Code's transcripts: `{"type": "summary", "summary"}` titles, `user`/`assistant` lines with a uuid.
  if (line.type === 'summary' && str(line.summary)) {
    summary.sessionStart = { ...summary.sessionStart, title: str(line.summary) };
    return;
  }
  const claudeLine = (line.type === 'user' || line.type === 'assistant') && isObject(line.message);
  if ((line.type !== 'message' && !claudeLine) || !isObject(line.message)) return;
  summary.messageLines++;
  const id = str(line.id) ?? str(line.uuid) ?? '';
  const message = line.message;
  const role = str(message.role) ?? 'unknown';
  const timestampMs = timestampOf(line);
  if (timestampMs !== undefined) {
    summary.firstTimestampMs ??= timestampMs;
    summary.lastTimestampMs = timestampMs;
  }
  const text = textOfContent(message.content);
  if (wantedId && id === wantedId) summary.wanted = { id, role, text, timestampMs };
  if (claudeLine) foldClaudeLine(summary, line, message, text);
  if (role !== 'assistant') return;
  const model = str(message.modelId) ?? str(message.model);
  // Claude writes an API error as an assistant message of the model "<synthetic>".
  if (model && model !== '<synthetic>') summary.model = model;
  if (text) summary.lastAssistant = { id, role, text, timestampMs };
  const tools: string[] = [];
  if (Array.isArray(message.content)) {
    for (const item of message.content) {
      if (isObject(item) && item.type === 'tool_use' && typeof item.name === 'string' && item.name) {
        tools.push(item.name);
        addCount(summary.toolCalls, item.name);
      }
    }
  }
  if (tools.length > 0) summary.lastToolUses = tools;
  else if (text) summary.lastToolUses = undefined;
}

/** The Claude-only parts of a `user`/`assistant` line: usage by message id, prompts, message count. */
function foldClaudeLine(summary: TranscriptSummary, line: Json, message: Json, text: string): void {
  if (line.type === 'assistant') {
    const id = str(message.id) ?? str(line.uuid);
    if (!id) return;
    if (!summary.claudeAssistantIds.has(id)) {
      summary.claudeAssistantIds.add(id);
      summary.claudeMessages++;
    }
    const usage = claudeUsageTokens(message.usage);
    if (usage) summary.claudeUsage[id] = usage;
    return;
  }
  if (line.isMeta === true) return;
  summary.claudeMessages++;
  if (!isClaudePrompt(line, message)) return;
  summary.prompts++;
  summary.firstPrompt ??= text;
}

import { CODEX_ROLLOUT } from '../agents/codex-protocol.js';
import { GEMINI_CHAT } from '../agents/gemini-protocol.js';
import { closeSync } from 'node:fs';
import { dirname } from 'node:path';
import { openRegularFile } from '../util/private-fs.js';
import { readAt, describeReadError } from './read-bounded.js';
import type { LocalSessionInfo, TokenCounts, TranscriptMessage } from './types.js';
import { finite, isObject, str, type Json } from '../util/json-values.js';

/**
 * The session stores of Codex CLI and Gemini CLI (observed with Codex CLI 0.171.0 and Gemini CLI 0.61.0:
 * docs/agents/codex.md, gemini.md), read for the ledger and notifications:
 *
 * - Codex: a rollout file per session, `<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, one
 *   JSON object a line. `event_msg` lines of type `token_count` carry the session's running total
 *   (`info.total_token_usage`: input, cached input, output, reasoning tokens); `task_complete` the turn's
 *   `last_agent_message`; `session_meta` the cwd and model provider.
 * - Gemini: a chat file per session, `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`: a header
 *   line, then messages (`type` "user" or "gemini", `content`, `tokens` per model answer) and `$set`
 *   updates; a message is written again when its tool calls complete, so each id counts once.
 *
 * Only the last `maxReadBytes` of the file are read (what the ledger needs is at its end for Codex; for a
 * Gemini chat read in part, tokens are left out rather than under-counted). The path comes from the
 * event: the file is opened without following it into a FIFO or device, and never written.
 */

export interface ReadAgentSessionOptions {
  sessionId: string;
  transcriptPath: string;
  maxReadBytes: number;
  signal?: AbortSignal;
}

/** True when a transcript path is a Codex rollout file. */
export function isCodexTranscript(path: string): boolean {
  return CODEX_ROLLOUT.test(path);
}

/** True when a transcript path is a Gemini CLI chat file. */
export function isGeminiTranscript(path: string): boolean {
  return GEMINI_CHAT.test(path);
}

/** The complete lines of the file's last `maxBytes`, parsed (lines that are not JSON objects skipped). */
export async function tailLines(
  path: string,
  maxBytes: number,
  info: LocalSessionInfo,
): Promise<{ lines: Json[]; whole: boolean }> {
  let fd: number | undefined;
  try {
    const opened = openRegularFile(path, {});
    fd = opened.fd;
    const size = opened.stats.size;
    const start = Math.max(0, size - maxBytes);
    const bytes = await readAt(fd, start, size - start);
    info.bytesRead += bytes.length;
    let text = bytes.toString('utf8');
    // A cut first line is not a line; a last line being written has no newline yet.
    if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    const end = text.lastIndexOf('\n');
    text = end < 0 ? '' : text.slice(0, end);
    const lines: Json[] = [];
    for (const line of text.split('\n')) {
      try {
        const value: unknown = JSON.parse(line);
        if (isObject(value)) lines.push(value);
      } catch {
        // a partial or foreign line: skipped
      }
    }
    return { lines, whole: start === 0 };
  } catch (error) {
    info.warnings.push(`transcript ${describeReadError(error)}`);
    return { lines: [], whole: false };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function baseInfo(opts: ReadAgentSessionOptions, home: string): LocalSessionInfo {
  return {
    sessionId: opts.sessionId,
    factoryHome: home,
    transcriptPath: opts.transcriptPath,
    sources: [],
    toolCallsComplete: false,
    bytesRead: 0,
    transcriptComplete: false,
    isSubagent: false,
    warnings: [],
  };
}

export const count = (value: unknown): number => Math.max(0, Math.round(finite(value) ?? 0));

export function tokens(input: number, output: number, cacheRead: number, thinking: number): TokenCounts {
  return { input, output, cacheRead, cacheWrite: 0, thinking, total: input + output + cacheRead + thinking };
}

/** Two token counts added up (the first absent: the second). */
export function addTokens(sum: TokenCounts | undefined, add: TokenCounts): TokenCounts {
  if (!sum) return add;
  return tokens(
    sum.input + add.input,
    sum.output + add.output,
    sum.cacheRead + add.cacheRead,
    sum.thinking + add.thinking,
  );
}

export function message(id: string, text: string, timestamp: unknown): TranscriptMessage {
  const ms = typeof timestamp === 'string' ? Date.parse(timestamp) : NaN;
  return { id, role: 'assistant', text, ...(Number.isFinite(ms) ? { timestampMs: ms } : {}) };
}

/** A Codex rollout file: the last token total, the last agent message, the model and cwd. */
export async function readCodexSession(opts: ReadAgentSessionOptions): Promise<LocalSessionInfo> {
  // <CODEX_HOME>/sessions/YYYY/MM/DD/rollout-*.jsonl
  const info = baseInfo(opts, dirname(dirname(dirname(dirname(dirname(opts.transcriptPath))))));
  const { lines, whole } = await tailLines(opts.transcriptPath, opts.maxReadBytes, info);
  if (lines.length === 0) return info;
  info.sources.push('transcript');
  info.transcriptComplete = whole;
  for (const line of lines) {
    const payload = isObject(line.payload) ? line.payload : {};
    if (line.type === 'session_meta') info.cwd = str(payload.cwd) ?? info.cwd;
    if (line.type === 'turn_context') info.model = str(payload.model) ?? info.model;
    if (line.type !== 'event_msg') continue;
    if (payload.type === 'token_count' && isObject(payload.info)) {
      const total = payload.info.total_token_usage;
      if (isObject(total)) {
        const cached = count(total.cached_input_tokens);
        // Codex counts cached tokens inside input_tokens; hookd counts them apart.
        const input = Math.max(0, count(total.input_tokens) - cached);
        info.tokens = tokens(input, count(total.output_tokens), cached, count(total.reasoning_output_tokens));
      }
    }
    if (payload.type === 'task_complete' && str(payload.last_agent_message))
      info.lastAssistantMessage = message(
        str(payload.turn_id) ?? '',
        str(payload.last_agent_message)!,
        line.timestamp,
      );
  }
  return info;
}

/** A Gemini CLI chat file: tokens summed once per model answer, the last answer with text, the model. */
export async function readGeminiSession(opts: ReadAgentSessionOptions): Promise<LocalSessionInfo> {
  // ~/.gemini/tmp/<project>/chats/session-*.jsonl
  const info = baseInfo(opts, dirname(dirname(dirname(dirname(opts.transcriptPath)))));
  const { lines, whole } = await tailLines(opts.transcriptPath, opts.maxReadBytes, info);
  if (lines.length === 0) return info;
  info.sources.push('transcript');
  info.transcriptComplete = whole;
  const answers = new Map<string, Json>();
  let messages = 0;
  const seen = new Set<string>();
  for (const line of lines) {
    const id = str(line.id);
    if (!id || (line.type !== 'gemini' && line.type !== 'user')) continue;
    if (!seen.has(id)) messages += 1;
    seen.add(id);
    if (line.type !== 'gemini') continue;
    answers.set(id, line);
    info.model = str(line.model) ?? info.model;
    const text = str(line.content);
    if (text) info.lastAssistantMessage = message(id, text, line.timestamp);
  }
  if (!whole) {
    info.warnings.push('tokens and messages not counted: the chat file is larger than maxReadBytes');
    return info;
  }
  info.messageCount = messages;
  let sum: TokenCounts | undefined;
  for (const answer of answers.values()) {
    const t = isObject(answer.tokens) ? answer.tokens : undefined;
    if (!t) continue;
    const cached = count(t.cached);
    const add = tokens(Math.max(0, count(t.input) - cached), count(t.output), cached, count(t.thoughts));
    sum = addTokens(sum, add);
  }
  if (sum) info.tokens = sum;
  return info;
}

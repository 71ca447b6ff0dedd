import { lstatSync } from 'node:fs';
import { dirname } from 'node:path';
import { COPILOT_EVENTS_LOG } from '../agents/copilot-protocol.js';
import {
  addTokens,
  baseInfo,
  count,
  message,
  tailLines,
  tokens,
  type ReadAgentSessionOptions,
} from './codex-gemini-session.js';
import type { LocalSessionInfo, TokenCounts } from './types.js';
import { finite, isObject, str, type Json } from '../util/json-values.js';

/**
 * A Copilot CLI session's event log (observed with Copilot CLI 1.0.102: docs/agents/copilot.md),
 * `~/.copilot/session-state/<session id>/events.jsonl`, one `{type, data, id, timestamp}` a line:
 * `session.start` (its `context.cwd`), `assistant.message` (`content`, empty for a turn that only calls
 * tools), `session.usage_record` (one per model call: `usage.model`, `inputTokens`, `outputTokens`,
 * `cacheReadTokens`, `reasoningTokens`). Read like the Codex and Gemini stores: only the file's last
 * `maxReadBytes`, opened without following it into a FIFO or device, never written; tokens are summed
 * only when the whole file was read.
 *
 * Copilot writes the log behind the session, in batches: when its Stop (`agentStop`) and SessionEnd
 * hooks start, the turn's final message and last model calls are often not in the file yet; they follow
 * within a few hundred milliseconds. Every hook it runs is logged too, as a `hook.start` line whose
 * `input.timestamp` is the payload's `timestamp`, after everything that came before it. So for those two
 * events the reader waits (bounded: `COPILOT_LOG_WAIT_MS`) until the log holds the event's own
 * `hook.start`, and then reads a log complete up to it; past the bound it gives what is there, with a
 * warning.
 */

/** How long a Stop or SessionEnd waits at most for Copilot to write the log up to its own hook. */
export const COPILOT_LOG_WAIT_MS = 1000;
/** How often the log's size is looked at while waiting. */
const COPILOT_LOG_POLL_MS = 25;

/** The log's `hookType` of each event a reader waits for (the event's camelCase name). */
const LOGGED_HOOK: Readonly<Record<string, string>> = { Stop: 'agentStop', SessionEnd: 'sessionEnd' };

/** The event a read is for: the log is complete once it holds this event's own hook.start. */
export interface CopilotLogEvent {
  /** hookd's event name (`Stop`, `SessionEnd`; other events do not wait). */
  name: string;
  /** The payload's `timestamp`: an ISO string (Claude Code's dialect) or Unix ms (Copilot's). */
  timestamp: unknown;
}

export interface ReadCopilotSessionOptions extends ReadAgentSessionOptions {
  event?: CopilotLogEvent;
  /** Default COPILOT_LOG_WAIT_MS. */
  waitMs?: number;
  /** The clock and the pause between looks (injected by tests). */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** True when a transcript path is a Copilot CLI session's event log. */
export function isCopilotTranscript(path: string): boolean {
  return COPILOT_EVENTS_LOG.test(path);
}

/** Unix ms of a payload's timestamp, or undefined. */
function timestampMs(value: unknown): number | undefined {
  if (typeof value === 'string') {
    const ms = Date.parse(value);
    return Number.isFinite(ms) ? ms : undefined;
  }
  return finite(value);
}

/** True when the log holds the hook.start of the event (its type, at or after its timestamp). */
function holdsHook(lines: readonly Json[], hookType: string, atMs: number): boolean {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (line.type !== 'hook.start' || !isObject(line.data) || line.data.hookType !== hookType) continue;
    const input = isObject(line.data.input) ? line.data.input : {};
    const at = finite(input.timestamp);
    if (at !== undefined && at >= atMs) return true;
  }
  return false;
}

function logSize(path: string): number {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.size ?? -1;
  } catch {
    return -1;
  }
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * The log's lines, once it holds the event's own hook.start (Stop, SessionEnd), else at once: re-read
 * each time its size changes, until `waitMs` has passed or the enrichment is given up (`signal`).
 */
async function settledLines(
  opts: ReadCopilotSessionOptions,
  info: LocalSessionInfo,
): Promise<{ lines: Json[]; whole: boolean }> {
  const first = await tailLines(opts.transcriptPath, opts.maxReadBytes, info);
  const hookType = opts.event ? LOGGED_HOOK[opts.event.name] : undefined;
  const atMs = opts.event ? timestampMs(opts.event.timestamp) : undefined;
  if (!hookType || atMs === undefined) return first;
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? pause;
  const waitMs = opts.waitMs ?? COPILOT_LOG_WAIT_MS;
  const start = now();
  let read = first;
  let size = logSize(opts.transcriptPath);
  while (!holdsHook(read.lines, hookType, atMs)) {
    if (now() - start >= waitMs || opts.signal?.aborted) {
      info.warnings.push(`the session log had not caught up with ${opts.event!.name} within ${waitMs} ms`);
      return read;
    }
    await sleep(COPILOT_LOG_POLL_MS);
    const grown = logSize(opts.transcriptPath);
    if (grown === size) continue;
    size = grown;
    info.warnings = []; // what the earlier look could not read is not news now
    read = await tailLines(opts.transcriptPath, opts.maxReadBytes, info);
  }
  return read;
}

export async function readCopilotSession(opts: ReadCopilotSessionOptions): Promise<LocalSessionInfo> {
  // <copilot home>/session-state/<id>/events.jsonl
  const info = baseInfo(opts, dirname(dirname(dirname(opts.transcriptPath))));
  const { lines, whole } = await settledLines(opts, info);
  if (lines.length === 0) return info;
  info.sources.push('transcript');
  info.transcriptComplete = whole;
  let sum: TokenCounts | undefined;
  for (const line of lines) {
    const data = isObject(line.data) ? line.data : {};
    if (line.type === 'session.start' && isObject(data.context)) info.cwd = str(data.context.cwd) ?? info.cwd;
    if (line.type === 'assistant.message') {
      const text = str(data.content);
      if (text) info.lastAssistantMessage = message(str(line.id) ?? '', text, line.timestamp);
    }
    if (line.type !== 'session.usage_record' || !isObject(data.usage)) continue;
    const usage = data.usage;
    info.model = str(usage.model) ?? info.model;
    const add = tokens(
      count(usage.inputTokens),
      count(usage.outputTokens),
      count(usage.cacheReadTokens),
      count(usage.reasoningTokens),
    );
    sum = addTokens(sum, add);
  }
  if (!whole) info.warnings.push('tokens not counted: the session log is larger than maxReadBytes');
  else if (sum) info.tokens = sum;
  return info;
}

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
import { isObject, str } from '../util/json-values.js';

/**
 * A Copilot CLI session's event log (observed with Copilot CLI 1.0.102: docs/agents/copilot.md),
 * `~/.copilot/session-state/<session id>/events.jsonl`, one `{type, data, id, timestamp}` a line:
 * `session.start` (its `context.cwd`), `assistant.message` (`content`, empty for a turn that only calls
 * tools), `session.usage_record` (one per model call: `usage.model`, `inputTokens`, `outputTokens`,
 * `cacheReadTokens`, `reasoningTokens`). Read like the Codex and Gemini stores: only the file's last
 * `maxReadBytes`, opened without following it into a FIFO or device, never written; tokens are summed
 * only when the whole file was read.
 */

/** True when a transcript path is a Copilot CLI session's event log. */
export function isCopilotTranscript(path: string): boolean {
  return COPILOT_EVENTS_LOG.test(path);
}

export async function readCopilotSession(opts: ReadAgentSessionOptions): Promise<LocalSessionInfo> {
  // <copilot home>/session-state/<id>/events.jsonl
  const info = baseInfo(opts, dirname(dirname(dirname(opts.transcriptPath))));
  const { lines, whole } = await tailLines(opts.transcriptPath, opts.maxReadBytes, info);
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

import { readdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { readJsonFileBounded } from './read-bounded.js';
import { applyTranscriptRead, readTranscript } from './read-transcript.js';
import { excerpt } from './excerpt.js';
import { addTokenCounts } from './tokens.js';
import type { LocalSessionInfo, TokenCounts } from './types.js';
import type { TranscriptSummary } from './transcript.js';
import { isObject, str } from '../util/json-values.js';

/** Sub-agent transcripts read at most per event (each bounded like the main one). */
const MAX_SUBAGENT_FILES = 64;
/** A sub-agent's `.meta.json` is a few hundred bytes. */
const MAX_META_BYTES = 64 * 1024;
/** A title made from the first prompt is cut to this. */
const TITLE_CHARS = 80;

/** True when a transcript path is Claude Code's (`<home>/projects/<slug>/<id>.jsonl`). */
export function isClaudeTranscript(path: string): boolean {
  return basename(dirname(dirname(path))) === 'projects' && path.endsWith('.jsonl');
}

/** Claude Code's session folder name for a cwd: every character that is not a letter or digit becomes `-`. */
export function claudeSlug(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

/** Where Claude Code keeps a session's transcript: `$CLAUDE_CONFIG_DIR` (else `~/.claude`)/projects/<slug>/<id>.jsonl. */
export function claudeTranscriptPath(
  sessionId: string,
  cwd: string,
  env: Record<string, string | undefined> = process.env,
): string {
  const home = env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude');
  return join(home, 'projects', claudeSlug(cwd), `${sessionId}.jsonl`);
}

/** Sum of the usage of every assistant message (each counted once, by id). */
function usageTotal(summary: TranscriptSummary): TokenCounts | undefined {
  let total: TokenCounts | undefined;
  for (const usage of Object.values(summary.claudeUsage)) total = addTokenCounts(total, usage);
  return total;
}

export interface ReadClaudeSessionOptions {
  sessionId: string;
  transcriptPath: string;
  maxReadBytes: number;
  maxScanBytes: number;
  /** The sub-agent the event is about (SubagentStart/SubagentStop/its tool calls): its `.meta.json` is read. */
  agentId?: string;
  signal?: AbortSignal;
}

/**
 * What Claude Code's local store says about a session: its transcript (title from a `summary` line, else
 * the first prompt a person typed; model; tool calls; messages; prompts; tokens summed from each assistant
 * message's `usage`, once per message id) and its sub-agents' transcripts (`<id>/subagents/agent-*.jsonl`,
 * whose usage is the session's too: Claude's sub-agents run in-process and have no session of their own).
 * Bounded like the Droid reader; counts that need the whole file are left out when it was read in part.
 */
export async function readClaudeSession(opts: ReadClaudeSessionOptions): Promise<LocalSessionInfo> {
  const info: LocalSessionInfo = {
    sessionId: opts.sessionId,
    factoryHome: dirname(dirname(dirname(opts.transcriptPath))),
    transcriptPath: opts.transcriptPath,
    sources: [],
    toolCallsComplete: false,
    bytesRead: 0,
    transcriptComplete: false,
    isSubagent: false,
    warnings: [],
  };
  const read = await readTranscript(opts.transcriptPath, {
    maxReadBytes: opts.maxReadBytes,
    maxScanBytes: opts.maxScanBytes,
    signal: opts.signal,
  });
  const { summary } = read;
  applyTranscriptRead(info, read);
  if (read.size === 0) return info;
  info.sources.push('transcript');
  const prompt = summary.firstPrompt?.split('\n')[0];
  info.title = summary.sessionStart?.title ?? (prompt ? excerpt(prompt, TITLE_CHARS) : undefined);
  if (read.complete) {
    info.messageCount = summary.claudeMessages || undefined;
    info.promptCount = summary.prompts;
    info.tokens = usageTotal(summary);
  } else {
    info.warnings.push(
      `tokens, messages and prompts not counted: the transcript (${read.size} bytes) is larger than maxReadBytes`,
    );
  }

  const subagentsDir = join(dirname(opts.transcriptPath), opts.sessionId, 'subagents');
  if (opts.agentId && /^[A-Za-z0-9_-]+$/.test(opts.agentId)) {
    const meta = await readJsonFileBounded(
      join(subagentsDir, `agent-${opts.agentId}.meta.json`),
      MAX_META_BYTES,
    );
    if (meta.ok && isObject(meta.value)) {
      info.subagent = {
        id: opts.agentId,
        ...(str(meta.value.description) ? { description: str(meta.value.description) } : {}),
        ...(str(meta.value.agentType) ? { agentType: str(meta.value.agentType) } : {}),
      };
    }
  }
  if (info.tokens && !opts.signal?.aborted) await addSubagentTokens(info, subagentsDir, opts);
  return info;
}

async function addSubagentTokens(
  info: LocalSessionInfo,
  dir: string,
  opts: ReadClaudeSessionOptions,
): Promise<void> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.startsWith('agent-') && n.endsWith('.jsonl')).sort();
  } catch {
    return; // no sub-agents
  }
  if (names.length > MAX_SUBAGENT_FILES) {
    info.warnings.push(`only ${MAX_SUBAGENT_FILES} of ${names.length} sub-agent transcripts counted`);
    names = names.slice(0, MAX_SUBAGENT_FILES);
  }
  let budget = opts.maxScanBytes;
  for (const name of names) {
    if (opts.signal?.aborted || budget <= 0) {
      info.warnings.push('sub-agent tokens not all counted: read limit or time budget reached');
      return;
    }
    const read = await readTranscript(join(dir, name), {
      maxReadBytes: Math.min(opts.maxReadBytes, budget),
      maxScanBytes: 0,
      signal: opts.signal,
    });
    budget -= read.bytesRead;
    info.bytesRead += read.bytesRead;
    if (!read.complete) {
      const why = read.size > 0 ? 'larger than the read limit' : (read.warnings[0] ?? 'not readable');
      info.warnings.push(`sub-agent transcript ${name} not counted: ${why}`);
      continue;
    }
    info.tokens = addTokenCounts(info.tokens, usageTotal(read.summary));
    info.subagentCount = (info.subagentCount ?? 0) + 1;
  }
}

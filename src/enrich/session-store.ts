import { homedir } from 'node:os';
import { isAgentId } from '../agents/ids.js';
import { ADAPTERS } from '../agents/adapters/registry.js';
import { dirname, join } from 'node:path';
import { claudeTranscriptPath, isClaudeTranscript, readClaudeSession } from './claude-session.js';
import {
  isCodexTranscript,
  isGeminiTranscript,
  readCodexSession,
  readGeminiSession,
} from './codex-gemini-session.js';
import { isCopilotTranscript, readCopilotSession, type CopilotLogEvent } from './copilot-session.js';
import { findTranscript, resolveFactoryHome } from './factory-home.js';
import { readJsonFileBounded } from './read-bounded.js';
import { applyTranscriptRead, readTranscript } from './read-transcript.js';
import { creditsFrom, tokenCountsFrom } from './tokens.js';
import type { LocalSessionInfo, SessionTag } from './types.js';
import { finite, isObject, str, type Json } from '../util/json-values.js';

/** Default bytes read from a transcript (head and tail together). */
export const DEFAULT_MAX_READ_BYTES = 4 * 1024 * 1024;
/** The backwards scan for a message id may read this many times maxReadBytes more. */
export const SCAN_FACTOR = 8;
const MIN_READ_BYTES = 128 * 1024;
/** Settings files beyond this are not parsed (they are a few KB; a system prompt makes them larger). */
const MAX_SETTINGS_BYTES = 2 * 1024 * 1024;
/** The discovery index holds every session; beyond this it is skipped. */
const MAX_INDEX_BYTES = 32 * 1024 * 1024;

export interface ReadLocalSessionOptions {
  sessionId: string;
  /** The event's transcript_path; the factory home and the settings file are derived from it. */
  transcriptPath?: string;
  /** Default: derived from transcriptPath, else `$FACTORY_HOME`, else `~/.factory`. */
  factoryHome?: string;
  /** A message to find (the Stop payload's message_id); found by a bounded backwards scan if need be. */
  messageId?: string;
  /** Bytes of the transcript read at most for head and tail (default 4 MiB); a scan may add 8x this. */
  maxReadBytes?: number;
  /** Stops reading between chunks; what was read so far is returned. */
  signal?: AbortSignal;
  /** The agent that sent the event: a Claude session without transcript_path is looked for by its cwd. */
  agent?: string;
  /** The event's cwd (Claude: the transcript's folder is the cwd's slug). */
  cwd?: string;
  /** The Claude sub-agent the event is about (`agent_id`). */
  agentId?: string;
  /** The event read for: a Copilot CLI Stop or SessionEnd waits (bounded) for its log to catch up. */
  event?: CopilotLogEvent;
}

function tagsFrom(value: unknown): SessionTag[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const tags = value.filter((t): t is Json => isObject(t) && typeof t.name === 'string');
  return tags.map((t) => ({
    name: t.name as string,
    ...(isObject(t.metadata) ? { metadata: t.metadata } : {}),
  }));
}

function applySettings(info: LocalSessionInfo, settings: Json): void {
  info.model = str(settings.model) ?? info.model;
  info.activeTimeMs = finite(settings.assistantActiveTimeMs) ?? info.activeTimeMs;
  info.tokens = tokenCountsFrom(settings.tokenUsage) ?? info.tokens;
  info.inclusiveTokens = tokenCountsFrom(settings.inclusiveTokenUsage) ?? info.inclusiveTokens;
  info.credits = creditsFrom(settings.tokenUsage) ?? info.credits;
  info.inclusiveCredits = creditsFrom(settings.inclusiveTokenUsage) ?? info.inclusiveCredits;
  const tags = tagsFrom(settings.tags);
  if (tags) {
    info.tags = tags;
    const subagent = tags.find((t) => t.name === 'subagent');
    if (subagent) {
      info.isSubagent = true;
      info.parentId ??= str(subagent.metadata?.callingSessionId);
    }
  }
}

function applyIndexEntry(info: LocalSessionInfo, entry: Json): void {
  info.title ??= str(entry.title);
  info.cwd ??= str(entry.cwd);
  info.messageCount ??= finite(entry.messageCount);
  info.startedAtMs ??= finite(entry.createdTimeMs);
  const modified = finite(entry.modifiedTimeMs);
  if (modified !== undefined && (info.updatedAtMs === undefined || modified > info.updatedAtMs)) {
    info.updatedAtMs = modified;
  }
  if (entry.isSubagent === true) info.isSubagent = true;
}

/**
 * A Copilot CLI session's event log, for its events that name none (only its Stop does): the log is
 * filed under the session's id (`<copilot home>/session-state/<id>/events.jsonl`).
 */
function copilotLogOf(agent: string | undefined, sessionId: string): string | undefined {
  if (!isAgentId(agent) || ADAPTERS[agent].sessions.transcriptFormat !== 'copilot-events') return undefined;
  if (!/^[0-9a-f-]{36}$/.test(sessionId)) return undefined;
  return join(ADAPTERS[agent].sessions.root(process.env, homedir()), sessionId, 'events.jsonl');
}

/**
 * Read what the agent's local session store knows about one session: the transcript
 * (`sessions/<slug>/<id>.jsonl`), its `<id>.settings.json` and `cache/session-discovery-index.json`.
 *
 * Never throws: missing, partial (being written), corrupt, other-version or huge files give what could be
 * read plus `warnings`. A transcript larger than `maxReadBytes` is read as its head (session_start) and a
 * tail window seeked from the end; when `messageId` is not in the tail, a backwards scan reads at most
 * `8 x maxReadBytes` more. The agent's files are only read, never written.
 */
export async function readLocalSession(opts: ReadLocalSessionOptions): Promise<LocalSessionInfo> {
  const maxReadBytes = Math.max(MIN_READ_BYTES, opts.maxReadBytes ?? DEFAULT_MAX_READ_BYTES);
  const path = opts.transcriptPath;
  const own = { sessionId: opts.sessionId, maxReadBytes, ...(opts.signal ? { signal: opts.signal } : {}) };
  if (path && isCodexTranscript(path)) return readCodexSession({ ...own, transcriptPath: path });
  if (path && isGeminiTranscript(path)) return readGeminiSession({ ...own, transcriptPath: path });
  const copilotPath = path ?? copilotLogOf(opts.agent, opts.sessionId);
  if (copilotPath && isCopilotTranscript(copilotPath))
    return readCopilotSession({
      ...own,
      transcriptPath: copilotPath,
      ...(opts.event ? { event: opts.event } : {}),
    });
  const claudePath =
    opts.transcriptPath && isClaudeTranscript(opts.transcriptPath)
      ? opts.transcriptPath
      : !opts.transcriptPath &&
          isAgentId(opts.agent) &&
          ADAPTERS[opts.agent].sessions.transcriptFormat === 'claude-jsonl' &&
          opts.cwd
        ? claudeTranscriptPath(opts.sessionId, opts.cwd)
        : undefined;
  if (claudePath)
    return readClaudeSession({
      sessionId: opts.sessionId,
      transcriptPath: claudePath,
      maxReadBytes,
      maxScanBytes: maxReadBytes * SCAN_FACTOR,
      ...(opts.agentId ? { agentId: opts.agentId } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  const factoryHome = resolveFactoryHome(opts.factoryHome, opts.transcriptPath);
  const info: LocalSessionInfo = {
    sessionId: opts.sessionId,
    factoryHome,
    sources: [],
    toolCallsComplete: false,
    bytesRead: 0,
    transcriptComplete: false,
    warnings: [],
  };

  // The index (one file for every session) is read only when the transcript cannot answer.
  let index = opts.transcriptPath
    ? undefined
    : await readIndexEntry(factoryHome, opts.sessionId, info.warnings);
  let indexRead = !opts.transcriptPath;
  const transcriptPath =
    opts.transcriptPath ??
    (await findTranscript(factoryHome, opts.sessionId, index ? str(index.cwd) : undefined));
  info.transcriptPath = transcriptPath;

  const settingsPath = transcriptPath
    ? join(dirname(transcriptPath), `${opts.sessionId}.settings.json`)
    : undefined;
  // The settings file is read while the transcript is: two independent reads, on the path of every
  // notification.
  const settingsRead = settingsPath ? readJsonFileBounded(settingsPath, MAX_SETTINGS_BYTES) : undefined;
  if (transcriptPath && !opts.signal?.aborted) {
    const read = await readTranscript(transcriptPath, {
      maxReadBytes,
      maxScanBytes: maxReadBytes * SCAN_FACTOR,
      messageId: opts.messageId,
      signal: opts.signal,
    });
    const { summary } = read;
    applyTranscriptRead(info, read);
    if (read.size > 0 || summary.sessionStart) info.sources.push('transcript');
    const start = summary.sessionStart;
    info.title = start?.title;
    info.cwd = start?.cwd;
    info.parentId = start?.callingSessionId ?? start?.parent;
    if (start?.callingSessionId) info.isSubagent = true;
    if (read.complete && summary.messageLines > 0) info.messageCount = summary.messageLines;
  } else if (!transcriptPath) {
    info.warnings.push(`no local transcript for session ${opts.sessionId} under ${factoryHome}`);
  }

  if (settingsRead) {
    const settings = await settingsRead;
    if (settings.ok && isObject(settings.value)) {
      applySettings(info, settings.value);
      info.sources.push('settings');
    } else if (!settings.ok && settings.reason !== 'missing') {
      info.warnings.push(`session settings ${settings.reason}`);
    }
  }

  if (!indexRead && (!info.title || info.startedAtMs === undefined || info.messageCount === undefined)) {
    index = await readIndexEntry(factoryHome, opts.sessionId, info.warnings);
    indexRead = true;
  }
  if (index) {
    applyIndexEntry(info, index);
    info.sources.push('index');
  }
  info.isSubagent ??= false;
  return info;
}

async function readIndexEntry(
  factoryHome: string,
  sessionId: string,
  warnings: string[],
): Promise<Json | undefined> {
  const read = await readJsonFileBounded(
    join(factoryHome, 'cache', 'session-discovery-index.json'),
    MAX_INDEX_BYTES,
  );
  if (!read.ok) {
    if (read.reason !== 'missing') warnings.push(`session index ${read.reason}`);
    return undefined;
  }
  const entries = isObject(read.value) ? read.value.entries : undefined;
  const entry = isObject(entries) ? entries[sessionId] : undefined;
  return isObject(entry) ? entry : undefined;
}

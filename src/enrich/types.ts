/** Types shared by the session-store reader, the enricher, the templates and the ledger. */

/** Token counts of a session, in hookd's names (the agent's names in parentheses). */
export interface TokenCounts {
  /** Input tokens sent to the model (inputTokens). */
  input: number;
  /** Tokens generated (outputTokens). */
  output: number;
  /** Tokens read from the prompt cache (cacheReadTokens). */
  cacheRead: number;
  /** Tokens written to the prompt cache (cacheCreationTokens). */
  cacheWrite: number;
  /** Reasoning tokens (thinkingTokens). */
  thinking: number;
  /** input + output + cacheRead + cacheWrite + thinking: every token the session processed. */
  total: number;
}

/** A tag as the agent and the platform store it in session settings. */
export interface SessionTag {
  name: string;
  metadata?: Record<string, unknown>;
}

/** One message found in a transcript. */
export interface TranscriptMessage {
  id: string;
  role: string;
  /** The message's text parts joined with a newline ('' when it has none, e.g. only tool calls). */
  text: string;
  /** Unix ms of the message's timestamp, when it has a valid one. */
  timestampMs?: number;
}

/** What {@link readLocalSession} could learn about one session from the agent's local store. */
export interface LocalSessionInfo {
  sessionId: string;
  /** The agent's home that was read (`~/.factory` or `$FACTORY_HOME`). */
  factoryHome: string;
  /** The transcript that was read (or looked for). */
  transcriptPath?: string;
  /** Which files answered: 'transcript', 'settings', 'index'. */
  sources: string[];
  title?: string;
  cwd?: string;
  /** The calling session of a sub-agent, else the session this one was continued from (compaction). */
  parentId?: string;
  /** True for a sub-agent session (started by the Task tool). */
  isSubagent?: boolean;
  model?: string;
  /** Messages in the session (the discovery index, or a transcript read whole). */
  messageCount?: number;
  /** Unix ms of the session's start (index createdTimeMs, else the first message timestamp). */
  startedAtMs?: number;
  /** Unix ms of the last change seen (index modifiedTimeMs, else the last message timestamp). */
  updatedAtMs?: number;
  /** Time the assistant was active (assistantActiveTimeMs). */
  activeTimeMs?: number;
  /** This session's own usage (tokenUsage). */
  tokens?: TokenCounts;
  /** Usage including sub-agents (inclusiveTokenUsage). */
  inclusiveTokens?: TokenCounts;
  /** Credits used by this session (tokenUsage.factoryCredits). */
  credits?: number;
  /** Credits including sub-agents. */
  inclusiveCredits?: number;
  /** Tool calls by tool name, from the part of the transcript that was read. */
  toolCalls?: Record<string, number>;
  /** True when toolCalls counts the whole transcript (false for a huge one read head and tail). */
  toolCallsComplete: boolean;
  /** The last assistant message with text. */
  lastAssistantMessage?: TranscriptMessage;
  /** The message asked for by `messageId`, when found. */
  message?: TranscriptMessage;
  /** Tool names of the last assistant message's tool calls (what a permission prompt is about). */
  pendingTools?: string[];
  tags?: SessionTag[];
  /** Claude Code: prompts typed by a person (not `<task-notification>`s), when the transcript was read whole. */
  promptCount?: number;
  /** Claude Code: sub-agent transcripts whose usage is counted in `tokens`. */
  subagentCount?: number;
  /** Claude Code: the sub-agent the event is about, from its `.meta.json`. */
  subagent?: { id: string; description?: string; agentType?: string };
  /** Bytes read from the transcript (bounded by maxReadBytes plus the backwards-scan cap). */
  bytesRead: number;
  /** The transcript's size when it was read. */
  transcriptBytes?: number;
  /** True when the whole transcript was read. */
  transcriptComplete: boolean;
  /** What could not be read, in words (no secrets, no file contents). */
  warnings: string[];
}

/** The platform API's session data, as far as enrichment uses it (a subset of the API's Session). */
export interface ApiSessionData {
  sessionId?: string;
  title?: string;
  status?: string;
  messageCount?: number;
  createdAt?: number;
  updatedAt?: number;
  completedAt?: number;
  computerId?: string;
  sessionSettings?: {
    model?: string;
    assistantActiveTimeMs?: number;
    tokenUsage?: Record<string, unknown>;
    inclusiveTokenUsage?: Record<string, unknown>;
    tags?: SessionTag[];
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** Session facts for templates and the ledger. */
export interface EnrichedSession {
  id: string;
  title?: string;
  /** The project directory (the agent's project dir, else the git root, else cwd). */
  project?: string;
  /** The project directory's last path segment. */
  projectName?: string;
  cwd?: string;
  /** The git branch, when `.git/HEAD` could be read cheaply. */
  branch?: string;
  parentId?: string;
  isSubagent: boolean;
  model?: string;
  messageCount?: number;
  /** Prompts typed by a person (Claude Code; a `<task-notification>` is not one). */
  promptCount?: number;
  /** The session's duration so far (SessionEnd session_duration_ms, else start to last change). */
  durationMs?: number;
  /** The last turn's duration (Stop elapsed_time). */
  turnDurationMs?: number;
  /** Time the assistant was active. */
  activeTimeMs?: number;
  startedAtMs?: number;
  /** Usage including sub-agents when known, else the session's own. */
  tokens?: TokenCounts;
  /** The session's own usage, without sub-agents (what the ledger sums). */
  ownTokens?: TokenCounts;
  credits?: number;
  ownCredits?: number;
  toolCalls?: Record<string, number>;
  tags?: SessionTag[];
}

/** Everything enrichment adds to one event, for templates, logs and the ledger. */
export interface Enrichment {
  session: EnrichedSession;
  /** The final assistant message (Stop: by message_id; Claude: last_assistant_message). */
  lastMessage?: string;
  /** lastMessage shortened for a notification. */
  lastMessageExcerpt?: string;
  /** The tool(s) a permission prompt is about, when known. */
  pendingTool?: string;
  /** A sub-agent's task, on SubagentStop. */
  task?: { name?: string; result?: string; error?: string };
  /** Where the facts came from: event, transcript, settings, index, git, cache, api:message, api:session. */
  sources: string[];
  /** What could not be learned, in words. */
  warnings: string[];
  /** True when the time budget ran out before every source answered. */
  budgetExceeded: boolean;
}

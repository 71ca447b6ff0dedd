import type { AgentId } from './ids.js';

/**
 * The adapter interface: everything hookd knows about one coding agent, in one object per agent
 * (docs/agents/README.md). `AgentProtocol` is the part the hook path needs on every event (data only,
 * loaded by `dist/hook.cjs`); `AgentAdapter` adds what install, doctor, enrichment and the ledger need.
 * Consumers ask the adapter (through `registry.ts`, or `protocols.ts` on the hook path) instead of
 * comparing agent ids.
 */

/** hookd's own names for the events every agent has in some form; an agent's name maps onto one. */
export const CANONICAL_EVENTS = [
  'session-start',
  'prompt',
  'before-tool',
  'after-tool',
  'tool-failed',
  'permission',
  'notification',
  'stop',
  'stop-failed',
  'subagent-start',
  'subagent-stop',
  'before-compact',
  'after-compact',
  'interrupt',
  'session-end',
] as const;
export type CanonicalEvent = (typeof CANONICAL_EVENTS)[number];

/** What a tool does, whatever the agent calls it: a hook entry may match these as well as the names. */
export const TOOL_KINDS = ['shell', 'edit', 'write', 'read', 'fetch', 'task', 'mcp'] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];

/**
 * The agent's tool names and what kind of tool each is; an MCP tool is named `<mcpToolPrefix><server>__<tool>`
 * (kind `mcp`). Data only: a hook entry's `kinds` are matched against it.
 */
export interface ToolTable {
  tools: Readonly<Record<string, ToolKind>>;
  mcpToolPrefix: string;
}

/** Where a file of the agent's settings sits in its precedence, lowest first: user, project, local, managed. */
export type SettingsLayer = 'user' | 'project' | 'local' | 'managed';

/**
 * The shapes of file that hold hooks: a settings file (its `hooks` key), a hooks-only file, or a TOML
 * config whose `hooks` tables hold hooks in the settings layout (Codex CLI's config.toml: hookd reads it,
 * never writes it).
 */
export type HooksFileKind = 'settings' | 'hooks-json' | 'settings-toml';

/**
 * How the agent reads an entry's `matcher`:
 * - `exact-or-regexp`: empty or `*` matches all; an exact name, else an unanchored JavaScript RegExp;
 * - `name-list-or-regexp`: a matcher made only of name characters is a list of exact names (split on
 *   `|`, and for the `wideListEvents` also on `,`, with spaces and `-` allowed), else a RegExp.
 */
export type MatcherSyntax = 'exact-or-regexp' | 'name-list-or-regexp';

export interface MatcherRules {
  syntax: MatcherSyntax;
  /** The payload field an event's matcher is tested against; events not listed ignore the matcher. */
  fieldByEvent: Readonly<Record<string, string>>;
  /** `name-list-or-regexp`: the events whose lists also split on `,` and allow spaces and `-`. */
  wideListEvents?: readonly string[];
  /** Events whose matcher is tested against the base name of the field's value (a file path). */
  baseNameEvents?: readonly string[];
}

/**
 * How a command's answer is written back to the agent, and how the agent combines several.
 * Exit 0 lets the event go on; exit 2 blocks it (its stderr reaches the model); a JSON object on stdout
 * carries a decision (`hookSpecificOutput.permissionDecision`, `decision: "block"`, ...).
 */
export interface ReplyRules {
  /** What the agent tests for a JSON answer: trimmed stdout, or the raw stdout (JSON only when it starts with `{`). */
  jsonStdout: 'trimmed' | 'raw';
  /** Several decisions: the first in config order wins, or the strongest (deny, then ask, then allow). */
  verdict: 'first' | 'strongest';
  /** Exit 1 with stderr is shown to the model as an error (Droid), rather than only logged. */
  exit1ShowsStderr: boolean;
  /**
   * Whether a PreToolUse answer can say "ask" (let a person decide). When it cannot, the nearest safe
   * answer hookd gives instead (`deny`: block, and say why), `who` naming what cannot ask in that reason
   * (`<event>` stands for the event's name), and the events whose own answer can ask after all (`events`:
   * Cursor's `{"permission": "ask"}`, written as `blockReason: 'permission'` writes a deny).
   */
  ask: 'supported' | { nearest: 'deny'; who: string; events?: readonly string[] };
  /** Every byte the agent reads on stdout must be JSON (no plain text at all). */
  stdoutJsonOnly: boolean;
  /** Events whose plain stdout is context for the model. */
  contextEvents: readonly string[];
  /** Events where exit 2 makes the agent go on instead of stopping: hookd never answers them 2 for its own failure. */
  goOnEvents: readonly string[];
  /**
   * `json`: exit 2 blocks a PreToolUse but its stderr never reaches the model (Copilot CLI), so hookd
   * answers a deny as `hookSpecificOutput.permissionDecision: "deny"` with the reason. `permission`:
   * the agent's documented answer to its before-* events is `{"permission": "deny", "user_message",
   * "agent_message"}` (Cursor), which hookd writes beside exit 2 (so the call stays blocked whichever
   * the agent reads). Absent: exit 2.
   */
  blockReason?: 'json' | 'permission';
  /** The events whose block `blockReason` rewrites (hookd's names); default PreToolUse. */
  blockEvents?: readonly string[];
}

/**
 * How to tell from a payload and the hook's environment which agent sent it, when the hook command does
 * not say. Signals are tried in `rank` order across all agents (lower first); the first that holds wins.
 */
export interface DetectSignal {
  rank: number;
  /** This variable is set and equals the payload's `session_id` (a proof an enclosing session cannot fake). */
  sessionEnv?: string;
  /** Any of these variables is set. */
  env?: readonly string[];
  /** Any of these payload fields is present. */
  fields?: readonly string[];
  /** The payload's `transcript_path` contains this text. */
  transcriptMarker?: string;
  /** With `transcriptMarker`: the whole `transcript_path` must also match this. */
  transcriptPattern?: RegExp;
}

/** A time the agent gives a hook, and the unit it writes it in. */
export interface Timeouts {
  /** The unit of an entry's `timeout` in the agent's settings. */
  unit: 's' | 'ms';
  /** The agent's own default for an entry without one, in that unit. */
  agentDefault: number;
  /** What `hookd install` writes on each entry, in that unit. */
  installDefault: number;
  /** The largest value hookd accepts for --timeout, in that unit. */
  max: number;
  /** Events the agent gives less time (teardown), in ms, and what extends it. */
  teardown: readonly { event: string; budgetMs: number; note: string }[];
}

/**
 * An agent hookd recognises without an adapter (ids.ts RECOGNISED_AGENTS): how to tell its events, and
 * how they map onto hookd's. Data only, read on the hook path.
 */
export interface RecognisedProtocol {
  detect: readonly DetectSignal[];
  /** The agent's event names that have a counterpart in hookd's (Claude Code's) names. */
  eventNames: Readonly<Record<string, string>>;
  /** The payload field naming the session, when it is not `session_id`. */
  sessionIdField: string;
}

/**
 * The part of an adapter the hook path reads on every event (`dist/hook.cjs`): plain data, no imports,
 * no functions. Keep it small: the hook bundle has a budget (docs/performance.md).
 */
export interface AgentProtocol {
  id: AgentId;
  /** The events the agent fires, in its own names; unknown ones pass through hookd untouched. */
  events: readonly string[];
  matcher: MatcherRules;
  reply: ReplyRules;
  detect: readonly DetectSignal[];
  /**
   * The variables that name the session's project dir, in order; the payload's cwd when none is set.
   * An enclosing session of another agent may leave its own variables in the environment.
   */
  projectDirEnv: readonly string[];
}

/** One file that may hold the agent's hooks. */
export interface HooksFileRef {
  layer: SettingsLayer;
  kind: HooksFileKind;
  file: string;
}

/** Where the settings files are looked for. */
export interface SettingsOptions {
  home: string;
  /** The project dir, resolved. */
  project: string;
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  /** The managed settings folder, when the caller overrides the platform's (tests, doctor). */
  managedDir?: string;
  /** The managed folder's drop-in files, read and sorted by the caller. */
  managedDropIns?: readonly string[];
}

export interface SettingsLayout {
  /** The agent's folder under the home folder and the project (`.factory`, `.claude`). */
  dirName: string;
  /** The layers hookd may write (install/uninstall); the others it only reads. */
  writableLayers: readonly SettingsLayer[];
  /**
   * Every file whose hooks the agent reads, in the order it runs them (lowest precedence first). A project
   * that is the home folder adds nothing.
   */
  files(options: SettingsOptions): HooksFileRef[];
  /** The machine's managed settings folder, if the agent has one. */
  managedDir?(platform: NodeJS.Platform): string;
  /** The `type`s a hook entry may have, each with the field holding its body (`command`, `prompt`, `url`). */
  hookTypes: Readonly<Record<string, string>>;
  /**
   * Keys the agent accepts inside its hooks object beside the event names: settings, not events (Droid's
   * `hooksDisabled`, `showHookOutput`).
   */
  switches: readonly string[];
  /** Whether a project's entry with the same command as a user's runs once (deduplicated by the agent). */
  dedupesAcrossFiles: boolean;
  /** The agent's deduplication also compares the hooks' `name` (Gemini CLI): other names, both run. */
  dedupesByName?: boolean;
}

export interface InstallRules {
  /** Events `hookd install` wires by default. */
  defaultEvents: readonly string[];
  timeouts: Timeouts;
  /** Other agents this agent also reads the hooks of (an entry there fires here too). */
  readsHooksOf: readonly AgentId[];
  /**
   * The `env` keys of the agent's settings that make it export its own OpenTelemetry metrics and logs
   * over OTLP/HTTP to `endpoint` with `headers` (`hookd install --otel`); absent when hookd cannot
   * point the agent at its receiver. Never the keys that add prompt text or tool details.
   */
  otelEnv?(endpoint: string, headers: string): Record<string, string>;
  /**
   * When the agent exports OpenTelemetry but hookd cannot switch it on in its settings: why (the
   * `--otel` error) and what to set by hand instead, for the receiver at `endpoint` whose token is in
   * `tokenFile`.
   */
  otelByHand?(endpoint: string, tokenFile: string): { why: string; instead: string };
}

/** Where the agent keeps its sessions, for enrichment and the ledger. */
export interface SessionStore {
  /** The transcript format the enricher reads. */
  transcriptFormat: 'droid-jsonl' | 'claude-jsonl' | 'codex-rollout' | 'gemini-chat' | 'copilot-events';
  /** The folder under which transcripts live (`<root>/sessions/...`, `<root>/projects/...`). */
  root(env: Readonly<Record<string, string | undefined>>, home: string): string;
  /** True when a transcript path is this agent's. */
  ownsTranscript(path: string): boolean;
  /** The folder name a session's cwd becomes under the root. */
  slug(cwd: string): string;
}

/** One hook of a hooks file, as the agent numbers it: `<event>[group].hooks[handler]`. */
export interface HookPlace {
  /** The hooks file, every symlink resolved. */
  file: string;
  event: string;
  group: number;
  handler: number;
  entry: Record<string, unknown>;
  hook: Record<string, unknown>;
}

/** Whether the agent runs a hook, by the user's own review: trusted, never trusted, changed since, switched off. */
export type HookTrustStatus = 'trusted' | 'untrusted' | 'modified' | 'disabled';

/** An agent that runs a hook only after the user reviewed and trusted it (Codex CLI). */
export interface HookTrustRules {
  /** The file where the agent records the user's trust. */
  file(env: Readonly<Record<string, string | undefined>>, home: string): string;
  /** What the user does to review and trust hooks, as one sentence of steps. */
  steps: string;
  /** Reads that file's text (empty when absent) into a judge of each hook's trust. */
  read(text: string): (place: HookPlace) => HookTrustStatus;
}

/** Where the agent writes its own complaints about hooks, which doctor reads. */
export interface DoctorRules {
  /** The log folder, beside the user settings file (`logs`, `debug`). */
  logFolder: string;
  /** The file names read there end with this. */
  logExt: string;
  /** The lines that say a hook or setting was skipped. */
  logMarkers: readonly string[];
  /** Set when the agent runs only the hooks the user trusted. */
  hookTrust?: HookTrustRules;
}

/** Everything hookd knows about one agent. */
export interface AgentAdapter extends AgentProtocol, ToolTable {
  displayName: string;
  /** The agent's event names and hookd's canonical event each stands for. */
  canonicalEvents: Readonly<Record<string, CanonicalEvent>>;
  settings: SettingsLayout;
  install: InstallRules;
  sessions: SessionStore;
  doctor: DoctorRules;
  /** The recorded payloads of the real binary: `test/fixtures/<folder>/`, and the version recorded. */
  fixtures: { folder: string; version: string };
  /** The protocol as observed: `docs/agents/<id>.md`. */
  docs: string;
}

import { AGENT_IDS, RECOGNISED_AGENTS, type AgentKind } from '../agents/ids.js';

export type { AgentKind } from '../agents/ids.js';

/** Every AgentKind, as a list: the daemon protocol's schema and the ledger check against it. */
export const AGENT_KINDS = [
  ...AGENT_IDS,
  ...RECOGNISED_AGENTS,
  'unknown',
] as const satisfies readonly AgentKind[];

/** The agent's payload, parsed leniently: any JSON object; known fields are read where needed. */
export type HookPayload = Record<string, unknown>;

/** One event as hookd sees it: the raw payload plus what hookd adds. */
export interface HookEvent {
  /** Unique id given by `hookd hook`; the daemon's idempotency key. */
  id: string;
  /** Unix ms when hookd received it. */
  receivedAt: number;
  agent: AgentKind;
  /** hook_event_name, or "Unknown" when the payload has none. */
  name: string;
  sessionId?: string;
  cwd?: string;
  transcriptPath?: string;
  /** The agent's project dir (FACTORY_PROJECT_DIR / CLAUDE_PROJECT_DIR), else cwd. */
  projectDir?: string;
  payload: HookPayload;
}

/** How one command ended, summarised for the daemon and the log. A failure is a value, never a throw. */
export interface CommandOutcome {
  name: string;
  command: string;
  /** Exit code, or null when killed by a signal or never started. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  /** Set when the command could not be started at all. */
  spawnError?: string;
  blocking: boolean;
  /** The config level the command came from (user, or a trusted project file). */
  origin?: 'user' | 'project';
}

/**
 * A message about hookd itself for the user's desktop (an untrusted project file, a broken config file),
 * carried by an event's hand-off; the hook adds each one once per cause (its key), the daemon shows it.
 */
export interface HookdNotice {
  key: string;
  title: string;
  body: string;
}

/** The message `hookd hook` hands to the daemon (protocol v1, one JSON line). */
export interface EventHandoff {
  v: 1;
  type: 'event';
  event: HookEvent;
  results: CommandOutcome[];
  notices?: HookdNotice[];
}

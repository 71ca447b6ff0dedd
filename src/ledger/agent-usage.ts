/** One model's share of a session, as the agent's own telemetry reported it. */
export interface AgentModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  /** USD; null when the agent reported no cost. */
  costUsd: number | null;
}

/**
 * A session's usage from the agent's own OpenTelemetry (Claude Code's `claude_code.token.usage` and
 * `cost.usage`): exact figures, beside the transcript's `tokens`. It may arrive after the session ended;
 * the ledger then completes the record (docs/telemetry.md).
 */
export interface AgentUsage extends AgentModelUsage {
  source: 'agent-telemetry';
  /** Per model name ('' when the agent named none). */
  models: Record<string, AgentModelUsage>;
  /** When the agent last reported (Unix ms). */
  updatedAtMs: number;
}

/**
 * Where the session tracker reads a session's agent usage when it writes the record, and where the
 * receiver completes records written before the usage arrived: the daemon attaches its receiver.
 */
export class AgentUsageLink {
  private source: ((sessionId: string) => AgentUsage | undefined) | undefined;

  attach(source: (sessionId: string) => AgentUsage | undefined): void {
    this.source = source;
  }

  of(sessionId: string): AgentUsage | undefined {
    return this.source?.(sessionId);
  }
}

/**
 * Every default of hookd's own settings, in one place. The schema, the runner, the docs and
 * `hookd config` all read them from here.
 */
export const DEFAULTS = {
  /** Per-command timeout, below the agent's own 60 s so hookd always answers first. */
  commandTimeoutSec: 30,
  /** All commands of one event must end within this budget (the agent gives hookd 60 s). */
  eventBudgetSec: 55,
  /** Budgets for events the agent waits less for: SessionStart hooks are waited for 10 s at most. */
  eventBudgetSecByEvent: { SessionStart: 9 } as Record<string, number>,
  /** SIGTERM to the process group, then SIGKILL after this grace. */
  killGraceMs: 500,
  /** Captured bytes kept per stream of each command (head and tail are kept). */
  maxOutputBytes: 64 * 1024,
  /**
   * Bytes of stdin accepted from the agent (env HOOKD_MAX_STDIN_BYTES: read before any config). The
   * agents set no limit of their own (both handed a hook a 100 MiB Write whole); Claude Code edits files
   * up to 1 GiB and its PostToolUse carries the whole file: 2 GiB covers that with room for JSON escapes.
   */
  maxStdinBytes: 2 * 1024 * 1024 * 1024,
  /** Bytes of stdin held in memory; past them it goes to a private file (env HOOKD_STDIN_MEMORY_BYTES). */
  stdinMemoryBytes: 8 * 1024 * 1024,
  /** How long hookd waits for more of stdin before it gives up on an agent that does not close it (env HOOKD_STDIN_TIMEOUT_MS). */
  stdinTimeoutMs: 5000,
  /** Dead-letter folder keeps at most this many rejected inputs (oldest removed first). */
  deadLetterMax: 200,
  /** Bytes of each output tail written to the log. */
  logTailBytes: 2048,
} as const;

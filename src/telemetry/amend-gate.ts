import type { AgentUsage } from '../ledger/agent-usage.js';
import { MAX_SESSIONS } from './usage-book.js';

/** The first amendment of a session may follow its change by this much (the usage book's save interval). */
export const AMEND_FIRST_WAIT_MS = 2000;
/** Amendment lines one session gets at most while the daemon runs. */
export const MAX_AMENDMENTS = 10;

interface SessionState {
  /** Amendments written for the session. */
  written: number;
  /** When the last one was written (Unix ms). */
  lastAt: number;
  /** The usage the ledger carries for the session (its record or its last amendment), as compared. */
  carried: string | undefined;
}

/** The usage as compared: everything but when the agent last reported. */
const comparable = ({ updatedAtMs: _at, ...usage }: AgentUsage): string => JSON.stringify(usage);

/**
 * Decides when a session's changed usage is appended to the ledger (docs/telemetry.md), so that whoever
 * holds the receiver's token cannot make the ledger grow without end: only usage that differs from what
 * the ledger already carries, at most MAX_AMENDMENTS lines per session, the n-th at the earliest
 * AMEND_FIRST_WAIT_MS × 2^(n-1) after the one before (2 s, 4 s, 8 s... about 17 minutes for the tenth).
 * A change that must wait is not lost: the latest usage is written when the wait is over. Kept for the
 * MAX_SESSIONS most recently seen sessions.
 */
export class AmendGate {
  private readonly sessions = new Map<string, SessionState>();

  private state(sessionId: string): SessionState {
    const state = this.sessions.get(sessionId) ?? { written: 0, lastAt: 0, carried: undefined };
    this.sessions.delete(sessionId);
    this.sessions.set(sessionId, state);
    if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
    return state;
  }

  /** The session's record was written with this usage. */
  carried(sessionId: string, usage: AgentUsage): void {
    this.state(sessionId).carried = comparable(usage);
  }

  /**
   * When `usage` may be appended for the session: a time (now or later; ask again then), or 'skip' when
   * the ledger already carries it or the session had all its amendments.
   */
  due(sessionId: string, usage: AgentUsage, now: number): number | 'skip' {
    const state = this.sessions.get(sessionId);
    if (!state) return now;
    if (state.carried === comparable(usage) || state.written >= MAX_AMENDMENTS) return 'skip';
    if (state.written === 0) return now;
    return Math.max(now, state.lastAt + AMEND_FIRST_WAIT_MS * 2 ** state.written);
  }

  /** An amendment with `usage` was written at `now`. */
  wrote(sessionId: string, usage: AgentUsage, now: number): void {
    const state = this.state(sessionId);
    state.written += 1;
    state.lastAt = now;
    state.carried = comparable(usage);
  }
}

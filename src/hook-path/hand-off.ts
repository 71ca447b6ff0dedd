import type { Env } from '../paths.js';
import type { EventHandoff } from '../events/types.js';
import type { PermissionRequest } from '../remote/types.js';

/**
 * The contract between the hook and the daemon client (src/link/client.ts, bundled as dist/client.cjs):
 * the hook defines it, the client implements it, so the hook never imports the daemon (docs/architecture.md).
 */
export interface HandOffOptions {
  env?: Env;
  /** How long to wait for the daemon's acknowledgement (connect included). */
  timeoutMs?: number;
  /** Start the daemon in the background when it is down (needs daemonArgv). */
  autoStart?: boolean;
  /** How to start it, e.g. [process.execPath, '/abs/dist/hookd.cjs', 'daemon', 'run']. */
  daemonArgv?: string[];
  /**
   * The caller exits as soon as the hand-off is done (the hook): its connection is left for the exit to
   * close. Closing a socket in Node creates process.stderr, a stream of its own over the agent's pipe.
   */
  exitAfter?: boolean;
  /**
   * fsync an event that goes to the spool (`daemon.fsync`, as the daemon's journal): safety against a
   * power loss. Without it a spooled event still survives a killed process: the kernel holds the file.
   * Default true.
   */
  fsync?: boolean;
}

export interface HandOffResult {
  /**
   * acked: the daemon journaled it; queued: left in the spool of a running daemon that watches it;
   * spooled: left in the spool because the daemon could not be reached (started, when allowed); failed.
   */
  outcome: 'acked' | 'queued' | 'spooled' | 'failed';
  error?: string;
  /** True when this call started a daemon in the background. */
  started?: boolean;
}

/** The daemon client's hand-off, injected so the hook loads it only when used. */
export type HandOff = (message: EventHandoff, options?: HandOffOptions) => Promise<HandOffResult>;

/** A permission prompt the hook asks the daemon to send away (remote answers, docs/remote.md). */
export interface RemoteAskMessage extends PermissionRequest {
  v: 1;
  type: 'permission';
}

/** The daemon's answer: a decision, or why there is none (then the agent's own prompt decides). */
export interface RemoteAskResult {
  decision?: 'allow' | 'deny';
  by?: string;
  via?: string;
  ask?: string;
  reason?: string;
}

/** Asks the daemon and waits at most `message.waitMs`; never throws (no answer = no decision). */
export type AskRemote = (message: RemoteAskMessage, options?: { env?: Env }) => Promise<RemoteAskResult>;

/** The answer a call gave its agent, as a copy of the same event gives it too. */
export interface OnceAnswer {
  exitCode: 0 | 1 | 2;
  stdout: string;
  stderr: string;
}

/**
 * This call's place among the calls of one event (docs/daemon.md, "The same event twice"): the first runs
 * it and says how it went (`settle`; undefined: it was not run, its copies run themselves); a copy gets
 * the first one's answer; alone: no daemon to ask, or (`waited`) the first call died or gave no answer
 * in time: it runs the event itself.
 */
export type OnceTurn =
  | { role: 'lead'; settle(answer: OnceAnswer | undefined): Promise<void> }
  | { role: 'copy'; answer: OnceAnswer }
  | { role: 'alone'; reason: string; waited?: boolean };

/**
 * Asks the daemon for this event's turn: it says within `askMs` (else the call runs alone), a copy
 * waits at most `waitMs` for the first call's answer, and a first call says it answers within `budgetMs`.
 */
export type ClaimOnce = (
  key: string,
  options: { env?: Env; askMs: number; waitMs: number; budgetMs?: number; session?: string; id?: string },
) => Promise<OnceTurn>;

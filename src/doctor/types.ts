import type { Env } from '../paths.js';
import type { FetchLike } from '../channels/http.js';

/** How one check ended. `warn` is worth a look but does not fail the run; `skip` means it did not apply. */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

/** One line of `hookd doctor`: what was checked, how it ended, and what to do about it. */
export interface CheckResult {
  /** Stable identifier for scripts, e.g. `node`, `droid-settings-user`, `channel:team`. */
  id: string;
  title: string;
  status: CheckStatus;
  /** What was found; may span several lines (one per problem). Never contains a secret. */
  detail: string;
  /** What to do, for `warn` and `fail`. */
  fix?: string;
}

export interface DoctorOptions {
  /** Where every path, key and `${VAR}` comes from (HOME, XDG_*, HOOKD_*). */
  env: Env;
  /** The project whose `.factory/` and `.claude/` settings are checked (default: the current directory). */
  projectDir: string;
  /** Deadline of each network check, in ms. */
  timeoutMs?: number;
  /** Send a real test notification through each enabled channel. */
  sendTest?: boolean;
  /** Claude Code's managed settings folder (default: the platform's, /etc/claude-code on Linux). */
  claudeManagedDir?: string;
  /** Fire a harmless PreToolUse through each agent's installed hook command (`--drill`). */
  drill?: boolean;
  /** Edges, injected by tests. */
  fetch?: FetchLike;
  now?: () => number;
  nodeVersion?: string;
  platform?: NodeJS.Platform;
  arch?: string;
  /** Called whenever a check finishes, with the titles of those still running. */
  onProgress?: (progress: { done: number; total: number; running: string[] }) => void;
}

/** Builds a result; `fix` is kept only when there is one. */
export function result(
  id: string,
  title: string,
  status: CheckStatus,
  detail: string,
  fix?: string,
): CheckResult {
  return { id, title, status, detail, ...(fix ? { fix } : {}) };
}

/** The worst of several statuses (fail > warn > ok > skip). */
export function worstStatus(statuses: readonly CheckStatus[]): CheckStatus {
  const order: CheckStatus[] = ['skip', 'ok', 'warn', 'fail'];
  return statuses.reduce<CheckStatus>(
    (worst, s) => (order.indexOf(s) > order.indexOf(worst) ? s : worst),
    'skip',
  );
}

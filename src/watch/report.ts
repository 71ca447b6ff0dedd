import { WATCHER_NAMES, type WatchConfig, type WatcherName } from '../config/schemas/watch-schema.js';
import type { NotifyConfig } from '../config/schemas/notify-schema.js';
import { formatDuration } from '../util/text/format-duration.js';
import { freshWatcherState, readWatchFile, type WatcherState } from './state-file.js';
import { WATCH_DEFAULT_RULE, watchRules, withWatchDefault } from './routing.js';
import type { RaiseKind, WatchClient, WatchRaise } from './types.js';
import { WATCHERS } from './watchers.js';

/** What `hookd watch list|test|explain` show (docs/watch.md); the CLI formats these. */

export interface WatcherRow {
  name: WatcherName;
  enabled: boolean;
  intervalMs: number;
  status: WatcherState['status'] | 'off';
  lastPollAt?: number | undefined;
  nextPollAt?: number | undefined;
  /** Failed polls in a row; with them, how long the watcher waits before it asks again (backoff). */
  failures: number;
  backoffMs?: number | undefined;
  raised: number;
  summary?: string | undefined;
  lastError?: string | undefined;
}

export interface WatchListing {
  file: string;
  /** Why the saved state could not be read (the daemon moves such a file aside at its next start). */
  problem?: string;
  watchers: WatcherRow[];
}

function savedStates(file: string): { states: Partial<Record<WatcherName, WatcherState>>; problem?: string } {
  const read = readWatchFile(file);
  if (read.ok) return { states: read.file.watchers };
  return read.missing ? { states: {} } : { states: {}, problem: read.problem };
}

/** One row per watcher: its settings and its state (saved, or the running daemon's). */
export function watcherRows(
  config: WatchConfig,
  states: Partial<Record<WatcherName, WatcherState>>,
): WatcherRow[] {
  return WATCHER_NAMES.map((name): WatcherRow => {
    const enabled = config[name].enabled;
    const state = states[name];
    const failures = state?.failures ?? 0;
    const backoff =
      failures > 0 && state?.nextPollAt !== undefined && state.lastPollAt !== undefined
        ? state.nextPollAt - state.lastPollAt
        : undefined;
    return {
      name,
      enabled,
      intervalMs: config[name].interval,
      status: enabled ? (state?.status ?? 'new') : 'off',
      lastPollAt: state?.lastPollAt,
      nextPollAt: state?.nextPollAt,
      failures,
      ...(backoff !== undefined ? { backoffMs: backoff } : {}),
      raised: state?.raised ?? 0,
      summary: state?.summary,
      lastError: state?.lastError,
    };
  });
}

/** Every watcher, its settings and what the daemon saved about it. */
export function listWatchers(config: WatchConfig, file: string): WatchListing {
  const { states, problem } = savedStates(file);
  return { file, ...(problem ? { problem } : {}), watchers: watcherRows(config, states) };
}

export interface WatchTestResult {
  watcher: WatcherName;
  ok: boolean;
  /** True when the daemon has no saved state for it: this poll only takes a baseline. */
  baseline: boolean;
  summary?: string;
  /** What the daemon would raise now (nothing is sent, nothing saved). */
  wouldRaise: WatchRaise[];
  error?: string;
}

/** One poll now, from the daemon's saved state: what it sees and would raise. Sends and saves nothing. */
export async function testWatcher(
  name: WatcherName,
  client: WatchClient,
  config: WatchConfig,
  file: string,
  now: number,
): Promise<WatchTestResult> {
  const state = savedStates(file).states[name] ?? freshWatcherState();
  const baseline = state.memory === undefined;
  const result = await WATCHERS[name].poll({
    client,
    config,
    memory: state.memory,
    now,
    seq: state.seq + 1,
  });
  return { watcher: name, ok: true, baseline, summary: result.summary, wouldRaise: result.raised };
}

/** The kinds each watcher raises. */
export const WATCHER_KINDS: Readonly<Record<WatcherName, RaiseKind[]>> = {
  credits: ['credit-usage'],
  computers: ['computer-state'],
  controls: ['control-change'],
  readiness: ['readiness-report'],
  members: ['member-joined', 'member-left'],
};

export interface WatchExplanation {
  watcher: WatcherName;
  enabled: boolean;
  interval: string;
  what: string[];
  /** Per kind raised: the notify rules that would route it (none: it is recorded, not sent). */
  routes: { kind: RaiseKind; rules: string[]; builtIn: boolean }[];
  state?: WatcherRow | undefined;
}

export function explainWatcher(
  name: WatcherName,
  config: WatchConfig,
  notify: NotifyConfig,
  file: string,
): WatchExplanation {
  const row = listWatchers(config, file).watchers.find((w) => w.name === name);
  // What the daemon routes by: the built-in PlatformWatch rule counts while any watcher is on.
  const routing = withWatchDefault(
    notify,
    WATCHER_NAMES.some((n) => config[n].enabled),
  );
  return {
    watcher: name,
    enabled: config[name].enabled,
    interval: formatDuration(config[name].interval),
    what: WATCHERS[name].describe(config),
    routes: [...WATCHER_KINDS[name], 'watch-summary' as const].map((kind) => {
      const rules = watchRules(routing, kind);
      return { kind, rules, builtIn: rules.length === 1 && rules[0] === WATCH_DEFAULT_RULE };
    }),
    state: row,
  };
}

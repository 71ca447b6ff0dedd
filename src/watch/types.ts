import type { PlatformClient } from '../platform-api/api-client.js';
import type { WatchConfig, WatcherName } from '../config/schemas/watch-schema.js';

/** What the watchers ask of the platform: these methods of the platform client. */
export type WatchClient = Pick<
  PlatformClient,
  | 'getTokens'
  | 'listComputers'
  | 'iterateEnterpriseControlHistory'
  | 'iterateReadinessReports'
  | 'iterateOrganizationUsers'
>;

/** The kinds of event a watcher raises: the `notification_type` a notify rule can match. */
export type RaiseKind =
  | 'credit-usage'
  | 'computer-state'
  | 'control-change'
  | 'readiness-report'
  | 'member-joined'
  | 'member-left'
  | 'watch-summary';

/** One thing a watcher found worth telling: it becomes one PlatformWatch event. */
export interface WatchRaise {
  watcher: WatcherName;
  kind: RaiseKind;
  /** Unique and stable for this change: the event's id, so the same change is never taken in twice. */
  key: string;
  title: string;
  message: string;
  /** Plain facts for templates and webhooks (`payload.details`). */
  details: Record<string, string | number | boolean | null>;
}

/** What a watcher remembers between polls (persisted; JSON values only). */
export type WatchMemory = Record<string, unknown>;

export interface PollInput {
  client: WatchClient;
  config: WatchConfig;
  /** What the previous poll remembered; undefined at the first poll (then the watcher takes a baseline). */
  memory: WatchMemory | undefined;
  now: number;
  /**
   * The number of this poll among the watcher's successful ones (persisted): a key made with it is the
   * same when a poll is repeated after a crash, and new when the same change happens again later.
   */
  seq: number;
}

export interface PollResult {
  memory: WatchMemory;
  raised: WatchRaise[];
  /** One line for people: what the poll saw ("12 computers", "org at 63% of its limit"). */
  summary: string;
}

export interface Watcher {
  name: WatcherName;
  /** For `hookd watch explain`: what it watches and when it raises. */
  describe(config: WatchConfig): string[];
  poll(input: PollInput): Promise<PollResult>;
}

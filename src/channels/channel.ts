import type { ChannelConfig } from '../config/schemas/notify-schema.js';
import type { RenderedNotification } from '../notify/notification.js';

/** How one delivery attempt ended. A failure is a value; `retryable` decides between retry and dead letter. */
export type DeliveryResult =
  | {
      ok: true;
      detail?: string;
      /** What finds the shown notification again (a desktop id, a Slack ts): kept to mark it resolved. */
      ref?: string;
    }
  | { ok: false; retryable: boolean; error: string; retryAfterMs?: number };

/** Slack thread ids per session, kept durable by the daemon so a restart continues the same thread. */
export interface ThreadStore {
  get(key: string): string | undefined;
  set(key: string, threadId: string): Promise<void>;
}

export interface DeliveryContext {
  /** Stable across attempts and restarts: receivers use it as an idempotency key. */
  deliveryId: string;
  attempt: number;
  threads: ThreadStore;
}

export interface ChannelHealth {
  ok: boolean;
  /** What is wrong and what to do, for the log and `hookd status`. Never contains a secret. */
  problems: string[];
}

/** One delivery channel. Implementations never throw from send(); they return a DeliveryResult. */
export interface Channel {
  name: string;
  /** The config's channel types, derived from its schema: a new channel type is added there only. */
  type: ChannelConfig['type'];
  /** A safe one-line description (type and host only, never a URL path or a token). */
  describe(): string;
  /**
   * True when what it sends leaves the machine: the outbox passes every notification through the
   * redactor first. Default: true for slack, webhook and ntfy, false otherwise.
   */
  remote?: boolean;
  send(notification: RenderedNotification, context: DeliveryContext): Promise<DeliveryResult>;
  health(): ChannelHealth;
  /** Keeps one message per session, updated as the session's state changes (Slack `session-message`). */
  sessionMessages?: boolean;
}

/** The JSON body the webhook and command channels send (documented in docs/daemon.md). */
export function notificationPayload(
  notification: RenderedNotification,
  context: DeliveryContext,
  channel: string,
) {
  return {
    version: 1 as const,
    id: context.deliveryId,
    channel,
    attempt: context.attempt,
    notification: {
      title: notification.title,
      body: notification.body,
      urgency: notification.urgency,
      rule: notification.rule,
      event: notification.event,
      count: notification.count,
      eventIds: notification.eventIds,
      sessionId: notification.sessionId ?? null,
      project: notification.project ?? null,
      cwd: notification.cwd ?? null,
      durationMs: notification.durationMs ?? null,
      at: new Date(notification.at).toISOString(),
      fields: notification.fields,
    },
  };
}

/**
 * The JSON body of a `resolved` event (docs/sessions.md): the notification delivered as `resolves` was a
 * "waiting" one, and the session was answered (`by`: the event that showed it, or an acknowledgement).
 */
export function resolvedPayload(
  notification: RenderedNotification,
  context: DeliveryContext,
  channel: string,
) {
  return {
    version: 1 as const,
    type: 'resolved' as const,
    id: context.deliveryId,
    channel,
    attempt: context.attempt,
    resolves: notification.resolves?.deliveryId ?? null,
    by: notification.resolves?.by ?? null,
    sessionId: notification.sessionId ?? null,
    at: new Date(notification.at).toISOString(),
  };
}

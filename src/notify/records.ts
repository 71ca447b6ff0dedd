import type { RenderedNotification } from './notification.js';
import type { LadderStep, WaitingAsk } from './escalation.js';

// What the notify core decides in terms the daemon records: deliveries, held "waiting" ones, ladders.

/** `cancelled`: a held "waiting" notification the session moved on from (only in `recentCancelled`). */
export type DeliveryState = 'pending' | 'held' | 'delivered' | 'dead' | 'cancelled';

/**
 * A "waiting" notification held by delay-then-cancel: cancelled if `session` moves on before `until`. Its
 * rule's dedupe and cooldown keys are forgotten then, since nothing was sent.
 */
export interface WaitingHold {
  session: string;
  until: number;
  dedupeKey?: string;
  cooldownKey?: string;
  /** What it waits for (a permission for one tool...): only an event that answers it cancels it. */
  ask?: WaitingAsk;
}

/** How a ladder stopped: answered in the session, acknowledged (`hookd ack`), the session ended, every step sent, or dropped over the limit. */
export type LadderEnd = 'answered' | 'acked' | 'ended' | 'done' | 'limit';

/**
 * An escalation ladder (docs/sessions.md#escalation-ladders): the notification of one rule for one
 * event, sent again to each step's channels while the session is not answered. Durable in the journal:
 * a restart resumes it, and each sending has its own delivery id, so nothing is sent twice.
 */
export interface Ladder {
  /** `<event id>/<rule index>`. */
  id: string;
  session: string;
  rule: string;
  startedAt: number;
  notification: RenderedNotification;
  steps: LadderStep[];
  /** Per step, how many of its sendings are done (or skipped). */
  progress: number[];
  /** Steps go through quiet hours (the rule's breakthrough, or an urgent notification). */
  breakthrough: boolean;
  ask?: WaitingAsk;
  /** What presence did when it started (for explain). */
  presence?: string;
  /** Set once it stopped. */
  end?: LadderEnd;
  endedAt?: number;
  endedBy?: string;
}

/** A delivery made by a ladder step. */
export interface EscalationMark {
  ladder: string;
  step: number;
  repeat: number;
}

/** One notification on its way to one channel. */
export interface Delivery {
  /** Stable: `<event id>/<rule index>/<channel>` (plus a suffix for bursts and digests). */
  id: string;
  channel: string;
  notification: RenderedNotification;
  createdAt: number;
  state: DeliveryState;
  attempts: number;
  /** Not before this moment (backoff, Retry-After). */
  nextAt: number;
  lastError?: string;
  deliveredAt?: number;
  deadAt?: number;
  /** Held for quiet hours (or while the session waits) until this moment. */
  heldUntil?: number;
  /** A "waiting" notification held by delay-then-cancel: cancelled if this session moves on first. */
  waiting?: WaitingHold;
  /** Set on a cancelled one: when, and the event that showed the user answered. */
  cancelledAt?: number;
  cancelledBy?: string;
  /** What the channel answered to find what it showed again (a desktop id, a Slack ts): for `resolved`. */
  ref?: string;
  /** Sent by an escalation step. */
  escalation?: EscalationMark;
}

/** The id of the delivery that marks delivery `id` resolved. */
export function resolvedId(id: string): string {
  return `${id}/resolved`;
}

/** One delivery per channel for a notification, made at `at`. */
export function deliveriesFor(
  at: number,
  idBase: string,
  index: number,
  targets: readonly string[],
  notification: RenderedNotification,
  heldUntil?: number,
  waiting?: WaitingHold,
): Delivery[] {
  return targets.map((channel) => ({
    id: `${idBase}/${index}/${channel}`,
    channel,
    notification,
    createdAt: at,
    state: heldUntil !== undefined ? 'held' : 'pending',
    attempts: 0,
    nextAt: at,
    ...(heldUntil !== undefined ? { heldUntil } : {}),
    ...(waiting ? { waiting } : {}),
  }));
}

/**
 * The deliveries that mark "waiting" notifications already shown as resolved on their channel (docs/
 * sessions.md, "Resolved notifications"): `by` names what answered them.
 */
export function resolvedDeliveries(shown: readonly Delivery[], by: string, at: number): Delivery[] {
  return shown.map((d) => ({
    id: resolvedId(d.id),
    channel: d.channel,
    notification: {
      ...d.notification,
      kind: 'resolved',
      resolves: { deliveryId: d.id, ref: d.ref!, by },
      at,
    },
    createdAt: at,
    state: 'pending',
    attempts: 0,
    nextAt: at,
  }));
}

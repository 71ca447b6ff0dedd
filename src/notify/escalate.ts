import { dueSteps, escalatedNotification, nextDueAt, type DueStep } from './escalation.js';
import type { QuietState } from './quiet-hours.js';
import type { Delivery, Ladder } from './records.js';

/** One step of a ladder sent now, to its channels. */
export interface SentStep {
  due: DueStep;
  channels: readonly string[];
  deliveries: Delivery[];
}

/** What a ladder does at one moment. */
export interface LadderTick {
  /** Steps are due but quiet hours hold them until then (the ladder does not break through). */
  heldUntil?: number;
  /** The steps sent now. */
  sent: SentStep[];
  /** When its next sending is due; undefined once every step is sent (the ladder is done). */
  next?: number;
}

/**
 * A running escalation ladder at `now` (docs/sessions.md#escalation-ladders): the steps due now, each
 * sending with its own delivery id (`<ladder>/esc<step>.<repeat>/<channel>`) so that a restart sends
 * nothing twice, unless quiet hours hold them. Pure.
 */
export function ladderTick(l: Ladder, quiet: QuietState, now: number): LadderTick {
  const due = dueSteps(l.steps, l.startedAt, l.progress, now);
  if (due.length > 0 && quiet.quiet && !l.breakthrough)
    return { heldUntil: quiet.endsAt!, sent: [], next: quiet.endsAt! };
  const progress = [...l.progress];
  const sent = due.map((d): SentStep => {
    const channels = l.steps[d.step]!.channels;
    const notification = escalatedNotification(l.notification, d.step, d.repeat, now - l.startedAt);
    progress[d.step] = d.sent;
    const deliveries = channels.map((channel): Delivery => ({
      id: `${l.id}/esc${d.step}.${d.repeat}/${channel}`,
      channel,
      notification,
      createdAt: now,
      state: 'pending',
      attempts: 0,
      nextAt: now,
      escalation: { ladder: l.id, step: d.step, repeat: d.repeat },
      // Shown, it is marked resolved when the session is answered, as a first notification is.
      waiting: { session: l.session, until: now, ...(l.ask ? { ask: l.ask } : {}) },
    }));
    return { due: d, channels, deliveries };
  });
  const next = nextDueAt(l.steps, l.startedAt, progress);
  return { sent, ...(next !== undefined ? { next } : {}) };
}

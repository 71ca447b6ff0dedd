import type { QuietHours } from '../config/schemas/notify-schema.js';
import { quietStateAt } from './quiet-hours.js';
import type { RenderedNotification, Urgency } from './notification.js';
import type { Delivery } from './records.js';

const URGENCY_ORDER: Urgency[] = ['low', 'normal', 'critical'];

/** The one notification that stands for several held ones of a channel. */
export function digestNotification(held: readonly Delivery[]): RenderedNotification {
  const titles = held.map((d) => d.notification.title);
  const urgency = held
    .map((d) => d.notification.urgency)
    .reduce((a, b) => (URGENCY_ORDER.indexOf(b) > URGENCY_ORDER.indexOf(a) ? b : a), 'low' as Urgency);
  return {
    title: `While you were away: ${held.length} notifications`,
    body: [
      ...titles.slice(0, 10).map((t) => `• ${t}`),
      ...(titles.length > 10 ? [`… and ${titles.length - 10} more`] : []),
    ].join('\n'),
    urgency,
    rule: 'quiet hours digest',
    event: 'Digest',
    eventIds: held.flatMap((d) => d.notification.eventIds),
    count: held.length,
    at: held[0]!.notification.at,
    fields: [{ label: 'Held', value: String(held.length) }],
  };
}

/** What becomes of held notifications whose time came: sent as they are, or one digest stands for them. */
export type Release = { t: 'unhold'; ids: string[] } | { t: 'digest'; delivery: Delivery; ids: string[] };

/**
 * Quiet hours' end: the held notifications due now are released, as one digest per channel when a
 * channel holds several (unless quietHours.digest is false), else as they are. "Waiting" notifications
 * nobody answered in time go out on their own, never in a digest. Nothing while quiet hours last. Pure.
 */
export function releaseHeld(
  due: readonly Delivery[],
  quietHours: QuietHours | undefined,
  at: number,
): { releases: Release[]; channels: string[] } {
  if (due.length === 0 || quietStateAt(at, quietHours).quiet) return { releases: [], channels: [] };
  const waiting = due.filter((d) => d.waiting);
  const byChannel = new Map<string, Delivery[]>();
  for (const d of due)
    byChannel.set(d.channel, [...(byChannel.get(d.channel) ?? []), ...(d.waiting ? [] : [d])]);
  const releases: Release[] = waiting.length > 0 ? [{ t: 'unhold', ids: waiting.map((d) => d.id) }] : [];
  for (const [channel, held] of byChannel) {
    if (held.length === 0) continue;
    if (held.length === 1 || quietHours?.digest === false) {
      releases.push({ t: 'unhold', ids: held.map((d) => d.id) });
      continue;
    }
    releases.push({
      t: 'digest',
      ids: held.map((d) => d.id),
      delivery: {
        id: `digest/${held[0]!.id}`,
        channel,
        notification: digestNotification(held),
        createdAt: at,
        state: 'pending',
        attempts: 0,
        nextAt: at,
      },
    });
  }
  return { releases, channels: [...byChannel.keys()] };
}

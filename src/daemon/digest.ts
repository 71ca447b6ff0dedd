import type { NotifyConfig } from '../config/notify-schema.js';
import { quietStateAt } from '../notify/quiet-hours.js';
import type { RenderedNotification, Urgency } from '../notify/notification.js';
import type { DaemonStore, Delivery, JournalRecord } from './state/store.js';

const URGENCY_ORDER: Urgency[] = ['low', 'normal', 'critical'];

export interface DigestOptions {
  store: Pick<DaemonStore, 'heldDue'>;
  /** The notify config in force (quiet hours, whether to digest). */
  notify: () => NotifyConfig;
  commit: (records: JournalRecord[]) => Promise<void>;
  wake: (channels: Iterable<string>) => void;
  now: () => number;
}

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

/**
 * Quiet hours' end: notifications held until now are released, as one digest per channel when a
 * channel holds several (unless quietHours.digest is false), else as they are.
 */
export class Digest {
  readonly counts = { digests: 0 };

  constructor(private readonly o: DigestOptions) {}

  async releaseHeld(): Promise<void> {
    const { o } = this;
    const at = o.now();
    const quietHours = o.notify().quietHours;
    if (quietStateAt(at, quietHours).quiet) return;
    const dueNow = o.store.heldDue(at);
    if (dueNow.length === 0) return;
    // "Waiting" notifications nobody answered in time go out on their own, never in a digest.
    const waiting = dueNow.filter((d) => d.waiting);
    const due = dueNow.filter((d) => !d.waiting);
    const byChannel = new Map<string, Delivery[]>();
    for (const d of due) byChannel.set(d.channel, [...(byChannel.get(d.channel) ?? []), d]);
    const records: JournalRecord[] =
      waiting.length > 0 ? [{ t: 'unhold', ids: waiting.map((d) => d.id), at }] : [];
    for (const d of waiting) byChannel.set(d.channel, byChannel.get(d.channel) ?? []);
    for (const [channel, held] of byChannel) {
      if (held.length === 0) continue;
      if (held.length === 1 || quietHours?.digest === false) {
        records.push({ t: 'unhold', ids: held.map((d) => d.id), at });
        continue;
      }
      this.counts.digests++;
      records.push({
        t: 'add',
        d: {
          id: `digest/${held[0]!.id}`,
          channel,
          notification: digestNotification(held),
          createdAt: at,
          state: 'pending',
          attempts: 0,
          nextAt: at,
        },
      });
      records.push({ t: 'release', ids: held.map((d) => d.id), at });
    }
    await o.commit(records);
    o.wake(byChannel.keys());
  }
}

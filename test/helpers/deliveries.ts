import type { Delivery } from '../../src/notify/records.js';

/** A notification held until `heldUntil` (quiet hours, or a "waiting" one of session `waiting`). */
export function heldDelivery(o: {
  id: string;
  channel: string;
  title?: string;
  at?: number;
  heldUntil?: number;
  waiting?: string;
}): Delivery {
  const at = o.at ?? 1;
  return {
    id: o.id,
    channel: o.channel,
    createdAt: at,
    state: 'held',
    attempts: 0,
    nextAt: at,
    heldUntil: o.heldUntil ?? at,
    notification: {
      title: o.title ?? o.id,
      body: '',
      urgency: 'normal',
      rule: 'r',
      event: 'Stop',
      eventIds: [o.id],
      count: 1,
      at,
      fields: [],
    },
    ...(o.waiting ? { waiting: { session: o.waiting, until: o.heldUntil ?? at } } : {}),
  };
}

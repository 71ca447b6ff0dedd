import type { Channel, DeliveryResult } from '../../../channels/channel.js';
import type { RenderedNotification } from '../../../notify/notification.js';
import { redactText } from '../../../logging/redact.js';

/** The notification `hookd doctor --send-test` sends. */
export function testNotification(now: number): RenderedNotification {
  return {
    title: 'hookd doctor: test notification',
    body: 'If you can read this, hookd can reach you through this channel.',
    urgency: 'normal',
    rule: 'doctor',
    event: 'Test',
    eventIds: [`doctor-${now}`],
    count: 1,
    at: now,
    fields: [{ label: 'Sent by', value: 'hookd doctor --send-test' }],
  };
}

/** Sends one real test notification through a channel's own code; a failure is a value. */
export async function sendTestNotification(channel: Channel, now: number): Promise<DeliveryResult> {
  const threads = new Map<string, string>();
  try {
    const sent = await channel.send(testNotification(now), {
      deliveryId: `doctor-test-${channel.name}-${now}`,
      attempt: 1,
      threads: {
        get: (key) => threads.get(key),
        set: async (key, value) => void threads.set(key, value),
      },
    });
    // A receiver's answer may echo what it was sent; keep secrets out of the report.
    return sent.ok ? sent : { ...sent, error: redactText(sent.error) };
  } catch (error) {
    return { ok: false, retryable: false, error: `the channel threw: ${(error as Error).message}` };
  }
}

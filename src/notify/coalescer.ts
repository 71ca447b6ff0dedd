import type { FiredRule } from './rules.js';
import type { RenderedNotification, Urgency } from './notification.js';

/** A burst of notifications from one rule, session and event name, sent as one. */
export interface Burst {
  key: string;
  rule: string;
  index: number;
  channels: string[];
  items: FiredRule[];
  firstAt: number;
}

const EVENT_WORDS: Record<string, [string, string]> = {
  SubagentStop: ['sub-agent finished', 'sub-agents finished'],
  Notification: ['notification', 'notifications'],
  Stop: ['session finished', 'sessions finished'],
  PostToolUse: ['tool call finished', 'tool calls finished'],
};

const URGENCY_ORDER: Urgency[] = ['low', 'normal', 'critical'];

/** One notification standing for a whole burst: "20 sub-agents finished" and the first few lines. */
export function coalescedNotification(burst: Burst): RenderedNotification {
  const first = burst.items[0]!.notification;
  if (burst.items.length === 1) return first;
  const count = burst.items.length;
  const [, plural] = EVENT_WORDS[first.event] ?? [first.event, `${first.event} events`];
  const lines = [
    ...new Set(burst.items.map((i) => (i.notification.body.split('\n')[0] ?? '').trim()).filter(Boolean)),
  ];
  const shown = lines.slice(0, 5);
  const more = lines.length - shown.length;
  const urgency = burst.items
    .map((i) => i.notification.urgency)
    .reduce((a, b) => (URGENCY_ORDER.indexOf(b) > URGENCY_ORDER.indexOf(a) ? b : a), 'low' as Urgency);
  return {
    ...first,
    title: `${first.project ? `${first.project}: ` : ''}${count} ${plural}`,
    body: [...shown.map((l) => `• ${l}`), ...(more > 0 ? [`… and ${more} more`] : [])].join('\n'),
    urgency,
    count,
    eventIds: burst.items.flatMap((i) => i.notification.eventIds),
    fields: first.fields.filter((f) => f.label !== 'Duration'),
  };
}

/**
 * Holds coalescible notifications until their burst goes quiet (no new one for windowMs) or reaches
 * maxHoldMs, then hands the burst to `flush`. Nothing here is durable: held events are not marked done,
 * so a crash replays them into a new burst.
 */
export class Coalescer {
  private readonly bursts = new Map<string, Burst & { timer: NodeJS.Timeout }>();

  constructor(
    private readonly settings: () => { windowMs: number; maxHoldMs: number },
    private readonly flush: (burst: Burst) => void,
    private readonly now: () => number,
  ) {}

  add(fired: FiredRule): void {
    const key = `${fired.index}\u0000${fired.rule}\u0000${fired.notification.sessionId ?? ''}\u0000${fired.notification.event}`;
    const { windowMs, maxHoldMs } = this.settings();
    const now = this.now();
    let burst = this.bursts.get(key);
    if (burst) {
      clearTimeout(burst.timer);
      burst.items.push(fired);
    } else {
      burst = {
        key,
        rule: fired.rule,
        index: fired.index,
        channels: fired.channels,
        items: [fired],
        firstAt: now,
        timer: undefined as unknown as NodeJS.Timeout,
      };
      this.bursts.set(key, burst);
    }
    const due = Math.min(now + windowMs, burst.firstAt + maxHoldMs);
    const held = burst;
    burst.timer = setTimeout(() => this.release(held.key), Math.max(0, due - now));
  }

  private release(key: string): void {
    const burst = this.bursts.get(key);
    if (!burst) return;
    this.bursts.delete(key);
    clearTimeout(burst.timer);
    this.flush(burst);
  }

  /** Flushes every burst now (used when a window is zero, and by tests). */
  releaseAll(): void {
    for (const key of [...this.bursts.keys()]) this.release(key);
  }

  /** Drops held bursts without sending (shutdown: their events are replayed at the next start). */
  discard(): number {
    let events = 0;
    for (const burst of this.bursts.values()) {
      clearTimeout(burst.timer);
      events += burst.items.length;
    }
    this.bursts.clear();
    return events;
  }

  get size(): number {
    return this.bursts.size;
  }
}

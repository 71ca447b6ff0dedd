import type { QuietHours } from '../config/schemas/notify-schema.js';

const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

function minutes(hhmm: string): number {
  const [h, m] = hhmm.split(':');
  return Number(h) * 60 + Number(m);
}

export interface QuietState {
  quiet: boolean;
  /** When quiet: the moment the current window (or a chain of overlapping ones) ends, unix ms. */
  endsAt?: number;
}

/** Whether `now` falls inside a quiet window, in the process's local time zone (DST-safe). */
export function quietStateAt(now: number, quietHours: QuietHours | undefined): QuietState {
  if (!quietHours) return { quiet: false };
  let endsAt: number | undefined;
  let at = now;
  // Follow overlapping or back-to-back windows so the digest is sent once, when quiet really ends.
  for (let guard = 0; guard < 8; guard++) {
    const end = windowEndAt(at, quietHours);
    if (end === undefined) break;
    endsAt = end;
    at = end;
  }
  return endsAt === undefined ? { quiet: false } : { quiet: true, endsAt };
}

function windowEndAt(now: number, quietHours: QuietHours): number | undefined {
  const today = new Date(now);
  let best: number | undefined;
  for (const offset of [-1, 0]) {
    const day = new Date(today.getFullYear(), today.getMonth(), today.getDate() + offset);
    const weekday = DAYS[day.getDay()]!;
    for (const window of quietHours.windows) {
      if (window.days && !window.days.includes(weekday)) continue;
      const start = minutes(window.start);
      let end = minutes(window.end);
      if (end <= start) end += 24 * 60;
      const startTs = new Date(day.getFullYear(), day.getMonth(), day.getDate(), 0, start).getTime();
      const endTs = new Date(day.getFullYear(), day.getMonth(), day.getDate(), 0, end).getTime();
      if (startTs <= now && now < endTs && (best === undefined || endTs > best)) best = endTs;
    }
  }
  return best;
}

/**
 * Whether a notification goes through quiet hours: the rule's `breakthrough` when it sets one, else
 * an urgent one (urgency critical, or a failure: StopFailure, a session ended mid-turn) when
 * `quietHours.allowUrgent` (the default).
 */
export function breaksQuietHours(
  breakthrough: boolean | undefined,
  urgent: boolean,
  quietHours: QuietHours | undefined,
): boolean {
  if (breakthrough !== undefined) return breakthrough;
  return urgent && (quietHours?.allowUrgent ?? true);
}

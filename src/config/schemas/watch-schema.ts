import * as z from 'zod';
import { durationSchema } from './notify-schema.js';

/** The watchers on the platform API (docs/watch.md), in the order `hookd watch list` shows them. */
export const WATCHER_NAMES = ['credits', 'computers', 'controls', 'readiness', 'members'] as const;
export type WatcherName = (typeof WATCHER_NAMES)[number];

/** The shortest interval between two polls of one watcher: hookd never polls faster than this. */
export const MIN_WATCH_INTERVAL_MS = 60_000;

/** The default interval of each watcher, in ms (credits: the analytics data changes once a day). */
export const WATCH_DEFAULT_INTERVALS: Readonly<Record<WatcherName, number>> = {
  credits: 3_600_000,
  computers: 300_000,
  controls: 600_000,
  readiness: 1_800_000,
  members: 1_800_000,
};

function intervalOf(name: WatcherName) {
  return durationSchema
    .default(WATCH_DEFAULT_INTERVALS[name])
    .refine((ms) => ms >= MIN_WATCH_INTERVAL_MS, {
      message: `must be at least ${MIN_WATCH_INTERVAL_MS / 1000}s (the platform's rate limits)`,
    })
    .describe(
      `Time between two polls: ms or "5m", "1h" (default ${WATCH_DEFAULT_INTERVALS[name] / 60_000}m; at least 60s).`,
    );
}

function watcherSchema<T extends z.ZodRawShape>(name: WatcherName, extra: T, what: string) {
  return z
    .strictObject({
      enabled: z.boolean().default(false).describe(`Turn this watcher on: ${what}.`),
      interval: intervalOf(name),
      ...extra,
    })
    .prefault({} as never)
    .describe(what);
}

const creditAmount = z.number().positive().max(1e15);

export const watchConfigSchema = z
  .strictObject({
    credits: watcherSchema(
      'credits',
      {
        thresholds: z
          .array(z.number().positive().max(1000))
          .min(1)
          .max(10)
          .default([75, 90, 100])
          .describe('Percentages of a credit limit that raise an event when usage crosses them.'),
        orgLimit: creditAmount
          .optional()
          .describe("The organization's standard credits per calendar month (UTC)."),
        userLimit: creditAmount.optional().describe('Standard credits per user per calendar month.'),
        userLimits: z
          .record(z.string().min(1).max(320), creditAmount)
          .optional()
          .describe('Per-user monthly limits by e-mail, overriding userLimit.'),
      },
      'credit usage of the month (org and per user) crossing thresholds of its limit',
    ),
    computers: watcherSchema('computers', {}, 'a computer changing state (provisioning, active, error)'),
    controls: watcherSchema('controls', {}, 'new enterprise-control history entries'),
    readiness: watcherSchema(
      'readiness',
      {
        repoId: z.string().min(1).max(200).optional().describe('Only reports of this repository.'),
      },
      'a new readiness report, and how its score moved',
    ),
    members: watcherSchema('members', {}, 'people joining or leaving the organization'),
  })
  .describe(
    'Watchers on the platform API (docs/watch.md): daemon jobs that raise PlatformWatch events, routed by notify rules. Off unless turned on; need an API key.',
  );

export type WatchConfig = z.infer<typeof watchConfigSchema>;

/** The watch settings with every default filled in (an absent section: every watcher off). */
export function watchSettings(raw: unknown): WatchConfig {
  return watchConfigSchema.parse(raw ?? {});
}

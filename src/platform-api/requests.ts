import * as z from 'zod';
import { RequestValidationError } from './errors.js';
import { EARLIEST_ANALYTICS_DAY, addDays, isCalendarDay } from './dates.js';
import { fieldIssuesFromZod } from './zod-issues.js';

/**
 * Request schemas with the documented limits. Every request is validated here before it is sent, so a
 * bad request costs no round trip and every problem is reported at once.
 */

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const dayString = z
  .string()
  .refine(isCalendarDay, 'must be a calendar date as YYYY-MM-DD (UTC), e.g. 2026-11-01');

/** startDate/endDate with the analytics rules; `today` is the UTC day of the injected clock. */
export function dateRangeSchema(today: string) {
  return z.object({ startDate: dayString, endDate: dayString }).superRefine((value, ctx) => {
    const latest = addDays(today, -1);
    for (const field of ['startDate', 'endDate'] as const) {
      const day = value[field];
      if (!isCalendarDay(day)) continue;
      if (day >= today) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `${day} is today or later (UTC today is ${today}); data has a 24-hour lag, use ${latest} or earlier`,
        });
      } else if (day < EARLIEST_ANALYTICS_DAY) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `${day} is before the earliest data (${EARLIEST_ANALYTICS_DAY})`,
        });
      }
    }
    if (isCalendarDay(value.startDate) && isCalendarDay(value.endDate) && value.startDate > value.endDate) {
      ctx.addIssue({
        code: 'custom',
        path: ['startDate'],
        message: `${value.startDate} is after endDate ${value.endDate}`,
      });
    }
  });
}

export const GROUP_BY = {
  tokens: ['model'],
  tools: ['tool_name'],
  activity: ['client'],
} as const;

function groupBySchema<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `must be one of: ${values.join(', ')}` }).optional();
}

export function tokensQuerySchema(today: string) {
  return dateRangeSchema(today).and(z.object({ groupBy: groupBySchema(GROUP_BY.tokens) }));
}
export function toolsQuerySchema(today: string) {
  return dateRangeSchema(today).and(z.object({ groupBy: groupBySchema(GROUP_BY.tools) }));
}
export function activityQuerySchema(today: string) {
  return dateRangeSchema(today).and(z.object({ groupBy: groupBySchema(GROUP_BY.activity) }));
}
export function productivityQuerySchema(today: string) {
  return dateRangeSchema(today);
}

const pageLimit = z
  .number({ error: 'must be a whole number from 1 to 100' })
  .int('must be a whole number from 1 to 100')
  .min(1, 'must be at least 1')
  .max(100, 'must be at most 100');

const cursorSchema = z.string().min(1, 'must not be empty').optional();

export function analyticsUsersQuerySchema(today: string) {
  return dateRangeSchema(today).and(z.object({ limit: pageLimit.optional(), cursor: cursorSchema }));
}

/** `limit` of the v0 lists is string-typed on the wire: numbers and numeric strings are accepted. */
const stringLimit = z
  .union([z.number(), z.string().regex(/^\d+$/, 'must be a whole number from 1 to 100')])
  .transform((value) => Number(value))
  .pipe(pageLimit)
  .transform((value) => String(value));

export const orgPageQuerySchema = z.object({ limit: stringLimit.optional(), cursor: cursorSchema });

export const readinessQuerySchema = z.object({
  repoId: z.string().min(1, 'must not be empty').optional(),
  limit: z
    .number({ error: 'must be a positive whole number' })
    .int('must be a positive whole number')
    .positive('must be a positive whole number')
    .optional(),
  startAfter: z.string().min(1, 'must not be empty').optional(),
});

const name63 = z.string().min(1, 'must be 1-63 characters').max(63, 'must be 1-63 characters');
const uuid = z.string().regex(UUID_PATTERN, 'must be a UUID such as 123e4567-e89b-12d3-a456-426614174000');

export const createComputerSchema = z.strictObject({
  name: name63,
  remoteUser: name63,
  provider: z.enum(['byom', 'e2b'], { error: 'must be byom or e2b' }).optional(),
  hostId: uuid.optional(),
  repos: z
    .array(
      z
        .string()
        .max(2048, 'must be at most 2048 characters')
        .refine((value) => URL.canParse(value), 'must be a URL such as https://github.com/org/repo'),
    )
    .max(20, 'must list at most 20 repositories')
    .optional(),
  autoInstallDeps: z.boolean().optional(),
  serviceAccountId: z.string().min(1, 'must not be empty').optional(),
});

export const updateComputerSchema = z.strictObject({
  name: name63.optional(),
  hostId: uuid.optional(),
  remoteUser: name63.optional(),
});

export const pathIdSchema = z.string().min(1, 'must not be empty');
export const computerNameSchema = name63;

const READ_ONLY_SETTINGS = ['tokenUsage', 'inclusiveTokenUsage'] as const;

const writableSettingsShape = {
  model: z.string().optional(),
  specModeModel: z.string().optional(),
  providerLockTimestamp: z.string().optional(),
  assistantActiveTimeMs: z.number().min(0).optional(),
  childInclusiveTokenUsageBySessionId: z.record(z.string(), z.unknown()).optional(),
  archivedAt: z.string().optional(),
  tags: z
    .array(
      z.strictObject({
        name: z.string().min(1, 'must not be empty'),
        metadata: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .optional(),
  enabledToolIds: z.array(z.string()).optional(),
  disabledToolIds: z.array(z.string()).optional(),
};

export const writableSessionSettingsSchema = z
  .object(writableSettingsShape)
  .catchall(z.unknown())
  .superRefine((value, ctx) => {
    const known = new Set(Object.keys(writableSettingsShape));
    for (const key of Object.keys(value)) {
      if ((READ_ONLY_SETTINGS as readonly string[]).includes(key)) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'is read-only and cannot be updated' });
      } else if (!known.has(key)) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'is not a writable session setting' });
      }
    }
  });

export const updateSessionSchema = z.strictObject({
  sessionSettings: writableSessionSettingsSchema.optional(),
});

export const creditLimitEntrySchema = z.strictObject({
  email: z.email('must be an e-mail address'),
  limit: z.number({ error: 'must be a whole number' }).int('must be a whole number'),
});

export const creditLimitsSchema = z
  .array(creditLimitEntrySchema)
  .min(1, 'must hold 1-100 entries')
  .max(100, 'must hold 1-100 entries')
  .superRefine((entries, ctx) => {
    const seen = new Map<string, number>();
    entries.forEach((entry, index) => {
      const key = entry.email.toLowerCase();
      const first = seen.get(key);
      if (first !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [index, 'email'],
          message: `${entry.email} is listed twice (also at users[${first}])`,
        });
      } else seen.set(key, index);
    });
  });

/** Parses `input` with `schema` or throws a RequestValidationError listing every problem. */
export function validateRequest<S extends z.ZodType>(
  operation: string,
  schema: S,
  input: unknown,
  prefix = '',
) {
  const result = schema.safeParse(input);
  if (!result.success) throw new RequestValidationError(operation, fieldIssuesFromZod(result.error, prefix));
  return result.data as z.output<S>;
}

export type DateRange = { startDate: string; endDate: string };
export type TokensQuery = DateRange & { groupBy?: 'model' | undefined };
export type ToolsQuery = DateRange & { groupBy?: 'tool_name' | undefined };
export type ActivityQuery = DateRange & { groupBy?: 'client' | undefined };
export type AnalyticsUsersQuery = DateRange & { limit?: number | undefined; cursor?: string | undefined };
export type OrgPageQuery = { limit?: number | string | undefined; cursor?: string | undefined };
export type ReadinessQuery = z.input<typeof readinessQuerySchema>;
export type CreateComputerInput = z.input<typeof createComputerSchema>;
export type UpdateComputerInput = z.input<typeof updateComputerSchema>;
export type WritableSessionSettings = z.input<typeof writableSessionSettingsSchema>;
export type UpdateSessionInput = z.input<typeof updateSessionSchema>;
export type CreditLimitEntry = z.input<typeof creditLimitEntrySchema>;

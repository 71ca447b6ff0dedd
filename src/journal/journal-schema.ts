import * as z from 'zod';
import { eventRequestSchema } from '../link/protocol.js';
import { REF_MAX, type JournalRecord } from './store.js';
import { Journal, type JournalOptions } from './journal.js';

/**
 * What a journal line must be to be applied: every record read back is validated here (the daemon is off
 * the hook path, so zod is fine). A line that fails is quarantined, never applied.
 */

const finite = z.number().finite();

const notificationSchema = z.looseObject({
  title: z.string(),
  body: z.string(),
  urgency: z.enum(['low', 'normal', 'critical']),
  sound: z.union([z.boolean(), z.string()]).optional(),
  rule: z.string(),
  event: z.string(),
  eventIds: z.array(z.string()),
  count: finite,
  sessionId: z.string().optional(),
  project: z.string().optional(),
  cwd: z.string().optional(),
  durationMs: finite.optional(),
  at: finite,
  fields: z.array(z.object({ label: z.string(), value: z.string() })),
  kind: z.enum(['update', 'summary', 'resolved']).optional(),
  session: z
    .looseObject({
      phase: z.enum(['starting', 'working', 'waiting', 'done', 'failed', 'interrupted', 'ended']),
      waitingFor: z.enum(['permission', 'question', 'idle']).optional(),
      failure: z.string().optional(),
      startedAt: finite,
      since: finite,
    })
    .optional(),
  resolves: z.object({ deliveryId: z.string(), ref: z.string().max(REF_MAX), by: z.string() }).optional(),
});

/** What a waiting notification waits for (src/notify/escalation.ts, WaitingAsk). */
const askSchema = z.object({
  kind: z.enum(['permission', 'other']),
  tool: z.string().optional(),
  toolUseId: z.string().optional(),
  agentId: z.string().optional(),
});

const deliverySchema = z.looseObject({
  id: z.string().min(1),
  channel: z.string().min(1),
  notification: notificationSchema,
  createdAt: finite,
  state: z.enum(['pending', 'held', 'delivered', 'dead']),
  attempts: z.number().int().nonnegative(),
  nextAt: finite,
  lastError: z.string().optional(),
  deliveredAt: finite.optional(),
  deadAt: finite.optional(),
  ref: z.string().max(REF_MAX).optional(),
  heldUntil: finite.optional(),
  waiting: z
    .object({
      session: z.string(),
      until: finite,
      dedupeKey: z.string().optional(),
      cooldownKey: z.string().optional(),
      ask: askSchema.optional(),
    })
    .optional(),
  escalation: z
    .object({
      ladder: z.string(),
      step: z.number().int().nonnegative(),
      repeat: z.number().int().nonnegative(),
    })
    .optional(),
});

const ladderEnd = z.enum(['answered', 'acked', 'ended', 'done', 'limit']);

const ladderSchema = z.looseObject({
  id: z.string().min(1),
  session: z.string().min(1),
  rule: z.string(),
  startedAt: finite,
  notification: notificationSchema,
  steps: z
    .array(
      z.object({
        afterMs: finite.nonnegative(),
        channels: z.array(z.string().min(1)).min(1),
        repeatMs: finite.positive().optional(),
        maxRepeats: z.number().int().positive().max(1000).optional(),
      }),
    )
    .max(50),
  progress: z.array(z.number().int().nonnegative()).max(50),
  breakthrough: z.boolean(),
  ask: askSchema.optional(),
  presence: z.string().optional(),
  end: ladderEnd.optional(),
  endedAt: finite.optional(),
  endedBy: z.string().optional(),
});

const ids = z.array(z.string());

export const journalRecordSchema = z.discriminatedUnion('t', [
  z.object({ t: z.literal('in'), at: finite, h: eventRequestSchema }),
  z.object({ t: z.literal('done'), id: z.string() }),
  z.object({ t: z.literal('add'), d: deliverySchema }),
  z.object({
    t: z.literal('fail'),
    id: z.string(),
    attempts: z.number().int().nonnegative(),
    nextAt: finite,
    error: z.string(),
  }),
  z.object({ t: z.literal('ok'), id: z.string(), at: finite, ref: z.string().max(REF_MAX).optional() }),
  z.object({ t: z.literal('dead'), id: z.string(), at: finite, error: z.string() }),
  z.object({ t: z.literal('retry'), id: z.string(), at: finite }),
  z.object({ t: z.literal('purge'), id: z.string() }),
  z.object({ t: z.literal('release'), ids, at: finite }),
  z.object({ t: z.literal('unhold'), ids, at: finite }),
  z.object({ t: z.literal('cancel'), ids, at: finite, by: z.string() }),
  z.object({ t: z.literal('ladder'), l: ladderSchema }),
  z.object({
    t: z.literal('step'),
    id: z.string(),
    step: z.number().int().nonnegative(),
    sent: z.number().int().nonnegative(),
    at: finite,
  }),
  z.object({ t: z.literal('halt'), ids, at: finite, end: ladderEnd, by: z.string() }),
  z.object({ t: z.literal('thread'), k: z.string(), ts: z.string() }),
  z.object({ t: z.literal('seen'), ids }),
  z.object({ t: z.literal('delivered'), ids }),
]);

/** The record, or undefined when the value is not a valid journal record. */
export function parseJournalRecord(value: unknown): JournalRecord | undefined {
  const parsed = journalRecordSchema.safeParse(value);
  return parsed.success ? (parsed.data as unknown as JournalRecord) : undefined;
}

/** The daemon's journal (`<state>/daemon/journal.jsonl`), validating every record it reads back. */
export function openDaemonJournal(
  file: string,
  options: Omit<JournalOptions<JournalRecord>, 'parse'>,
): Journal<JournalRecord> {
  return new Journal<JournalRecord>(file, { ...options, parse: parseJournalRecord });
}

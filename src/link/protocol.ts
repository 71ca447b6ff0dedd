import * as z from 'zod';
import { ONCE_ANSWER_MAX_CHARS, PROTOCOL_VERSION } from './client.js';
import { AGENT_KINDS, type EventHandoff } from '../events/types.js';
import type { PermissionRequest } from '../remote/types.js';

/**
 * The daemon's socket protocol, version 1: newline-delimited JSON, one request line, one reply line,
 * in order, on a connection that may carry many requests. Every reply is `{"v":1,"ok":true|false,...}`.
 */

const hookEventSchema = z.looseObject({
  id: z.string().min(1).max(200),
  receivedAt: z.number().finite().nonnegative(),
  /** An agent this daemon does not know (a newer hook) reads as 'unknown', as the hook itself does. */
  agent: z.enum(AGENT_KINDS).catch('unknown'),
  name: z.string().min(1),
  sessionId: z.string().optional(),
  cwd: z.string().optional(),
  transcriptPath: z.string().optional(),
  projectDir: z.string().optional(),
  payload: z.record(z.string(), z.unknown()),
});

const commandOutcomeSchema = z.looseObject({
  name: z.string(),
  command: z.string().default(''),
  exitCode: z.number().nullable(),
  signal: z.string().nullable().default(null),
  timedOut: z.boolean().default(false),
  durationMs: z.number().default(0),
  spawnError: z.string().optional(),
  blocking: z.boolean().default(false),
  origin: z.enum(['user', 'project']).optional(),
});

/** A message about hookd itself (an untrusted project file, a broken config) for the desktop. */
const noticeSchema = z.object({
  key: z.string().min(1).max(2000),
  title: z.string().min(1).max(200),
  body: z.string().max(2000),
});

export const eventRequestSchema = z.object({
  v: z.literal(1),
  type: z.literal('event'),
  event: hookEventSchema,
  results: z.array(commandOutcomeSchema).default([]),
  notices: z.array(noticeSchema).max(10).optional(),
  // The hand-off types live with the hook (events/types.ts: the hook path loads no zod); this check makes
  // the schema and them one contract: a parsed request is an EventHandoff without a cast.
}) satisfies z.ZodType<EventHandoff>;

const outboxRequestSchema = z.object({
  v: z.literal(1),
  type: z.literal('outbox'),
  action: z.enum(['list', 'retry', 'purge']),
  /** Delivery ids; absent = every delivery in `state`. */
  ids: z.array(z.string()).optional(),
  state: z.enum(['pending', 'held', 'dead', 'delivered', 'cancelled', 'all']).default('all'),
});

/**
 * A permission prompt the hook asks the daemon to send away (docs/remote.md); the reply comes when an
 * answer counted, the ask ended, or at once when it is not sent.
 */
export const permissionRequestSchema = z.object({
  v: z.literal(1),
  type: z.literal('permission'),
  agent: z.string().min(1).max(40),
  session: z.string().min(1).max(200),
  project: z.string().max(4096),
  tool: z.string().min(1).max(200),
  /** The call's exact `tool_input`: the answer is bound to its hash. */
  input: z.unknown(),
  /** Whether the request carried `permission_suggestions` (Claude Code leaves them out under an ask rule). */
  suggestions: z.boolean(),
  /** How long the hook waits, in ms; the daemon answers before. */
  waitMs: z.number().int().min(1000).max(3_600_000),
});

/** An event's key (docs/daemon.md, "The same event twice"): a sha256, in hex. */
const onceKeySchema = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * The same event twice, from the hook process (docs/protocol.md): `once` asks whose turn it is (the
 * first call leads, a later one is a copy), `once-wait` waits for the first call's answer, `once-done`
 * gives it (on the connection that leads; without an exit code: not run, its copies run themselves).
 */
const onceRequestSchemas = [
  z.object({
    v: z.literal(1),
    type: z.literal('once'),
    key: onceKeySchema,
    /** How long the caller may run the event (its budget); past it (capped) its copies are told to run. */
    budgetMs: z.number().int().min(0).optional(),
    /**
     * The event's session id and event id: with both, a copy that comes just after this call answered
     * still gets its answer (docs/daemon.md, "The same event twice"); without, only while it runs.
     */
    session: z.string().max(4096).optional(),
    id: z.string().max(256).optional(),
  }),
  z.object({ v: z.literal(1), type: z.literal('once-wait'), key: onceKeySchema }),
  z.object({
    v: z.literal(1),
    type: z.literal('once-done'),
    key: onceKeySchema,
    exitCode: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
    stdout: z.string().max(ONCE_ANSWER_MAX_CHARS).default(''),
    stderr: z.string().max(ONCE_ANSWER_MAX_CHARS).default(''),
  }),
] as const;

export const requestSchema = z.discriminatedUnion('type', [
  ...onceRequestSchemas,
  eventRequestSchema,
  z.object({ v: z.literal(1), type: z.literal('ping') }),
  z.object({ v: z.literal(1), type: z.literal('status') }),
  z.object({ v: z.literal(1), type: z.literal('shutdown') }),
  /** The live noise-control memory (dedupe, cooldowns, idle prompts, sessions), for `hookd explain`. */
  z.object({ v: z.literal(1), type: z.literal('noise') }),
  /** The sessions' states (docs/sessions.md), for `hookd status` and `hookd sessions --live`. */
  z.object({ v: z.literal(1), type: z.literal('sessions') }),
  /** `hookd ack`: stop the ladders and held notifications of a session (docs/sessions.md). */
  z.object({
    v: z.literal(1),
    type: z.literal('ack'),
    session: z.string().min(1).max(200).optional(),
    all: z.boolean().default(false),
  }),
  /** The escalation ladders running and the last stopped ones, for `hookd explain` and `hookd outbox list`. */
  z.object({ v: z.literal(1), type: z.literal('ladders'), session: z.string().min(1).max(200).optional() }),
  outboxRequestSchema,
  permissionRequestSchema,
]);

export type DaemonRequest = z.infer<typeof requestSchema>;
export type EventRequest = z.infer<typeof eventRequestSchema>;
export type OutboxRequest = z.infer<typeof outboxRequestSchema>;
export type PermissionRequestMessage = z.infer<typeof permissionRequestSchema>;
// What the remote answers take (src/remote/types.ts) is what this request carries.
const _permissionRequestFits = (m: PermissionRequestMessage): PermissionRequest => m;
export type OnceRequest = z.infer<(typeof onceRequestSchemas)[number]>;

export type ParsedRequest =
  { ok: true; request: DaemonRequest } | { ok: false; code: string; error: string; id?: string };

/** Parses and validates one request line; every failure is a reply the client can read. */
export function parseRequest(line: string): ParsedRequest {
  let input: unknown;
  try {
    input = JSON.parse(line);
  } catch {
    return {
      ok: false,
      code: 'bad_json',
      error: 'the request is not valid JSON (send one JSON object per line)',
    };
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, code: 'bad_request', error: 'the request must be a JSON object' };
  }
  const raw = input as Record<string, unknown>;
  const id = (raw.event as { id?: unknown } | undefined)?.id;
  const withId = typeof id === 'string' ? { id } : {};
  if (raw.v !== PROTOCOL_VERSION) {
    return {
      ok: false,
      code: 'bad_version',
      error: `protocol version ${JSON.stringify(raw.v ?? null)} is not supported; this daemon speaks v${PROTOCOL_VERSION} (update hookd so the hook and the daemon match, then \`hookd daemon stop\`)`,
      ...withId,
    };
  }
  const parsed = requestSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    const code = parsed.error.issues.some((i) => i.path[0] === 'type') ? 'unknown_type' : 'invalid';
    const what = typeof raw.type === 'string' ? raw.type : 'request';
    return { ok: false, code, error: `invalid ${what}: ${issues}`, ...withId };
  }
  return { ok: true, request: parsed.data };
}

export function replyLine(reply: Record<string, unknown>): string {
  return `${JSON.stringify({ v: PROTOCOL_VERSION, ...reply })}\n`;
}

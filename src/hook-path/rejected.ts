import type { ConfigValidator, LoadedConfig } from '../config/load.js';
import { loadConfig } from '../config/load.js';
import { DEFAULTS } from '../config/defaults.js';
import { DEAD_LETTER_MAX_BYTES, keepDeadLetter, type DeadLetterLimits } from '../events/dead-letter.js';
import { scanJson, type ScanResult } from '../events/json-scan.js';
import { GO_ON_EVENTS, isEventName } from '../events/names.js';
import { MAX_EVENT_DEPTH, type DeclaredAgent, type ParseFailure } from '../events/parse.js';
import type { HookEvent } from '../events/types.js';
import type { LineLogger } from '../logging/line-logger.js';
import { deadLetterDir } from '../paths.js';
import { GUARD_NOT_RUN, type AgentReply } from '../runner/decision.js';
import type { PlannedCommand } from '../runner/route.js';
import { guardsAtStake, identifyUnreadable, unreadableReply } from './unreadable.js';

/**
 * What the hook does with input it cannot take as it is: an unreadable or rejected event (kept as a dead
 * letter, and answered with exit 2 when a guard that must not be skipped would have run) and an event
 * nested too deep to keep whole. Rare: the hook loads this from its own chunk (rare.ts).
 */

type Env = Record<string, string | undefined>;

/** What keeping a dead letter needs: where (env), the log, the clock and, for the limits, the config. */
export interface RejectIO {
  env: Env;
  logger: LineLogger;
  now?: (() => number) | undefined;
  validator?: (() => ConfigValidator) | undefined;
}

/** What was rejected and why, for the event's report. */
export interface Rejection {
  reason: ParseFailure | string;
  detail: string;
  deadLetter?: string | undefined;
  /** The guards marked `"onError": "block"` that would have run: hookd answered exit 2. */
  guardsNotRun?: string[];
}

/** The dead-letter bounds: the env vars, else the user config's settings.deadLetterMax, else defaults. */
function deadLetterLimits(io: RejectIO): DeadLetterLimits {
  let maxFiles: number = DEFAULTS.deadLetterMax;
  if (io.env.HOOKD_DEAD_LETTER_MAX !== undefined) maxFiles = Number(io.env.HOOKD_DEAD_LETTER_MAX);
  else if (io.validator) {
    try {
      maxFiles = loadConfig({ env: io.env, projectDir: undefined, validator: io.validator }).config.settings
        .deadLetterMax;
    } catch {}
  }
  const maxBytes = Number(io.env.HOOKD_DEAD_LETTER_MAX_BYTES ?? DEAD_LETTER_MAX_BYTES);
  return { maxFiles, maxBytes };
}

/** Logs a rejected input and keeps its bytes in the bounded dead-letter folder. */
export function rejectInput(
  io: RejectIO,
  raw: Buffer,
  reason: string,
  detail: string,
  /** What is known of the event all the same (its name, tool). */
  fields: Record<string, unknown> = {},
): Rejection {
  const deadLetter = keepDeadLetter(
    deadLetterDir(io.env),
    raw,
    { reason, detail, now: (io.now ?? Date.now)(), pid: process.pid },
    deadLetterLimits(io),
  );
  io.logger.log(
    'error',
    { kind: 'bad-input', reason, bytes: raw.length, deadLetter, ...fields },
    `rejected input: ${detail}${deadLetter ? ` (kept in ${deadLetter})` : ''}`,
  );
  return { reason, detail, deadLetter };
}

/**
 * An event nested deeper than hookd keeps: its commands run as usual (the whole bytes on their stdin),
 * hookd's own copy is cut at MAX_EVENT_DEPTH, and the original is kept beside the dead letters.
 */
export function keepTooDeep(io: RejectIO, raw: Buffer, event: HookEvent): void {
  const detail = `nests objects or arrays more than ${MAX_EVENT_DEPTH} levels deep; commands get it whole on stdin, hookd's own copy stops at that depth`;
  const kept = keepDeadLetter(
    deadLetterDir(io.env),
    raw,
    { reason: 'too-deep', detail, now: (io.now ?? Date.now)(), pid: process.pid },
    deadLetterLimits(io),
  );
  io.logger.log(
    'warn',
    { kind: 'too-deep', event: event.name, eventId: event.id, bytes: raw.length, deadLetter: kept },
    `${event.name}: ${detail}${kept ? ` (original kept in ${kept})` : ''}`,
  );
}

/** What answering unreadable input decided: the rejection, and the guards it blocks for, if any. */
export interface UnreadableAnswer {
  rejected: Rejection;
  config?: LoadedConfig;
  planned?: PlannedCommand[];
  reply?: AgentReply;
}

/**
 * Input hookd could not read: kept as a dead letter and logged, as always; and when a guard marked
 * `"onError": "block"` would have run for the event (unreadable.ts says which), the agent gets exit 2
 * with what happened and each such guard is logged as "guard not run". Never for Stop or SubagentStop.
 * `configFor` loads the config of a project dir (it may throw).
 */
export function answerUnreadable(
  request: { bytes: Buffer; declaredEvent?: string | undefined; agent?: DeclaredAgent | undefined },
  io: RejectIO,
  failure: { reason: string; detail: string; scan?: ScanResult | undefined },
  configFor: (projectDir: string | undefined) => LoadedConfig,
): UnreadableAnswer {
  const declaredEvent = isEventName(request.declaredEvent) ? request.declaredEvent : undefined;
  const unreadable = identifyUnreadable(failure.scan ?? scanJson(request.bytes), io.env, {
    event: declaredEvent,
    agent: request.agent,
  });
  const known = {
    ...(unreadable.name !== undefined ? { event: unreadable.name, eventFrom: unreadable.nameFrom } : {}),
    ...(typeof unreadable.known.tool_name === 'string' ? { tool: unreadable.known.tool_name } : {}),
  };
  const answer: UnreadableAnswer = {
    rejected: rejectInput(io, request.bytes, failure.reason, failure.detail, known),
  };
  if (unreadable.name !== undefined && GO_ON_EVENTS.has(unreadable.name)) return answer;
  let loaded: LoadedConfig;
  try {
    loaded = configFor(unreadable.projectDir);
  } catch (error) {
    io.logger.log('error', { kind: 'config' }, `cannot load config: ${(error as Error).message}`);
    return answer;
  }
  const guards = guardsAtStake(unreadable, loaded);
  if (guards.length === 0) return answer;
  answer.config = loaded;
  answer.planned = guards.map((g) => g.guard);
  answer.rejected.guardsNotRun = [...new Set(guards.map((g) => g.guard.name))];
  answer.reply = unreadableReply(unreadable, failure.detail, guards);
  for (const { event, guard } of guards) {
    io.logger.log(
      'error',
      {
        kind: 'command',
        event,
        name: guard.name,
        command: guard.spec.command,
        blocking: true,
        origin: guard.origin,
        outcome: GUARD_NOT_RUN,
        reason: failure.reason,
      },
      `${guard.name} could not run: hookd could not read the ${unreadable.name ?? 'event'} event (${failure.detail}); it is marked "onError": "block", so hookd blocks`,
    );
  }
  return answer;
}

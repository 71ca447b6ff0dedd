import { DEFAULTS } from '../config/defaults.js';
import type { HookdConfig } from '../config/schemas/schema.js';
import { failed } from '../events/failed.js';
import type { HookEvent } from '../events/types.js';
import type { LineLogger } from '../logging/line-logger.js';
import { decideReply, GUARD_NOT_RUN, notRunReason, type AgentReply } from '../runner/decision.js';
import type { PlannedCommand } from '../runner/route.js';
import { runEventCommands, type RanCommand } from '../runner/run-event.js';
import type { SpawnLike } from '../runner/run-command.js';

/**
 * Running the commands an event planned: start them, log each and what hookd changed so it could start,
 * and decide the agent's answer. An event without commands (most of them) never needs this: the hook
 * loads it from its own chunk (scripts/build.mjs) only when an event has a command to run.
 */

export interface RunPlannedIO {
  env: Record<string, string | undefined>;
  logger: LineLogger;
  /** The event's bytes, or the private file holding them when too large for memory. */
  rawStdin: Buffer | { file: string };
  fallbackCwd: string;
  umask?: number | undefined;
  spawn?: SpawnLike | undefined;
  signal?: AbortSignal | undefined;
}

function logCommand(logger: LineLogger, event: HookEvent, r: RanCommand): void {
  const { result, planned } = r;
  const commandFailed = failed(result, planned.spec.blocking);
  const notRun = notRunReason(r) !== undefined;
  const tail = DEFAULTS.logTailBytes;
  logger.log(
    notRun && planned.spec.blocking ? 'error' : commandFailed ? 'warn' : 'info',
    {
      kind: 'command',
      event: event.name,
      eventId: event.id,
      sessionId: event.sessionId,
      name: planned.name,
      command: planned.spec.command,
      blocking: planned.spec.blocking,
      origin: planned.origin,
      outcome: notRun ? (planned.spec.blocking ? GUARD_NOT_RUN : 'not run') : 'ran',
      durationMs: Math.round(result.durationMs * 10) / 10,
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      killedBy: result.killedBy,
      timeoutMs: planned.timeoutMs,
      ...(result.spawnError ? { spawnError: result.spawnError } : {}),
      stdoutBytes: result.stdout.totalBytes,
      stderrBytes: result.stderr.totalBytes,
      stdoutTail: result.stdout.tailText(tail),
      stderrTail: result.stderr.tailText(tail),
    },
    result.timedOut
      ? `${planned.name} killed after ${result.killedBy === 'budget' ? 'the event budget ran out' : `its ${planned.timeoutMs} ms timeout`}`
      : result.spawnError
        ? `${planned.name} could not start: ${result.spawnError}`
        : `${planned.name} exited ${result.exitCode ?? result.signal}`,
  );
}

/** Says what hookd changed so a command could start: a gone cwd, fields left out of the env. */
function logFallbacks(logger: LineLogger, event: HookEvent, ran: readonly RanCommand[]): void {
  const fields = [...new Set(ran.flatMap((r) => r.skippedFields ?? []))];
  if (fields.length > 0) {
    logger.log(
      'warn',
      { kind: 'env-skipped', event: event.name, eventId: event.id, fields },
      `payload field(s) too large for a command's environment, left out (still on stdin): ${fields.join(', ')}`,
    );
  }
  for (const r of ran) {
    if (!r.cwdFallback) continue;
    logger.log(
      'warn',
      { kind: 'cwd-fallback', event: event.name, eventId: event.id, name: r.planned.name, ...r.cwdFallback },
      `${r.planned.name}: cwd ${r.cwdFallback.cwd} does not exist; ran in ${r.cwdFallback.fallback}`,
    );
  }
}

/** Runs the planned commands of an event, logs them, and decides the agent's answer. */
export async function runPlanned(
  event: HookEvent,
  commands: readonly PlannedCommand[],
  config: HookdConfig,
  io: RunPlannedIO,
): Promise<{ ran: RanCommand[]; reply: AgentReply }> {
  const ran = await runEventCommands(event, commands, config, {
    env: io.env,
    rawStdin: io.rawStdin,
    fallbackCwd: io.fallbackCwd,
    ...(io.umask !== undefined ? { umask: io.umask } : {}),
    ...(io.spawn ? { spawn: io.spawn } : {}),
    ...(io.signal ? { signal: io.signal } : {}),
  });
  logFallbacks(io.logger, event, ran);
  for (const r of ran) logCommand(io.logger, event, r);
  return { ran, reply: decideReply(event, ran) };
}

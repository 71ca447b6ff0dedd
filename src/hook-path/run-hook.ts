import { join } from 'node:path';
import { eventScanOptions } from '../events/parse.js';
import { removeSpill, type StdinLimits, type StdinResult } from '../events/read-stdin.js';
import { createLineLogger } from '../logging/line-logger.js';
import { logFilePath, stateDir } from '../paths.js';
import { inputLimits, runEvent, type ProcessIO, type RunEventRequest } from './process-event.js';

export interface HookMainIO extends Omit<ProcessIO, 'logger'> {
  /** Reads stdin once within the limits (readStdin over the process's stdin). */
  readInput: (limits: StdinLimits) => Promise<StdinResult>;
  writeStdout: (text: string) => void;
  writeStderr: (text: string) => void;
  /** The directory the agent started the hook in, when it no longer existed (see recoverWorkingDir). */
  lostCwd?: string;
  /** The id a daemon acknowledged this event under before it died (src/hook-path/fast-event-id.ts). */
  eventId?: string;
  /** The event named by the hook command (`hookd hook --event PreToolUse`). */
  declaredEvent?: string | undefined;
}

/**
 * `hookd hook`: read the event from stdin once, run its commands, hand it to the daemon, answer the
 * agent. Returns the exit code: 0, or 2 when a blocking command decided so. Never throws.
 */
export async function runHook(io: HookMainIO): Promise<number> {
  if (io.env.HOOKD === '0') return 0;
  const debug = io.env.HOOKD_DEBUG === '1' || io.env.HOOKD_DEBUG === 'true';
  const logger = createLineLogger(
    logFilePath(io.env),
    debug ? { debugTo: (line) => io.writeStderr(`hookd: ${line}`) } : {},
  );
  try {
    if (io.lostCwd) {
      logger.log(
        'warn',
        { kind: 'cwd-lost', cwd: io.lostCwd, fallback: io.cwd },
        `hookd was started in ${io.lostCwd}, which does not exist; working in ${io.cwd}`,
      );
    }
    if (Number(io.env.HOOKD_DEPTH ?? 0) >= 4) {
      logger.log(
        'warn',
        { kind: 'recursion', depth: io.env.HOOKD_DEPTH },
        'hookd called from its own commands 4 levels deep; ignoring the event',
      );
      return 0;
    }
    const limits = inputLimits(io.env);
    // Past the in-memory limit, stdin goes to a private file in the state dir (on disk: the runtime dir
    // may be memory) and is scanned on the way into hookd's bounded copy of the event.
    const input = await io.readInput({
      ...limits,
      spillDir: join(stateDir(io.env), 'stdin'),
      scan: eventScanOptions(limits.memoryBytes),
    });
    const request: RunEventRequest = {
      bytes: input.bytes,
      env: io.env,
      cwd: io.cwd,
      agent: io.agent,
      id: io.eventId,
      declaredEvent: io.declaredEvent,
      // Too big, never closed or unreadable: what arrived is kept; a guard that must not be skipped blocks.
      ...(input.ok
        ? { spilled: input.spilled }
        : { readFailure: { reason: input.reason, detail: input.detail, scan: input.scan } }),
    };
    if (input.ok && io.eventId) {
      logger.log(
        'warn',
        { kind: 'fast', eventId: io.eventId },
        'the daemon acknowledged this event and went away before the fast client could send GO; run here, under the same id',
      );
    }
    try {
      const reply = await runEvent(request, { ...io, logger });
      if (reply.stdout) io.writeStdout(reply.stdout);
      if (reply.stderr) io.writeStderr(reply.stderr);
      return reply.exitCode;
    } finally {
      if (input.ok && input.spilled) removeSpill(input.spilled.path);
    }
  } catch (error) {
    logger.log(
      'fatal',
      { kind: 'crash', stack: (error as Error).stack },
      `hookd hook failed: ${(error as Error).message}`,
    );
    return 0;
  } finally {
    logger.close();
  }
}

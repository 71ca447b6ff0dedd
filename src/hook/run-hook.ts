import { DEFAULTS } from '../config/defaults.js';
import type { StdinResult } from '../events/read-stdin.js';
import { createLineLogger } from '../logging/line-logger.js';
import { logFilePath } from '../paths.js';
import { processEvent, rejectInput, type ProcessIO } from './process-event.js';

export interface HookMainIO extends Omit<ProcessIO, 'logger'> {
  /** Reads stdin once within the limits (readStdin over a stream, or readStdinFd). */
  readInput: (limits: { maxBytes: number; timeoutMs: number }) => Promise<StdinResult>;
  writeStdout: (text: string) => void;
  writeStderr: (text: string) => void;
  /** The directory the agent started the hook in, when it no longer existed (see recoverWorkingDir). */
  lostCwd?: string;
  /** The id a daemon acknowledged this event under before it died (src/hook/fast-event-id.ts). */
  eventId?: string;
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
    const limits = {
      maxBytes: Number(io.env.HOOKD_MAX_STDIN_BYTES) || DEFAULTS.maxStdinBytes,
      timeoutMs: Number(io.env.HOOKD_STDIN_TIMEOUT_MS) || DEFAULTS.stdinTimeoutMs,
    };
    const input = await io.readInput(limits);
    if (!input.ok) {
      // Too big, never closed or unreadable: keep what arrived and let the agent go on.
      rejectInput({ env: io.env, logger, validator: io.validator }, input.bytes, input.reason, input.detail);
      return 0;
    }
    if (io.eventId) {
      logger.log(
        'warn',
        { kind: 'fast', eventId: io.eventId },
        'the daemon acknowledged this event and went away before the fast client could send GO; run here, under the same id',
      );
    }
    const report = await processEvent(input.bytes, { ...io, logger });
    if (report.reply.stdout) io.writeStdout(report.reply.stdout);
    if (report.reply.stderr) io.writeStderr(report.reply.stderr);
    return report.reply.exitCode;
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

import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import type { HookdConfig } from '../config/schemas/schema.js';
import type { HookEvent } from '../events/types.js';
import { commandEnv } from './command-env.js';
import { eventBudgetMs, type PlannedCommand } from './route.js';
import { runCommand, type CommandResult, type SpawnLike } from './run-command.js';

export interface RanCommand {
  planned: PlannedCommand;
  result: CommandResult;
  /** Payload fields left out of the command's environment (too large for the kernel's limits). */
  skippedFields?: string[];
  /** Set when the wanted working directory was gone and the command ran in `fallback` instead. */
  cwdFallback?: { cwd: string; fallback: string };
}

function isDir(dir: string | undefined): dir is string {
  if (!dir) return false;
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Where a command runs: its own `cwd`, else the event's. When that directory is gone (the agent's
 * session removed it, or the payload was recorded elsewhere) the guard still runs: in the agent's
 * project dir, else the home dir.
 */
function commandCwd(
  wanted: string,
  event: HookEvent,
  env: Record<string, string | undefined>,
): { cwd: string; fallback?: string } {
  if (isDir(wanted)) return { cwd: wanted };
  const candidates = [
    env.FACTORY_PROJECT_DIR,
    env.DROID_PROJECT_DIR,
    env.CLAUDE_PROJECT_DIR,
    event.projectDir,
    env.HOME || homedir(),
    '/',
  ];
  const fallback = candidates.find(isDir);
  return fallback ? { cwd: fallback, fallback } : { cwd: wanted };
}

const DECISION_CAPTURE_BYTES = 1024 * 1024;

/**
 * Runs an event's planned commands: concurrently by default, one after another for events listed in
 * `settings.sequentialEvents`; all within the event's budget. Results come back in config order.
 */
export async function runEventCommands(
  event: HookEvent,
  planned: readonly PlannedCommand[],
  config: HookdConfig,
  io: {
    /** The agent's environment: the commands' environment is built from it, never from process.env. */
    env: Record<string, string | undefined>;
    /** The event's bytes, or the private file holding them when too large for memory. */
    rawStdin: Buffer | { file: string };
    /** Where commands run when neither the command nor the event names a directory. */
    fallbackCwd: string;
    /** The agent's umask, when it differs from this process's (see RunCommandOptions.umask). */
    umask?: number | undefined;
    spawn?: SpawnLike | undefined;
    /** Aborted when the caller gives up on the event (the fast client went away): commands are killed. */
    signal?: AbortSignal | undefined;
  },
): Promise<RanCommand[]> {
  if (planned.length === 0) return [];
  const budget = new AbortController();
  const budgetTimer = setTimeout(() => budget.abort(), eventBudgetMs(event, config));
  const onCallerAbort = () => budget.abort();
  if (io.signal?.aborted) budget.abort();
  else io.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const settings = config.settings;
  const runOne = async (planned: PlannedCommand): Promise<RanCommand> => {
    const spec = planned.spec;
    const wantsStdout = spec.blocking || spec.context === true;
    const skipped: string[] = [];
    const env = commandEnv(event, io.env, {
      commandName: planned.name,
      configured: spec.env,
      command: spec.command,
      skipped,
    });
    const wanted = spec.cwd ?? event.cwd ?? io.fallbackCwd;
    const where = commandCwd(wanted, event, io.env);
    const result = await runCommand({
      command: spec.command,
      cwd: where.cwd,
      env,
      stdin: io.rawStdin,
      timeoutMs: planned.timeoutMs,
      killGraceMs: settings.killGraceMs,
      maxOutputBytes: wantsStdout
        ? Math.max(settings.maxOutputBytes, DECISION_CAPTURE_BYTES)
        : settings.maxOutputBytes,
      signal: budget.signal,
      ...(io.umask !== undefined ? { umask: io.umask } : {}),
      ...(io.spawn ? { spawn: io.spawn } : {}),
    });
    const ran: RanCommand = { planned, result };
    if (skipped.length > 0) ran.skippedFields = skipped;
    if (where.fallback) ran.cwdFallback = { cwd: wanted, fallback: where.fallback };
    return ran;
  };
  try {
    if (settings.sequentialEvents.includes(event.name)) {
      const out: RanCommand[] = [];
      for (const p of planned) out.push(await runOne(p));
      return out;
    }
    return await Promise.all(planned.map(runOne));
  } finally {
    clearTimeout(budgetTimer);
    io.signal?.removeEventListener('abort', onCallerAbort);
  }
}

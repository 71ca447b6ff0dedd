import type { HookdConfig } from '../config/schema.js';
import type { HookEvent } from '../events/types.js';
import { commandEnv } from './command-env.js';
import { eventBudgetMs, type PlannedCommand } from './route.js';
import { runCommand, type CommandResult } from './run-command.js';

export interface RanCommand {
  planned: PlannedCommand;
  result: CommandResult;
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
  io: { env: Record<string, string | undefined>; rawStdin: Buffer; fallbackCwd: string },
): Promise<RanCommand[]> {
  if (planned.length === 0) return [];
  const budget = new AbortController();
  const budgetTimer = setTimeout(() => budget.abort(), eventBudgetMs(event, config));
  const settings = config.settings;
  const runOne = async (planned: PlannedCommand): Promise<RanCommand> => {
    const spec = planned.spec;
    const wantsStdout = spec.blocking || spec.context;
    const result = await runCommand({
      command: spec.command,
      cwd: spec.cwd ?? event.cwd ?? io.fallbackCwd,
      env: commandEnv(event, io.env, { commandName: planned.name, configured: spec.env }),
      stdin: io.rawStdin,
      timeoutMs: planned.timeoutMs,
      killGraceMs: settings.killGraceMs,
      maxOutputBytes: wantsStdout
        ? Math.max(settings.maxOutputBytes, DECISION_CAPTURE_BYTES)
        : settings.maxOutputBytes,
      signal: budget.signal,
    });
    return { planned, result };
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
  }
}

import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** How an agent run inside the isolation ended. */
export interface AgentExit {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
}

/** Waits for the agent to exit; kills it by its PID at the deadline (and says so). */
export async function agentExit(child: ChildProcess, deadlineMs: number): Promise<AgentExit> {
  const result: AgentExit = { code: null, signal: null, timedOut: false };
  const timer = setTimeout(() => {
    result.timedOut = true;
    child.kill('SIGKILL');
  }, deadlineMs);
  await new Promise<void>((resolve) =>
    child.on('exit', (code, signal) => {
      result.code = code;
      result.signal = signal;
      resolve();
    }),
  );
  clearTimeout(timer);
  return result;
}

/**
 * Runs an inner part's main to its end and exits: 0 after it wrote `result.json`, 70 with the error in
 * `inner-error.txt` (agent-run.ts `runInner` reads both).
 */
export function runInnerMain(outDir: string, main: () => Promise<void>): void {
  void main().then(
    () => process.exit(0),
    (error: unknown) => {
      writeFileSync(join(outDir, 'inner-error.txt'), String((error as Error).stack ?? error));
      process.exit(70);
    },
  );
}

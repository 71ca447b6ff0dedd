import type { ChildProcess } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';

/**
 * The harness marks every process of a run with this variable (inherited by the agent, its hooks and
 * whatever they start), so what a run left behind is found by its environment and killed by PID.
 */
export const RUN_MARKER = 'HOOKD_HARNESS_RUN';

/** The pids (other than this process) whose environment carries `RUN_MARKER=<runId>`. */
export function markedPids(runId: string): number[] {
  const needle = Buffer.from(`${RUN_MARKER}=${runId}\0`);
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/environ`).includes(needle);
      } catch {
        return false; // gone, or not ours to read
      }
    })
    .map(Number);
}

/** SIGKILLs every process of the run, by PID; returns how many there were. */
export function killRun(runId: string): number {
  const pids = markedPids(runId);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
  return pids.length;
}

/**
 * Droid's exit code, with a deadline: past it the process group (the child was spawned detached) is
 * SIGKILLed and the result is 124, as `timeout` says; a spawn failure is 127 and noted in `stderrFile`.
 */
export function exitWithin(child: ChildProcess, deadlineMs: number, stderrFile: string): Promise<number> {
  return new Promise((resolve) => {
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {}
    }, deadlineMs);
    child.on('error', (e) => {
      clearTimeout(deadline);
      appendFileSync(stderrFile, `harness: cannot start droid: ${e.message}\n`);
      resolve(127);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(deadline);
      resolve(timedOut ? 124 : (code ?? (signal ? 128 : 1)));
    });
  });
}

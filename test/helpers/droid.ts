import type { DroidRun } from '../harness/droid/run.js';
import { join } from 'node:path';
import { REPO_DIR } from './fixtures.js';
import { jsonLines } from './json-lines.js';

/**
 * The real Droid CLI for the e2e tests: the project's own harness (test/harness/droid/), re-exported
 * under the name the tests have always used.
 */
export { runRealDroid, type DroidRun, type DroidRunOptions } from '../harness/droid/run.js';
export type { FakeStep } from '../harness/droid/script.js';

/** One hook execution as Droid records it in its session transcript (a `hookResults` message). */
export interface AgentHookRun {
  hookEventName: string;
  hookCommands: { command: string; timeout?: number }[];
  hookStatus: string;
  hookResults: { exitCode: number; stdout: string; stderr: string }[];
  hookStartTime: number;
  hookEndTime: number;
}

/** Every hook execution of a run, as the agent recorded it in its transcripts. */
export function agentHookRuns(run: DroidRun): AgentHookRun[] {
  return run
    .transcripts()
    .flatMap((f) => jsonLines<{ message?: Partial<AgentHookRun> }>(f))
    .map((line) => line.message)
    .filter((m): m is AgentHookRun => m?.hookResults !== undefined);
}

/** The README's guard (hooks/guard-execute.mjs) as a blocking hook, told to refuse a harmless marker. */
export function readmeGuardHook(deny = 'forbidden-marker'): Record<string, unknown> {
  return {
    type: 'command',
    command: `node ${join(REPO_DIR, 'hooks', 'guard-execute.mjs')}`,
    name: 'guard',
    blocking: true,
    timeout: 10,
    env: { HOOKD_GUARD_DENY: deny },
  };
}

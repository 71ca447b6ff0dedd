import type { BoundedBuffer } from './bounded-buffer.js';
import { runProcess } from './run.js';

export interface ProbeRunOptions {
  env: Record<string, string | undefined>;
  /** The probe is killed (its whole process group, SIGKILL) when it has not exited by then. */
  timeoutMs: number;
  /** stdout kept at most (bytes); the rest is dropped. stderr keeps at most 2 KiB. */
  maxBytes: number;
}

export interface ProbeOutput {
  /** The exit code; null when killed or never started. */
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The spawn error (ENOENT...), when it could not start. */
  error?: string;
}

/** How a short-lived probe is run: a file and its arguments, never shell text. Injected by tests. */
export type ProbeRun = (
  file: string,
  args: readonly string[],
  options: ProbeRunOptions,
) => Promise<ProbeOutput>;

const STDERR_MAX = 2048;

const firstHalf = (buffer: BoundedBuffer) => Buffer.concat(buffer.head).toString('utf8');

/**
 * Runs `file args` with no shell, in a process group of its own (runProcess), and resolves with its
 * output once it exits, or at the deadline (the group is killed then; the caller never waits on a hung
 * probe). Never rejects.
 */
export const runProbe: ProbeRun = async (file, args, options) => {
  const ran = await runProcess({
    command: [file, ...args],
    env: options.env,
    timeoutMs: options.timeoutMs,
    killGraceMs: 0,
    // A buffer keeps whole the first half of its cap: the probe's first maxBytes, and the rest is dropped.
    maxOutputBytes: options.maxBytes * 2,
  });
  const output: ProbeOutput = {
    code: ran.exitCode,
    stdout: firstHalf(ran.stdout),
    stderr: firstHalf(ran.stderr).slice(0, STDERR_MAX),
    timedOut: ran.timedOut,
  };
  if (ran.spawnError !== undefined) output.error = ran.spawnError;
  return output;
};

import { spawn } from 'node:child_process';
import { killProcessGroup } from './process-group.js';

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

/**
 * Runs `file args` with no shell, in a process group of its own, and resolves with its output once it
 * exits, or at the deadline (the group is killed then; the caller never waits on a hung probe). Never
 * rejects.
 */
export const runProbe: ProbeRun = (file, args, options) =>
  new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let settled = false;
    const finish = (result: Omit<ProbeOutput, 'stdout' | 'stderr'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        ...result,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(file, [...args], {
        env: options.env as NodeJS.ProcessEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
        windowsHide: true,
      });
    } catch (error) {
      resolve({ code: null, stdout: '', stderr: '', timedOut: false, error: (error as Error).message });
      return;
    }
    const timer = setTimeout(() => {
      killProcessGroup(child, 'SIGKILL');
      finish({ code: null, timedOut: true });
    }, options.timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      const room = options.maxBytes - outBytes;
      if (room <= 0) return;
      out.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      outBytes += Math.min(room, chunk.length);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      const room = STDERR_MAX - errBytes;
      if (room <= 0) return;
      err.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      errBytes += Math.min(room, chunk.length);
    });
    child.on('error', (error) => finish({ code: null, timedOut: false, error: error.message }));
    child.on('close', (code) => finish({ code, timedOut: false }));
  });

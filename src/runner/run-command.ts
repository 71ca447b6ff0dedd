import type { ChildProcess, spawn as spawnType } from 'node:child_process';
import { closeSync, constants, openSync, statSync } from 'node:fs';
import { BoundedBuffer } from './bounded-buffer.js';
import { monotonicMs } from '../util/monotonic-clock.js';
import { killProcessGroup, processGroupAlive } from '../util/process-group.js';

export interface RunCommandOptions {
  command: string;
  cwd: string;
  env: Record<string, string>;
  /**
   * The raw event bytes, written to stdin and then closed; or a file holding them (an event too large to
   * hold in memory), opened for this command alone (never through a symlink) as its stdin.
   */
  stdin: Buffer | { file: string };
  timeoutMs: number;
  killGraceMs: number;
  maxOutputBytes: number;
  /** Aborted when the event's total budget runs out: the command is killed like on a timeout. */
  signal?: AbortSignal;
  /** How long to wait for the pipes after the shell exited while a background child holds them. */
  pipeGraceMs?: number;
  shell?: string;
  /**
   * The file mode creation mask the command starts with, when it must differ from this process's (the
   * daemon running an agent's event): set by the shell before the command (`umask 0022` on a line of
   * its own ahead of it). Absent: the command inherits this process's umask.
   */
  umask?: number | undefined;
  /** How to start the shell (default: node:child_process spawn); injected by tests and callers. */
  spawn?: SpawnLike | undefined;
}

/** The subset of node:child_process spawn that runCommand uses. */
export type SpawnLike = typeof spawnType;

/** The script `sh -c` runs: the command, after a umask line when one is asked for. */
export function shellScript(command: string, umask?: number): string {
  if (umask === undefined) return command;
  return `umask ${(umask & 0o777).toString(8).padStart(4, '0')}\n${command}`;
}

/** How a command ended. A failure is a value: nothing here throws. */
export interface CommandResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** What stopped it, when hookd did. */
  killedBy: 'timeout' | 'budget' | null;
  durationMs: number;
  stdout: BoundedBuffer;
  stderr: BoundedBuffer;
  spawnError?: string;
  pid?: number;
}

function checkCwd(cwd: string): string | undefined {
  try {
    if (!statSync(cwd).isDirectory()) return `cwd ${cwd} is not a directory`;
  } catch {
    return `cwd ${cwd} does not exist`;
  }
  return undefined;
}

/**
 * Runs one command with `sh -c` in its own process group. On timeout (or when the event budget runs
 * out) the whole group gets SIGTERM, then SIGKILL after the grace period, so no grandchild survives.
 * A background child that keeps the pipes open after the shell exited does not hold hookd: after
 * `pipeGraceMs` the pipes are let go.
 */
export async function runCommand(options: RunCommandOptions): Promise<CommandResult> {
  const started = monotonicMs();
  const stdout = new BoundedBuffer(options.maxOutputBytes);
  const stderr = new BoundedBuffer(options.maxOutputBytes);
  const base = { stdout, stderr, timedOut: false, killedBy: null } as const;
  const cwdProblem = checkCwd(options.cwd);
  if (cwdProblem) {
    return { ...base, exitCode: null, signal: null, durationMs: 0, spawnError: cwdProblem };
  }
  let stdinFd: number | undefined;
  if (!Buffer.isBuffer(options.stdin)) {
    try {
      stdinFd = openSync(options.stdin.file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    } catch (error) {
      const why = `cannot open the event's stdin file: ${(error as Error).message}`;
      return { ...base, exitCode: null, signal: null, durationMs: 0, spawnError: why };
    }
  }
  // Loaded here, not at the top: an event without commands never pays for child_process.
  const spawn = options.spawn ?? process.getBuiltinModule('node:child_process').spawn;
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(options.shell ?? '/bin/sh', ['-c', shellScript(options.command, options.umask)], {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: [stdinFd ?? 'pipe', 'pipe', 'pipe'],
      });
    } catch (error) {
      resolve({ ...base, exitCode: null, signal: null, durationMs: 0, spawnError: (error as Error).message });
      return;
    } finally {
      // The child has its own copy of the descriptor.
      if (stdinFd !== undefined) closeSync(stdinFd);
    }
    let killedBy: CommandResult['killedBy'] = null;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let spawnError: string | undefined;
    let exited = false;
    let done = false;
    const timers: NodeJS.Timeout[] = [];

    const finish = () => {
      if (done) return;
      done = true;
      for (const t of timers) clearTimeout(t);
      options.signal?.removeEventListener('abort', onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
      const result: CommandResult = {
        stdout,
        stderr,
        exitCode,
        signal: exitSignal,
        timedOut: killedBy !== null,
        killedBy,
        durationMs: monotonicMs() - started,
      };
      if (spawnError) result.spawnError = spawnError;
      if (child.pid !== undefined) result.pid = child.pid;
      resolve(result);
    };

    const stop = (why: 'timeout' | 'budget') => {
      if (killedBy || done) return;
      killedBy = why;
      killProcessGroup(child, 'SIGTERM');
      timers.push(
        setTimeout(() => {
          killProcessGroup(child, 'SIGKILL');
          // The group is gone unless a member escaped with setsid; stop waiting for its pipes.
          timers.push(setTimeout(finish, 1000));
        }, options.killGraceMs),
      );
    };
    const onAbort = () => stop('budget');

    child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
    if (Buffer.isBuffer(options.stdin)) {
      child.stdin!.on('error', () => {}); // the command may not read stdin (EPIPE)
      child.stdin!.end(options.stdin);
    }
    child.on('error', (error) => {
      spawnError = error.message;
      finish();
    });
    child.on('exit', (code, signal) => {
      exited = true;
      exitCode = code;
      exitSignal = signal;
      // Killed by hookd: if other members of the group are still alive, the grace timer's SIGKILL
      // ends them and then finishes; otherwise there is nothing left to wait for.
      if (killedBy && processGroupAlive(child)) return;
      timers.push(setTimeout(finish, killedBy ? 20 : (options.pipeGraceMs ?? 500)));
    });
    child.on('close', () => {
      if (exited) finish();
    });
    timers.push(setTimeout(() => stop('timeout'), options.timeoutMs));
    if (options.signal) {
      if (options.signal.aborted) stop('budget');
      else options.signal.addEventListener('abort', onAbort, { once: true });
    }
  });
}

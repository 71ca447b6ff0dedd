import type { ChildProcess, spawn as spawnType } from 'node:child_process';
import { closeSync, constants, openSync, statSync } from 'node:fs';
import { BoundedBuffer } from './bounded-buffer.js';
import { killProcessGroup, processGroupAlive } from './group.js';
import { monotonicMs } from '../util/monotonic-clock.js';

/**
 * The one way hookd starts a process (docs/architecture.md, "Starting processes"): every guard, probe,
 * notification command and service-manager call goes through runProcess (or runProcessSync where the
 * caller cannot wait), and the daemon through spawnDetached. Only the resident spawner's bridge
 * (src/spawner/spawner.ts) starts a program of its own.
 */

/** The subset of node:child_process spawn that runProcess uses; the daemon's spawner is one. */
export type SpawnLike = typeof spawnType;

export interface RunOptions {
  /** A shell string, run with `<shell> -c` (default /bin/sh); or an argv, run directly with no shell. */
  command: string | readonly string[];
  shell?: string | undefined;
  /** The folder it runs in, checked first (a missing one is a clear error, not a misleading ENOENT). */
  cwd?: string | undefined;
  env: Record<string, string | undefined>;
  /**
   * Bytes written to stdin and then closed; or a file opened for this process alone (never through a
   * symlink) as its stdin. Absent: stdin is an empty pipe (end of file at once).
   */
  stdin?: Buffer | { file: string } | undefined;
  /** At the deadline the whole process group gets SIGTERM, then SIGKILL `killGraceMs` later. */
  timeoutMs: number;
  killGraceMs: number;
  /** The bytes of stdout kept, and of stderr (BoundedBuffer: its first and last halves). */
  maxOutputBytes: number;
  /** Aborted: the process is stopped like at the deadline, and the result says `killedBy: 'budget'`. */
  signal?: AbortSignal | undefined;
  /** How long to wait for the pipes after the process exited while a background child holds them. */
  pipeGraceMs?: number | undefined;
  /** How to start it (default: node:child_process spawn); the daemon gives its spawner, tests a fake. */
  spawn?: SpawnLike | undefined;
}

/** How a process ended. A failure is a value: nothing here throws. */
export interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Stopped by hookd, at the deadline or when the caller's signal aborted. */
  timedOut: boolean;
  killedBy: 'timeout' | 'budget' | null;
  durationMs: number;
  /** What it printed, bounded; `.truncated` says whether bytes were dropped. */
  stdout: BoundedBuffer;
  stderr: BoundedBuffer;
  /** Why it could not start (a missing cwd or program, an unreadable stdin file). */
  spawnError?: string;
  pid?: number;
}

/**
 * Runs one process in a process group of its own and resolves when it is done. At the deadline (or when
 * `signal` aborts) the whole group is stopped, so no grandchild survives. A background child that keeps
 * the pipes open after the process exited does not hold the caller: after `pipeGraceMs` (default 500)
 * the pipes are let go. Never rejects.
 */
export function runProcess(options: RunOptions): Promise<ProcessResult> {
  const started = monotonicMs();
  const stdout = new BoundedBuffer(options.maxOutputBytes);
  const stderr = new BoundedBuffer(options.maxOutputBytes);
  const notStarted = (spawnError: string): Promise<ProcessResult> =>
    Promise.resolve({
      stdout,
      stderr,
      timedOut: false,
      killedBy: null,
      exitCode: null,
      signal: null,
      durationMs: 0,
      spawnError,
    });
  if (options.cwd !== undefined) {
    let isDir = false;
    try {
      isDir = statSync(options.cwd).isDirectory();
    } catch {
      return notStarted(`cwd ${options.cwd} does not exist`);
    }
    if (!isDir) return notStarted(`cwd ${options.cwd} is not a directory`);
  }
  const input = options.stdin;
  let stdinFd: number | undefined;
  if (input && !Buffer.isBuffer(input)) {
    try {
      stdinFd = openSync(input.file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    } catch (error) {
      return notStarted(`cannot open the event's stdin file: ${(error as Error).message}`);
    }
  }
  // Loaded here, not at the top: a hook event that runs no command never pays for child_process.
  const spawn = options.spawn ?? process.getBuiltinModule('node:child_process').spawn;
  const { command } = options;
  const [file, ...args] = typeof command === 'string' ? [options.shell ?? '/bin/sh', '-c', command] : command;
  let child: ChildProcess;
  try {
    child = spawn(file!, args, {
      cwd: options.cwd,
      env: options.env as NodeJS.ProcessEnv,
      detached: true,
      stdio: [stdinFd ?? 'pipe', 'pipe', 'pipe'],
    });
  } catch (error) {
    return notStarted((error as Error).message);
  } finally {
    // The child has its own copy of the descriptor.
    if (stdinFd !== undefined) closeSync(stdinFd);
  }
  return new Promise((resolve) => {
    let killedBy: ProcessResult['killedBy'] = null;
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
      const result: ProcessResult = {
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
    if (stdinFd === undefined) {
      child.stdin!.on('error', () => {}); // the process may not read stdin (EPIPE)
      child.stdin!.end(input);
    }
    child.on('error', (error) => {
      spawnError = error.message;
      finish();
    });
    child.on('exit', (code, signal) => {
      exited = true;
      exitCode = code;
      exitSignal = signal;
      // Stopped by hookd: if other members of the group are still alive, the grace timer's SIGKILL
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

/**
 * runProcess for a caller that cannot wait (a synchronous check): argv only, stdin /dev/null, SIGKILL at
 * the deadline (to the process itself: a synchronous start has no group of its own), output bounded.
 */
export function runProcessSync(
  argv: readonly string[],
  options: Pick<RunOptions, 'env' | 'timeoutMs' | 'maxOutputBytes'>,
): ProcessResult {
  const started = monotonicMs();
  const stdout = new BoundedBuffer(options.maxOutputBytes);
  const stderr = new BoundedBuffer(options.maxOutputBytes);
  const ran = process.getBuiltinModule('node:child_process').spawnSync(argv[0]!, argv.slice(1), {
    env: options.env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: options.timeoutMs,
    killSignal: 'SIGKILL',
    // What is over the cap is dropped by the buffers; beyond this the child is stopped (ENOBUFS).
    maxBuffer: Math.max(options.maxOutputBytes, 1024) * 4,
  });
  if (ran.stdout) stdout.push(ran.stdout);
  if (ran.stderr) stderr.push(ran.stderr);
  const timedOut = (ran.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT';
  const result: ProcessResult = {
    exitCode: ran.status,
    signal: ran.signal,
    timedOut,
    killedBy: timedOut ? 'timeout' : null,
    durationMs: monotonicMs() - started,
    stdout,
    stderr,
  };
  if (ran.error && !timedOut) result.spawnError = ran.error.message;
  if (ran.pid) result.pid = ran.pid;
  return result;
}

/**
 * Starts a process that outlives its caller (the daemon, started by a hook or `hookd daemon start`): a
 * session of its own, no stdio, not waited for. A start error is ignored here; the caller sees no pid.
 */
export function spawnDetached(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): ChildProcess {
  // Loaded on use: the hook needs child_process only when the daemon is down.
  const child = process.getBuiltinModule('node:child_process').spawn(argv[0]!, argv.slice(1), {
    detached: true,
    stdio: 'ignore',
    env: env as NodeJS.ProcessEnv,
  });
  child.on('error', () => {});
  child.unref();
  return child;
}

import { runProcess, type ProcessResult, type SpawnLike } from '../process/run.js';

export type { SpawnLike };

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

/** The script `sh -c` runs: the command, after a umask line when one is asked for. */
export function shellScript(command: string, umask?: number): string {
  if (umask === undefined) return command;
  return `umask ${(umask & 0o777).toString(8).padStart(4, '0')}\n${command}`;
}

/** How a command ended. A failure is a value: nothing here throws. */
export type CommandResult = ProcessResult;

/**
 * Runs one command with `sh -c` in its own process group (src/process/run.ts). On timeout (or when the
 * event budget runs out) the whole group gets SIGTERM, then SIGKILL after the grace period, so no
 * grandchild survives. A background child that keeps the pipes open after the shell exited does not
 * hold hookd: after `pipeGraceMs` the pipes are let go.
 */
export function runCommand(options: RunCommandOptions): Promise<CommandResult> {
  return runProcess({ ...options, command: shellScript(options.command, options.umask) });
}

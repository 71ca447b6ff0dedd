import { AsyncLocalStorage } from 'node:async_hooks';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { colorFor, type Out } from './output.js';

type Env = Record<string, string | undefined>;

/** A stream a command writes to: the process's own, or (in a test) one that collects the text. */
export interface CliStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
  writableLength?: number;
  on?(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
  off?(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
}

/** What a `hookd` command reads and writes: its environment, output streams, stdin and directory. */
export interface CliIo {
  env: Env;
  stdout: CliStream;
  stderr: CliStream;
  stdin?: Readable;
  cwd?: string;
}

/** One run of a command: its IO and the exit code it has set so far. */
export interface CliContext {
  env: Env;
  stdout: CliStream;
  stderr: CliStream;
  stdin: Readable;
  cwd: string;
  exitCode: number | undefined;
}

/**
 * The running command's context. The CLI front (dist/cli.cjs) and the commands it loads lazily
 * (dist/commands.cjs) are separate bundles, each with its own copy of this module: they share one store
 * through the process-wide symbol registry, so an exit code a command sets reaches `main`.
 */
const STORE = Symbol.for('hookd.cli.context');
const shared = globalThis as unknown as Record<symbol, AsyncLocalStorage<CliContext> | undefined>;
const current = (shared[STORE] ??= new AsyncLocalStorage<CliContext>());

/** The process's own IO: what `hookd` on a command line uses. */
export function processIo(): CliIo {
  return {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    cwd: process.cwd(),
  };
}

/** Runs `fn` with `io` as the IO of every command it runs (each run sees only its own). */
export function withCliIo<T>(io: CliIo, fn: (context: CliContext) => Promise<T>): Promise<T> {
  const context: CliContext = {
    env: io.env,
    stdout: io.stdout,
    stderr: io.stderr,
    stdin: io.stdin ?? process.stdin,
    cwd: io.cwd ?? process.cwd(),
    exitCode: undefined,
  };
  return current.run(context, () => fn(context));
}

/** The IO of the command running now (the process's own outside `main`). */
export function cli(): CliContext {
  const context = current.getStore();
  if (context) return context;
  const io = processIo();
  return { ...io, stdin: process.stdin, cwd: process.cwd(), exitCode: undefined };
}

/** The command's stdout for formatted output: colour only on a terminal, per the command's env. */
export function cliOut(env: Env = cli().env): Out {
  const { stdout } = cli();
  const isTTY = Boolean(stdout.isTTY);
  return { write: (text) => void stdout.write(text), isTTY, color: colorFor(isTTY, env) };
}

/**
 * A path named on the command line, made absolute against the command's directory (a relative path
 * names a file where the user ran `hookd`).
 */
export function cliPath(path: string): string {
  return resolve(cli().cwd, path);
}

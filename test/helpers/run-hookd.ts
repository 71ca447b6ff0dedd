import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { HOOKD_BIN } from './fixtures.js';

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  pid: number;
}

/** Runs the built `hookd` as a real child process, like the agent does, and collects its output. */
export function runHookd(
  args: string[],
  options: { env: Record<string, string>; stdin?: string | Buffer; cwd?: string; closeStdin?: boolean },
): Promise<Ran> {
  const child = spawn(process.execPath, [HOOKD_BIN, ...args], {
    env: options.env,
    cwd: options.cwd ?? process.cwd(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return collectRun(child, options);
}

/** Feeds a spawned child its stdin and collects its output and how it ended. */
export function collectRun(
  child: ChildProcessWithoutNullStreams,
  options: { stdin?: string | Buffer; closeStdin?: boolean },
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.stdin.on('error', () => {});
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, pid: child.pid! }));
    if (options.stdin !== undefined) child.stdin.write(options.stdin);
    if (options.closeStdin !== false) child.stdin.end();
  });
}

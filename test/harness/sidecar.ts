import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync } from 'node:fs';

/** A process run beside the agent inside its namespaces (e.g. a hookd daemon), ready once readyFile exists. */
export interface SidecarSpec {
  argv: string[];
  env: Record<string, string>;
  readyFile: string;
}

/** Starts the sidecar (its stderr appended to stderrFile) and waits until it is ready or gone. */
export async function startSidecar(
  spec: SidecarSpec,
  deadline: number,
  stderrFile: string,
): Promise<ChildProcess> {
  const child = spawn(spec.argv[0]!, spec.argv.slice(1), {
    env: spec.env,
    stdio: ['ignore', 'ignore', openSync(stderrFile, 'a')],
  });
  while (!existsSync(spec.readyFile)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('the sidecar did not get ready');
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return child;
}

/** Stops the sidecar with SIGTERM (a daemon then finishes what it holds) and waits until it is gone. */
export async function stopSidecar(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await gone;
}

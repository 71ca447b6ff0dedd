import { DaemonRunningError } from './daemon.js';
import { daemonLogPath } from './logger.js';
import { runDaemonForeground } from './run-foreground.js';

/**
 * `hookd daemon run` as its own entry point: the CLI command calls it, and a daemon-only bundle
 * (dist/daemon.cjs) can call it without loading the rest of the CLI (a smaller idle footprint).
 * Resolves with the exit code once the daemon has stopped.
 */
/** Exit code of `hookd daemon run` when another daemon of the user already runs (not a failure to restart). */
export const EXIT_ALREADY_RUNNING = 10;

export async function daemonMain(env: Record<string, string | undefined> = process.env): Promise<number> {
  try {
    const { handle, done } = await runDaemonForeground(env);
    process.stderr.write(
      `hookd daemon running (pid ${process.pid}) on ${handle.socketPath}; log: ${daemonLogPath(env)}\n`,
    );
    await done;
    return 0;
  } catch (error) {
    if (error instanceof DaemonRunningError) {
      process.stderr.write(
        `hookd: ${error.message}\n  Use \`hookd daemon stop\` first, or \`hookd status\` to see it.\n`,
      );
      return EXIT_ALREADY_RUNNING;
    }
    process.stderr.write(
      `hookd: the daemon failed to start: ${(error as Error).message}\n  See ${daemonLogPath(env)}.\n`,
    );
    return 1;
  }
}

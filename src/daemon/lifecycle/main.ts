import { isAbsolute, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { stateDir } from '../../paths.js';
import { ensurePrivateDir } from '../../util/private-fs.js';
import { DaemonRunningError } from './daemon.js';
import { daemonLogPath } from './logger.js';
import { runDaemonForeground } from './run-foreground.js';

/** Exit code of `hookd daemon run` when another daemon of the user already runs (not a failure to restart). */
export const EXIT_ALREADY_RUNNING = 10;

/** The variables that say where hookd's files are (src/paths.ts). */
const PATH_VARIABLES = [
  'HOOKD_CONFIG',
  'HOOKD_STATE_DIR',
  'HOOKD_DATA_DIR',
  'HOOKD_RUNTIME_DIR',
  'XDG_CONFIG_HOME',
  'XDG_STATE_HOME',
  'XDG_DATA_HOME',
  'XDG_RUNTIME_DIR',
] as const;

/**
 * The daemon owns its surroundings, however it was started (auto-started by a hook in a project,
 * `hookd daemon start`, `hookd daemon run`, a systemd or launchd unit): its working directory becomes its
 * state dir, so it never keeps a repository (or a removed folder, or a mount) as its cwd for life, and
 * nothing it resolves against its cwd leads into a project. A relative path in a variable that says where
 * hookd's files are is made absolute first, against the folder it was started in, so it still names the
 * files the hooks started there use. Where the state dir cannot be used, the daemon moves to `/`.
 */
export function settleWorkingDir(env: Record<string, string | undefined>): void {
  for (const name of PATH_VARIABLES) {
    const value = env[name];
    if (value && !isAbsolute(value)) env[name] = resolve(value);
  }
  try {
    const dir = stateDir(env);
    ensurePrivateDir(dir);
    process.chdir(dir);
  } catch {
    process.chdir('/');
  }
}

/**
 * The daemon's long-lived state (event ids, session states, delivery records) is many small objects that
 * outlive the garbage of each event around them, so V8's old generation ends up as half-empty pages it
 * keeps. Moving the survivors together at each full collection gives those pages back: measured with
 * bench/daemon-rss.mjs, the RSS after 50,000 events stays under 100 MB where it drifted past it, for a
 * few percent more CPU in collections that run rarely (docs/daemon.md, "Its memory"). Set from inside,
 * not on node's command line, so it holds however the daemon was started, and a node that does not know
 * the flag ignores it instead of refusing to start.
 */
function compactOnFullCollections(): void {
  setFlagsFromString('--compact-on-every-full-gc');
}

/**
 * `hookd daemon run` as its own entry point: the CLI command calls it, and a daemon-only bundle
 * (dist/daemon.cjs) can call it without loading the rest of the CLI (a smaller idle footprint).
 * Resolves with the exit code once the daemon has stopped.
 */
export async function daemonMain(env: Record<string, string | undefined> = process.env): Promise<number> {
  try {
    compactOnFullCollections();
    settleWorkingDir(env);
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

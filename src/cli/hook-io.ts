import { hookdLocation } from '../util/hookd-location.js';
import { validator } from '../config/resolve.js';
import { createLineLogger } from '../logging/line-logger.js';
import { logFilePath } from '../paths.js';
import type { ProcessIO } from '../hook-path/process-event.js';
import { handOff } from '../link/client.js';
import { daemonRunArgv } from '../link/daemon-argv.js';
import { cli } from '../terminal/cli-io.js';

/** The hook path's IO for CLI commands (emit, replay): same config, log and daemon as `hookd hook`. */
export function cliProcessIO(options: {
  daemon: boolean;
  env?: Record<string, string | undefined>;
}): ProcessIO {
  const { program: bin, hooks } = hookdLocation();
  const env: Record<string, string | undefined> = {
    HOOKD_HOOKS_DIR: hooks,
    ...(options.env ?? cli().env),
  };
  const debug = env.HOOKD_DEBUG === '1' || env.HOOKD_DEBUG === 'true';
  return {
    env,
    cwd: cli().cwd,
    logger: createLineLogger(
      logFilePath(env),
      debug ? { debugTo: (line) => cli().stderr.write(`hookd: ${line}`) } : {},
    ),
    validator: () => validator,
    handOff: options.daemon ? handOff : undefined,
    daemonArgv: daemonRunArgv(process.execPath, bin),
  };
}

import { homedir } from 'node:os';
import { join } from 'node:path';

/** The environment a path lookup reads; injected so tests can point hookd at temp dirs. */
export type Env = Record<string, string | undefined>;

function home(env: Env): string {
  return env.HOME || homedir();
}

/** Where the user's config file lives: $HOOKD_CONFIG, else $XDG_CONFIG_HOME/hookd/config.json. */
export function userConfigPath(env: Env = process.env): string {
  if (env.HOOKD_CONFIG) return env.HOOKD_CONFIG;
  return join(env.XDG_CONFIG_HOME || join(home(env), '.config'), 'hookd', 'config.json');
}

/** The optional project-level config, inside the agent's project dir. */
export function projectConfigPath(projectDir: string): string {
  return join(projectDir, '.hookd', 'config.json');
}

/** Logs, dead letters, the config cache, the spool: $XDG_STATE_HOME/hookd. */
export function stateDir(env: Env = process.env): string {
  if (env.HOOKD_STATE_DIR) return env.HOOKD_STATE_DIR;
  return join(env.XDG_STATE_HOME || join(home(env), '.local', 'state'), 'hookd');
}

/** The session ledger and other durable data: $XDG_DATA_HOME/hookd. */
export function dataDir(env: Env = process.env): string {
  if (env.HOOKD_DATA_DIR) return env.HOOKD_DATA_DIR;
  return join(env.XDG_DATA_HOME || join(home(env), '.local', 'share'), 'hookd');
}

/** The daemon's private directory (socket, pid, lock): $XDG_RUNTIME_DIR/hookd, else <state>/run. */
export function runtimeDir(env: Env = process.env): string {
  if (env.HOOKD_RUNTIME_DIR) return env.HOOKD_RUNTIME_DIR;
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, 'hookd');
  return join(stateDir(env), 'run');
}

export function logDir(env: Env = process.env): string {
  return join(stateDir(env), 'logs');
}

export function logFilePath(env: Env = process.env): string {
  return join(logDir(env), 'hookd.log');
}

export function deadLetterDir(env: Env = process.env): string {
  return join(stateDir(env), 'dead-letter');
}

export function spoolDir(env: Env = process.env): string {
  return join(stateDir(env), 'spool');
}

export function configCachePath(env: Env = process.env): string {
  return join(stateDir(env), 'config-cache.json');
}

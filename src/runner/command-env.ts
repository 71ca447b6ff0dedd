import type { HookEvent } from '../events/types.js';

type Env = Record<string, string | undefined>;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Expands `${VAR}` and `${VAR:-default}` from env; unknown variables become empty strings. */
export function expandVars(value: string, env: Env): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_m, name: string, fallback?: string) => {
      const found = env[name];
      return found !== undefined && found !== '' ? found : (fallback ?? '');
    },
  );
}

/**
 * The environment a hook command gets, as the agent builds it: the agent's own environment, the project
 * dir variables, every top-level scalar payload field under its own name, then hookd's HOOKD_* variables
 * and the command's configured `env` (values may use ${VAR}).
 */
export function commandEnv(
  event: HookEvent,
  baseEnv: Env,
  extra: { commandName: string; configured?: Record<string, string> | undefined },
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(baseEnv)) if (value !== undefined) env[key] = value;
  const projectDir = event.projectDir ?? event.cwd;
  if (projectDir) {
    env.FACTORY_PROJECT_DIR ??= projectDir;
    env.DROID_PROJECT_DIR ??= projectDir;
    env.CLAUDE_PROJECT_DIR ??= projectDir;
  }
  for (const [key, value] of Object.entries(event.payload)) {
    if (!NAME.test(key)) continue;
    if (typeof value === 'string') env[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') env[key] = String(value);
  }
  env.HOOKD_EVENT = event.name;
  env.HOOKD_EVENT_ID = event.id;
  env.HOOKD_COMMAND_NAME = extra.commandName;
  env.HOOKD_AGENT = event.agent;
  if (event.sessionId) env.HOOKD_SESSION_ID = event.sessionId;
  if (projectDir) env.HOOKD_PROJECT_DIR = projectDir;
  env.HOOKD_DEPTH = String(Number(baseEnv.HOOKD_DEPTH ?? 0) + 1);
  if (extra.configured) {
    for (const [key, value] of Object.entries(extra.configured)) env[key] = expandVars(value, env);
  }
  return env;
}

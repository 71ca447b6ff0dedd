import type { HookEvent } from '../events/types.js';
import { ownValue } from '../util/own.js';

type Env = Record<string, string | undefined>;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Expands `${VAR}` and `${VAR:-default}` from env; unknown variables become empty strings. */
export function expandVars(value: string, env: Env): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_m, name: string, fallback?: string) => {
      const found = ownValue(env, name);
      return found !== undefined && found !== '' ? found : (fallback ?? '');
    },
  );
}

/**
 * What one `execve` takes on Linux: each `NAME=value` string at most MAX_ARG_STRLEN (128 KiB with its
 * NUL), and argv plus the environment together at most a quarter of the stack limit (2 MiB with the
 * usual 8 MiB stack). hookd keeps what it adds under a smaller total so a command always starts.
 */
const MAX_ENV_STRING_BYTES = 128 * 1024;
const ENV_BUDGET_BYTES = 1024 * 1024;

/** The bytes one variable costs in execve: `NAME=value`, its NUL and the pointer to it. */
function entryBytes(key: string, value: string): number {
  return Buffer.byteLength(key) + Buffer.byteLength(value) + 2 + 8;
}

/**
 * Drops payload fields that would make the spawn fail with E2BIG: any one too large for a variable
 * (or holding a NUL byte), then the largest ones until the whole environment and the command fit the
 * budget. Variables the agent itself passed are never dropped. Returns the dropped names, in order.
 */
function fitFields(
  env: Record<string, string>,
  fields: string[],
  baseEnv: Env,
  reserveBytes: number,
): string[] {
  const added = fields.filter((key) => baseEnv[key] !== env[key]);
  const skipped = added.filter(
    (key) => entryBytes(key, env[key]!) - 8 > MAX_ENV_STRING_BYTES || env[key]!.includes('\0'),
  );
  let total = reserveBytes;
  for (const [key, value] of Object.entries(env)) if (!skipped.includes(key)) total += entryBytes(key, value);
  // Largest first; of equal sizes, the later field goes first (the event's leading fields stay).
  const bySize = added
    .filter((key) => !skipped.includes(key))
    .reverse()
    .sort((a, b) => entryBytes(b, env[b]!) - entryBytes(a, env[a]!));
  for (const key of bySize) {
    if (total <= ENV_BUDGET_BYTES) break;
    total -= entryBytes(key, env[key]!);
    skipped.push(key);
  }
  for (const key of skipped) delete env[key];
  return fields.filter((key) => skipped.includes(key));
}

/**
 * The environment a hook command gets, as the agent builds it: the agent's own environment, the project
 * dir variables, every top-level scalar payload field under its own name, then hookd's HOOKD_* variables
 * and the command's configured `env` (values may use ${VAR}). A field that does not fit what the kernel
 * lets a process start with is left out (named in `HOOKD_SKIPPED_FIELDS` and in `extra.skipped`); the
 * command still gets the whole event on stdin.
 */
export function commandEnv(
  event: HookEvent,
  baseEnv: Env,
  extra: {
    commandName: string;
    configured?: Record<string, string> | undefined;
    /** The shell command, counted against the exec budget. */
    command?: string;
    /** Filled with the names of the fields left out. */
    skipped?: string[];
  },
): Record<string, string> {
  // No prototype: payload keys such as `__proto__` or `constructor` are plain variables.
  const env = Object.create(null) as Record<string, string>;
  for (const [key, value] of Object.entries(baseEnv)) if (value !== undefined) env[key] = value;
  const projectDir = event.projectDir ?? event.cwd;
  if (projectDir) {
    env.FACTORY_PROJECT_DIR ??= projectDir;
    env.DROID_PROJECT_DIR ??= projectDir;
    env.CLAUDE_PROJECT_DIR ??= projectDir;
  }
  const fields: string[] = [];
  for (const [key, value] of Object.entries(event.payload)) {
    if (!NAME.test(key)) continue;
    if (typeof value === 'string') env[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') env[key] = String(value);
    else continue;
    fields.push(key);
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
  const own = fields.filter(
    (key) => !(key.startsWith('HOOKD_') || (extra.configured && Object.hasOwn(extra.configured, key))),
  );
  // hookd's own variables copy payload values too (the event name, the session id, the cwd as project
  // dir): they may be dropped like the fields they come from, never the spawn.
  const derived = [
    'FACTORY_PROJECT_DIR',
    'DROID_PROJECT_DIR',
    'CLAUDE_PROJECT_DIR',
    'HOOKD_EVENT',
    'HOOKD_SESSION_ID',
    'HOOKD_PROJECT_DIR',
  ].filter((key) => env[key] !== undefined && !own.includes(key));
  const reserve = entryBytes('/bin/sh', '') + entryBytes('-c', '') + entryBytes(extra.command ?? '', '') + 64;
  const skipped = fitFields(env, [...own, ...derived], baseEnv, reserve);
  if (skipped.length > 0) {
    env.HOOKD_SKIPPED_FIELDS = skipped.join(',');
    extra.skipped?.push(...skipped);
  }
  return env;
}

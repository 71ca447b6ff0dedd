import { ownValue } from '../util/own.js';
/**
 * `${VAR}` and `${VAR:-default}` in config strings, resolved from an environment at the moment a value is
 * used (so secrets stay out of files and out of the validated, cached config). `$${` escapes a literal `${`.
 */
export interface Interpolated<T> {
  value: T;
  /** Variables that were referenced without a default and are unset or empty. */
  missing: string[];
}

const PATTERN = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

function interpolateString(
  text: string,
  env: Record<string, string | undefined>,
  missing: Set<string>,
): string {
  return text.replace(PATTERN, (match, name: string | undefined, fallback: string | undefined) => {
    if (match === '$${') return '${';
    const value = ownValue(env, name!);
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    missing.add(name!);
    return '';
  });
}

function walk(value: unknown, env: Record<string, string | undefined>, missing: Set<string>): unknown {
  if (typeof value === 'string') return interpolateString(value, env, missing);
  if (Array.isArray(value)) return value.map((item) => walk(item, env, missing));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = walk(item, env, missing);
    return out;
  }
  return value;
}

/** Resolves every string inside `value` (deeply); reports each missing variable once, in order of use. */
export function interpolateEnv<T>(value: T, env: Record<string, string | undefined>): Interpolated<T> {
  const missing = new Set<string>();
  const out = walk(value, env, missing) as T;
  return { value: out, missing: [...missing] };
}

/**
 * A command string for `sh -c` with hookd's `${VAR}` syntax left for the shell to expand from the
 * command's environment, never pasted in as shell text: a value such as `x; touch pwned` stays one
 * value. `${VAR}` and `${VAR:-default}` mean the same in sh; hookd's `$${` escape (a literal `${`)
 * becomes `\${`. Quote a reference (`"out-${TAG}.json"`) where a value may hold spaces. Reports the
 * variables that are unset, like interpolateEnv.
 */
export function shellTextWithEnv(
  text: string,
  env: Record<string, string | undefined>,
): Interpolated<string> {
  const { missing } = interpolateEnv(text, env);
  return { value: text.replace(PATTERN, (match) => (match === '$${' ? '\\${' : match)), missing };
}

/** True when an argv runs its third element as shell text (`sh -c '...'`, `bash -c`...). */
export function isShellArgv(argv: readonly string[]): boolean {
  return argv.length >= 3 && /(^|\/)(ba|da|z|k)?sh$/.test(argv[0]!) && argv[1] === '-c';
}

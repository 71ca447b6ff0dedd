import { interpolateEnv } from '../../../config/interpolate.js';
import type { Env } from '../../../paths.js';

export interface MissingVariable {
  name: string;
  /** Where it is used, e.g. `notify.channels.team.webhookUrl`. */
  field: string;
}

/** Every `${VAR}` (without a default) that is unset or empty in `env`, with the field that uses it. */
export function missingVariables(value: unknown, env: Env, field: string): MissingVariable[] {
  if (typeof value === 'string') return interpolateEnv(value, env).missing.map((name) => ({ name, field }));
  if (Array.isArray(value)) return value.flatMap((item, i) => missingVariables(item, env, `${field}[${i}]`));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => missingVariables(item, env, `${field}.${key}`));
  return [];
}

/**
 * Merging of config levels, the way the agent merges its settings levels: hooks from every level run
 * (user first, then project), `notify.rules` add up, and for everything else the project level wins.
 */
type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function deepMerge(base: Json, over: Json, path: string): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const here = path ? `${path}.${key}` : key;
    const prev = out[key];
    if (here === 'notify.rules' && Array.isArray(prev) && Array.isArray(value))
      out[key] = [...prev, ...value];
    else if (isObject(prev) && isObject(value)) out[key] = deepMerge(prev, value, here);
    else out[key] = value;
  }
  return out;
}

export interface LevelInput {
  file: string;
  raw: Json;
}

export interface MergedRaw {
  raw: Json;
  /** For each event, the file each hook entry came from, in the merged order. */
  entryOrigins: Record<string, string[]>;
}

export function mergeLevels(levels: readonly LevelInput[]): MergedRaw {
  let raw: Json = {};
  const hooks: Record<string, unknown[]> = {};
  const entryOrigins: Record<string, string[]> = {};
  for (const level of levels) {
    const { hooks: levelHooks, ...rest } = level.raw;
    raw = deepMerge(raw, rest, '');
    if (isObject(levelHooks)) {
      for (const [event, entries] of Object.entries(levelHooks)) {
        if (!Array.isArray(entries)) continue;
        (hooks[event] ??= []).push(...entries);
        (entryOrigins[event] ??= []).push(...entries.map(() => level.file));
      }
    }
  }
  return { raw: { ...raw, hooks }, entryOrigins };
}

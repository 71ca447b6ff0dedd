/** Narrowing helpers for leniently parsed JSON (agent files, payloads): wrong types read as absent. */

export type Json = Record<string, unknown>;

/** A plain JSON object (not an array, not null). */
export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A non-empty string, else undefined. */
export const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value ? value : undefined;

/** A finite number, else undefined. */
export const finite = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/** A finite number above zero, else undefined. */
export const positive = (value: unknown): number | undefined => {
  const n = finite(value);
  return n !== undefined && n > 0 ? n : undefined;
};

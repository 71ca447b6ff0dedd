import type { HookPayload } from '../events/types.js';

/**
 * The hand-off to the daemon is one JSON line (src/link/client.ts), and the daemon keeps it in its
 * journal: hookd's copy of a large event (a Write of a large file) is bounded there. Strings longer
 * than HANDOFF_STRING_MAX are cut with a marker; if the payload is still over HANDOFF_MAX_BYTES, its
 * strings are cut shorter, then its largest top-level values replaced by a marker. The event is never
 * dropped, and its commands always get the whole bytes on stdin.
 */
export const HANDOFF_STRING_MAX = 64 * 1024;
export const HANDOFF_MAX_BYTES = 4 * 1024 * 1024;
/** The second pass, when many cut strings still add up. */
const SHORT_STRING_MAX = 1024;
/** Under this, a payload is handed off as it is (not even walked). */
const SMALL_BYTES = 256 * 1024;

/** A string cut to `max` characters (never inside a surrogate pair), saying how long it was. */
function cutText(value: string, max: number): string {
  if (value.length <= max) return value;
  const end = /[\uD800-\uDBFF]/.test(value[max - 1] ?? '') ? max - 1 : max;
  return `${value.slice(0, end)}… (${value.length} characters, cut)`;
}

/** A copy with every string cut to `max` characters (the payload is clamped in depth: recursion is safe). */
function cutStrings(value: unknown, max: number): unknown {
  if (typeof value === 'string') return cutText(value, max);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => cutStrings(item, max));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // `__proto__` stays an own key, as JSON.parse made it.
    Object.defineProperty(out, key, {
      value: cutStrings(item, max),
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return out;
}

const sizeOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '');

/**
 * True when the payload is handed off as it is, unwalked: nearly every event. The hook checks this first
 * and loads `boundedPayload` (from its rare chunk, src/hook-path/rare.ts) only for a payload that is not.
 */
export function fitsAsIs(payload: HookPayload): boolean {
  return sizeOf(payload) <= SMALL_BYTES;
}

/** The payload as the hand-off carries it: itself when small, else a bounded copy. */
export function boundedPayload(payload: HookPayload): HookPayload {
  if (fitsAsIs(payload)) return payload;
  let copy = cutStrings(payload, HANDOFF_STRING_MAX) as HookPayload;
  if (sizeOf(copy) <= HANDOFF_MAX_BYTES) return copy;
  copy = cutStrings(payload, SHORT_STRING_MAX) as HookPayload;
  let size = sizeOf(copy);
  const largest = Object.keys(copy)
    .map((key) => ({ key, size: sizeOf(copy[key]) }))
    .sort((a, b) => b.size - a.size);
  for (const { key, size: bytes } of largest) {
    if (size <= HANDOFF_MAX_BYTES) break;
    const marker = `[left out of hookd's copy: ${bytes} bytes]`;
    Object.defineProperty(copy, key, { value: marker, writable: true, enumerable: true, configurable: true });
    size -= bytes - sizeOf(marker);
  }
  return copy;
}

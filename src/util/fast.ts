/**
 * Small helpers for the hook's start-up path, where loading `node:crypto` or `perf_hooks` costs more
 * than the work itself.
 */

/** Milliseconds from a monotonic clock (no perf_hooks load). */
export function monotonicMs(): number {
  const [s, ns] = process.hrtime();
  return s * 1000 + ns / 1e6;
}

const HEX = '0123456789abcdef';

/**
 * A random RFC 4122 version-4 shaped id from Math.random, mixed with the time and pid. Event ids only
 * need to be unique, not unguessable, and this avoids loading node:crypto on every event.
 */
export function newEventId(): string {
  const seed = `${Date.now().toString(16)}${process.pid.toString(16)}`;
  let out = '';
  for (let i = 0; i < 32; i++) {
    let nibble = Math.floor(Math.random() * 16);
    if (i < seed.length) nibble ^= HEX.indexOf(seed[seed.length - 1 - i]!);
    if (i === 12) nibble = 4;
    if (i === 16) nibble = (nibble & 0x3) | 0x8;
    out += HEX[nibble & 0xf];
    if (i === 7 || i === 11 || i === 15 || i === 19) out += '-';
  }
  return out;
}

/** FNV-1a 32-bit hash as 8 hex digits, for cache file names. */
export function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/**
 * FNV-1a 32-bit hash as 8 hex digits, for cache file names: cheap on the hook's start-up path, where
 * loading `node:crypto` costs more than the work itself. Not for anything an attacker may choose to collide.
 */
export function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, writePrivateFileAtomic } from '../util/private-fs.js';

/** Total bytes the dead-letter folder may hold by default (env HOOKD_DEAD_LETTER_MAX_BYTES). */
export const DEAD_LETTER_MAX_BYTES = 32 * 1024 * 1024;

export interface DeadLetterLimits {
  /** At most this many inputs (settings.deadLetterMax). */
  maxFiles: number;
  /** At most this many bytes in all (an input alone larger than this keeps only its first bytes). */
  maxBytes: number;
}

/**
 * Keeps a rejected input for inspection in a bounded folder: at most `maxFiles` inputs and `maxBytes`
 * in all, oldest removed first. Names sort by time. Returns the file written, or undefined when
 * keeping is disabled or failed.
 */
export function keepDeadLetter(
  dir: string,
  input: Buffer,
  meta: { reason: string; detail: string; now: number; pid: number },
  limits: DeadLetterLimits,
): string | undefined {
  if (limits.maxFiles <= 0 || limits.maxBytes <= 0) return undefined;
  // Leave room for the small .json beside it.
  const bytes = input.subarray(0, Math.max(0, limits.maxBytes - 1024));
  try {
    ensurePrivateDir(dir);
    const stamp = new Date(meta.now).toISOString().replace(/[:.]/g, '-');
    const base = `${stamp}-${meta.pid}-${meta.reason}`;
    const file = join(dir, `${base}.bin`);
    writePrivateFileAtomic(file, bytes, { ensureDir: false });
    writePrivateFileAtomic(
      join(dir, `${base}.json`),
      `${JSON.stringify({ ...meta, bytes: bytes.length })}\n`,
      {
        ensureDir: false,
      },
    );
    const entries = readdirSync(dir)
      .filter((name) => name.endsWith('.bin'))
      .sort()
      .map((name) => ({
        name,
        size: sizeOf(join(dir, name)) + sizeOf(join(dir, name.replace(/\.bin$/, '.json'))),
      }));
    let total = entries.reduce((sum, e) => sum + e.size, 0);
    let count = entries.length;
    for (const old of entries) {
      if (count <= limits.maxFiles && total <= limits.maxBytes) break;
      if (old.name === `${base}.bin`) break; // never the one just kept
      for (const name of [old.name, old.name.replace(/\.bin$/, '.json')]) {
        try {
          unlinkSync(join(dir, name));
        } catch {}
      }
      total -= old.size;
      count--;
    }
    return file;
  } catch {
    return undefined;
  }
}

function sizeOf(file: string): number {
  try {
    return lstatSync(file).size;
  } catch {
    return 0;
  }
}

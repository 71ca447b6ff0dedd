import { mkdirSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Keeps a rejected input for inspection in a bounded folder: at most `max` files, oldest removed first.
 * Names sort by time. Returns the file written, or undefined when keeping is disabled or failed.
 */
export function keepDeadLetter(
  dir: string,
  bytes: Buffer,
  meta: { reason: string; detail: string; now: number; pid: number },
  max: number,
): string | undefined {
  if (max <= 0) return undefined;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stamp = new Date(meta.now).toISOString().replace(/[:.]/g, '-');
    const base = `${stamp}-${meta.pid}-${meta.reason}`;
    const file = join(dir, `${base}.bin`);
    writeFileSync(file, bytes, { mode: 0o600 });
    writeFileSync(join(dir, `${base}.json`), `${JSON.stringify({ ...meta, bytes: bytes.length })}\n`, {
      mode: 0o600,
    });
    const entries = readdirSync(dir)
      .filter((name) => name.endsWith('.bin'))
      .sort();
    for (const old of entries.slice(0, Math.max(0, entries.length - max))) {
      for (const name of [old, old.replace(/\.bin$/, '.json')]) {
        try {
          unlinkSync(join(dir, name));
        } catch {}
      }
    }
    return file;
  } catch {
    return undefined;
  }
}

import { existsSync, readFileSync } from 'node:fs';
import { becomes } from './wait.js';

/** True when the process exists and is not a zombie (reading /proc, so a reaped or dead pid is false). */
export function isAlive(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    const text = readFileSync(stat, 'utf8');
    const state = text.slice(text.lastIndexOf(')') + 2, text.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Kills a pid (and its group when it leads one) with SIGKILL, ignoring ones already gone. */
export function killHard(pid: number | undefined): void {
  if (!pid) return;
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {}
  }
}

export function readPid(file: string): number | undefined {
  try {
    const n = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/** True once `check` holds, false if it still does not after about `attempts` x `everyMs` ms. */
export async function waitFor(check: () => boolean, attempts = 200, everyMs = 25): Promise<boolean> {
  return becomes(check, attempts * everyMs);
}

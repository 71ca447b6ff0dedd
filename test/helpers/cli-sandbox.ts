import { afterEach, beforeEach } from 'vitest';
import { killHard } from './procs.js';
import { isolatedEnv, makeTempDir } from './temp.js';

/**
 * A fresh isolated hookd environment for each test of the built CLI (no colour), and the pids the test
 * started, killed after it (each by its pid) before its temp dir is removed.
 */
export function useCliSandbox(extra: Record<string, string> = {}): {
  dir: string;
  env: Record<string, string>;
  pids: number[];
} {
  const state = { dir: '', env: {} as Record<string, string>, pids: [] as number[] };
  let cleanup = () => {};
  beforeEach(() => {
    const tmp = makeTempDir();
    cleanup = tmp.cleanup;
    state.dir = tmp.dir;
    state.env = isolatedEnv(tmp.dir, { NO_COLOR: '1', ...extra });
  });
  afterEach(() => {
    for (const pid of state.pids.splice(0)) killHard(pid);
    cleanup();
  });
  return state;
}

import { afterEach } from 'vitest';
import { makeTempDir } from '../../helpers/temp.js';

/** The recorded session's ids (demo-session/): the main session and its sub-agent. */
export const MAIN = '48e23316-6280-4a11-966d-13493854823f';
export const SUB = '9414a522-3430-47b5-9f03-3dfadc677129';

/** A `temp()` that makes a temp dir removed after each test of the calling file. */
export function useTempDirs(prefix = 'hkd-'): () => string {
  let cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups) cleanup();
    cleanups = [];
  });
  return () => {
    const t = makeTempDir(prefix);
    cleanups.push(t.cleanup);
    return t.dir;
  };
}

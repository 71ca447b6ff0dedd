import { chmodSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { daemonFiles, SPOOL_WATCH_FRESH_MS, spoolWatched } from '../../../src/link/runtime-files.js';
import { useTempDir } from '../../helpers/temp.js';

// Whether a hook may leave its event in the spool for a running daemon: only when the daemon's
// spool-watch file is fresh, a regular file of this user's in a private folder, never through a link.

const temp = useTempDir('hkd-sw-');

/** The spool-watch file of a home of its own under the temp dir, its state folder private. */
function watchFile(home: string): string {
  const state = join(temp.dir, home, 'state');
  mkdirSync(join(state, 'daemon'), { recursive: true, mode: 0o700 });
  return daemonFiles({ HOOKD_STATE_DIR: state, HOOKD_RUNTIME_DIR: join(temp.dir, home, 'run') }).spoolWatch;
}

describe('spoolWatched', () => {
  it('says yes for a fresh file only: a daemon that stopped touching it is not trusted for long', () => {
    const file = watchFile('a');
    expect(spoolWatched(file)).toBe(false);
    writeFileSync(file, `${process.pid}\n`, { mode: 0o600 });
    const at = Date.now();
    utimesSync(file, at / 1000, at / 1000);
    expect(spoolWatched(file, at)).toBe(true);
    expect(spoolWatched(file, at + SPOOL_WATCH_FRESH_MS - 1)).toBe(true);
    expect(spoolWatched(file, at + SPOOL_WATCH_FRESH_MS + 1)).toBe(false);
    // A clock set back far: a file "from the future" is not trusted either.
    expect(spoolWatched(file, at - SPOOL_WATCH_FRESH_MS - 1)).toBe(false);
  });

  it('says no for a link, a folder others can write to, or a folder in place of the file', () => {
    const linked = watchFile('linked');
    const elsewhere = join(temp.dir, 'elsewhere');
    writeFileSync(elsewhere, 'x');
    symlinkSync(elsewhere, linked);
    expect(spoolWatched(linked)).toBe(false);

    const open = watchFile('open');
    chmodSync(join(temp.dir, 'open', 'state', 'daemon'), 0o777);
    writeFileSync(open, 'x', { mode: 0o600 });
    expect(spoolWatched(open)).toBe(false);

    const dir = watchFile('dir');
    mkdirSync(dir);
    expect(spoolWatched(dir)).toBe(false);
  });
});

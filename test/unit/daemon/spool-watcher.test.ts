import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { daemonFiles, processStart, spoolWatchText, spoolWatcher } from '../../../src/link/runtime-files.js';
import { useTempDir } from '../../helpers/temp.js';

// Which daemon a hook may leave its event to in the spool: only a live one that wrote the spool-watch
// file itself, read from a private folder, never through a link.

const temp = useTempDir('hkd-sw-');
const linux = process.platform === 'linux';

/** The daemon files of a home of its own under the temp dir, its state folder private. */
function files(home = 'a') {
  const state = join(temp.dir, home, 'state');
  mkdirSync(join(state, 'daemon'), { recursive: true, mode: 0o700 });
  return daemonFiles({ HOOKD_STATE_DIR: state, HOOKD_RUNTIME_DIR: join(temp.dir, home, 'run') });
}

const mine = () => spoolWatchText(process.pid, processStart('self'));

/** A process that is surely gone: started, waited for. */
function deadPid(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', '0']);
    child.on('exit', () => resolve(child.pid!));
  });
}

describe('spoolWatcher', () => {
  it('names this process when its file says so', () => {
    const f = files();
    expect(spoolWatcher(f)).toBeUndefined();
    writeFileSync(f.spoolWatch, mine(), { mode: 0o600 });
    expect(spoolWatcher(f)).toBe(process.pid);
  });

  it('refuses a process that is gone, and on Linux one whose start time differs (a reused pid)', async () => {
    const f = files();
    writeFileSync(f.spoolWatch, spoolWatchText(await deadPid(), '1'), { mode: 0o600 });
    expect(spoolWatcher(f)).toBeUndefined();
    if (linux) {
      writeFileSync(f.spoolWatch, `${process.pid} 1\n`, { mode: 0o600 });
      expect(spoolWatcher(f)).toBeUndefined();
    }
  });

  it('refuses a link, a folder others can write to, and text that is not a live pid', () => {
    const linked = files('linked');
    const elsewhere = join(temp.dir, 'elsewhere');
    writeFileSync(elsewhere, mine());
    symlinkSync(elsewhere, linked.spoolWatch);
    expect(spoolWatcher(linked)).toBeUndefined();

    const open = files('open');
    chmodSync(join(temp.dir, 'open', 'state', 'daemon'), 0o777);
    writeFileSync(open.spoolWatch, mine(), { mode: 0o600 });
    expect(spoolWatcher(open)).toBeUndefined();

    const bad = files('bad');
    for (const text of ['', 'abc -\n', '-1 -\n', '0 -\n', `${process.pid} -`.padEnd(80, ' ')]) {
      writeFileSync(bad.spoolWatch, text, { mode: 0o600 });
      expect(spoolWatcher(bad), JSON.stringify(text)).toBeUndefined();
    }
  });
});

import { existsSync, lstatSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { watchSpool } from '../../../src/daemon/listen/spool-watch.js';
import { spoolWatched } from '../../../src/link/runtime-files.js';
import { useTempDir } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// The daemon's side of the watched spool: a change in the folder asks for a drain, the spool-watch file
// is written once the watch is up and kept fresh, and removed at the stop.

const temp = useTempDir('hkd-swd-');
const silent = pino({ level: 'silent' });

function setup() {
  const dir = join(temp.dir, 'spool');
  const marker = join(temp.dir, 'daemon', 'spool-watch');
  mkdirSync(join(temp.dir, 'daemon'), { mode: 0o700 });
  let changes = 0;
  const stop = watchSpool({ dir, marker, onChange: () => changes++, logger: silent, touchMs: 20 });
  return { dir, marker, stop, changes: () => changes };
}

describe('watchSpool', () => {
  it('creates the spool folder private, asks for a drain at each new file, keeps its file fresh', async () => {
    const t = setup();
    try {
      expect(lstatSync(t.dir).mode & 0o777).toBe(0o700);
      expect(readFileSync(t.marker, 'utf8')).toBe(`${process.pid}\n`);
      expect(spoolWatched(t.marker)).toBe(true);
      writeFileSync(join(t.dir, '1-a.json'), '{}');
      await waitFor(() => t.changes() > 0, 5000, 'a change reported');
      // Made old from outside: the next touch makes it fresh again.
      const old = (Date.now() - 3_600_000) / 1000;
      utimesSync(t.marker, old, old);
      expect(spoolWatched(t.marker)).toBe(false);
      await waitFor(() => spoolWatched(t.marker), 5000, 'the file touched again');
    } finally {
      t.stop();
    }
    expect(existsSync(t.marker)).toBe(false);
  });
});

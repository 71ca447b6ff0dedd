import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../helpers/temp.js';

// bin/hookd-client.bash is what agent settings written by older versions run: it only hands the event to
// the Node path, with the same arguments and stdin, under the node the settings named (HOOKD_NODE).
const CLIENT = resolve(import.meta.dirname, '../../../bin/hookd-client.bash');

let tmp: ReturnType<typeof makeTempDir>;
beforeEach(() => (tmp = makeTempDir('hkcs-')));
afterEach(() => tmp.cleanup());

describe('bin/hookd-client.bash, the retired bash client', () => {
  it('parses (bash -n)', () => {
    const r = spawnSync('/bin/bash', ['-n', CLIENT], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('runs the Node path with its arguments and stdin, as the old settings invoke it', () => {
    // A stand-in node that records what it was given.
    const node = join(tmp.dir, 'node');
    writeFileSync(
      node,
      `#!/bin/sh\nprintf '%s\\n' "$@" > '${tmp.dir}/argv'\ncat > '${tmp.dir}/stdin'\nexit 7\n`,
      {
        mode: 0o755,
      },
    );
    const r = spawnSync('/bin/bash', ['--posix', CLIENT, '--agent', 'droid'], {
      env: { PATH: '/usr/bin:/bin', HOOKD_NODE: node, SHELLOPTS: 'xtrace' },
      input: '{"hook_event_name":"Stop"}',
      encoding: 'utf8',
    });
    expect(r.status).toBe(7);
    expect(r.stderr).toBe('');
    expect(readFileSync(join(tmp.dir, 'argv'), 'utf8').split('\n').slice(1, -1)).toEqual([
      'hook',
      '--agent',
      'droid',
    ]);
    expect(readFileSync(join(tmp.dir, 'argv'), 'utf8').split('\n')[0]).toBe(
      `${resolve(CLIENT, '..')}/../dist/hookd.cjs`,
    );
    expect(readFileSync(join(tmp.dir, 'stdin'), 'utf8')).toBe('{"hook_event_name":"Stop"}');
  });
});

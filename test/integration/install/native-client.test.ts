import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAST_CLIENT_VERSIONS, FAST_PROTOCOL } from '../../../src/link/wire.js';
import { chooseNativeClient } from '../../../src/install/native-client.js';
import { REPO_DIR } from '../../helpers/fixtures.js';
import { useTempDir } from '../../helpers/temp.js';

// Which native client install wires, among the places a hookd's client may be: each probed with
// --hookd-client-version, the first that answers with a version the daemon serves wins.

const RANGE = { protocol: FAST_PROTOCOL, ...FAST_CLIENT_VERSIONS };
const BUILT = join(REPO_DIR, 'dist', 'hookd-client');
const tmp = useTempDir();

function place(path: string, from: string | { script: string }): string {
  mkdirSync(dirname(path), { recursive: true });
  if (typeof from === 'string') copyFileSync(from, path);
  else writeFileSync(path, from.script);
  chmodSync(path, 0o755);
  return path;
}

/** A global install: <prefix>/lib/node_modules/@hookd-dev/hookd, its program and its folder. */
function installed(): { program: string; scope: string } {
  const scope = join(tmp.dir, 'lib', 'node_modules', '@hookd-dev');
  const program = join(scope, 'hookd', 'dist', 'hookd.cjs');
  place(program, { script: '' });
  return { program, scope };
}

describe('chooseNativeClient', () => {
  it("takes the platform package's client beside hookd when dist/ has none", () => {
    const { program, scope } = installed();
    const client = place(join(scope, 'hookd-linux-x64', 'bin', 'hookd-client'), BUILT);
    expect(chooseNativeClient(program, RANGE, {}, 'linux', 'x64')).toEqual({ path: client });
  });

  it('passes over a client that speaks another version, to one that answers', () => {
    const { program, scope } = installed();
    place(join(scope, 'hookd', 'dist', 'hookd-client'), {
      script: '#!/bin/sh\necho "hookd-client 1 protocol 2"\n',
    });
    const client = place(
      join(scope, 'hookd', 'node_modules', '@hookd-dev', 'hookd-linux-x64', 'bin', 'hookd-client'),
      BUILT,
    );
    expect(chooseNativeClient(program, RANGE, {}, 'linux', 'x64')).toEqual({ path: client });
  });

  it('when none answers, says why the first one there does not', () => {
    const { program, scope } = installed();
    const stale = place(join(scope, 'hookd-linux-x64', 'bin', 'hookd-client'), {
      script: '#!/bin/sh\necho "hookd-client 1 protocol 2"\n',
    });
    const chosen = chooseNativeClient(program, RANGE, {}, 'linux', 'x64');
    expect(chosen.path).toBe(stale);
    expect(chosen.problem?.text).toMatch(/is client 1 protocol 2/);
  });

  it('when there is none, says where it looked', () => {
    const { program, scope } = installed();
    const chosen = chooseNativeClient(program, RANGE, {}, 'linux', 'x64');
    expect(chosen.problem?.text).toBe(
      `${join(scope, 'hookd', 'dist', 'hookd-client')} is missing (in a clone, \`npm run build\` compiles it where a C compiler is), and there is no @hookd-dev/hookd-linux-x64 package (${join(scope, 'hookd', 'node_modules', '@hookd-dev', 'hookd-linux-x64', 'bin', 'hookd-client')} or ${join(scope, 'hookd-linux-x64', 'bin', 'hookd-client')})`,
    );
  });

  it('HOOKD_NATIVE_DIR is the only place looked at when set', () => {
    const { program, scope } = installed();
    place(join(scope, 'hookd-linux-x64', 'bin', 'hookd-client'), BUILT);
    const env = { HOOKD_NATIVE_DIR: join(tmp.dir, 'mine') };
    expect(chooseNativeClient(program, RANGE, env, 'linux', 'x64').problem?.text).toBe(
      `$HOOKD_NATIVE_DIR has no hookd-client (${join(tmp.dir, 'mine', 'hookd-client')})`,
    );
    const mine = place(join(tmp.dir, 'mine', 'hookd-client'), BUILT);
    expect(chooseNativeClient(program, RANGE, env, 'linux', 'x64')).toEqual({ path: mine });
  });

  it('never wires a client that others can write to', () => {
    const { program, scope } = installed();
    const open = place(join(scope, 'hookd-linux-x64', 'bin', 'hookd-client'), BUILT);
    chmodSync(open, 0o777);
    expect(chooseNativeClient(program, RANGE, {}, 'linux', 'x64').problem?.text).toBe(
      `${open} is writable by others (mode 777)`,
    );
  });
});

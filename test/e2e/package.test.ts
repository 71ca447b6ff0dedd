import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestDaemon } from '../../src/link/client.js';
import { fastClientOf, splitShellWords } from '../../src/install/hookd-command.js';
import { realPath } from '../../src/util/hookd-location.js';
import { describeBinary, platformBinaryProblem } from '../../scripts/binary-format.mjs';
import { agentPayload, runAsAgent } from '../helpers/agent-spawn.js';
import { REPO_DIR } from '../helpers/fixtures.js';
import { killHard } from '../helpers/procs.js';
import { collectRun, type Ran } from '../helpers/run-hookd.js';
import { registryEnv } from '../harness/registry-env.js';
import { jsonLines } from '../helpers/json-lines.js';
import { isolatedEnv, makeTempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

// hookd as users get it, from the packed tarballs: `npm run package` (scripts/package.mjs) packs the main
// package and one package per platform; a global install of the main and the linux-x64 tarballs into a
// fresh prefix, and `npm link`, each wire the native client, and the README's guard blocks `rm -rf /`
// through a daemon started by `hookd daemon start` and by the service unit's ExecStart, run as written.
// npm never gets one of our packages from the registry: the scope's registry is a local server that
// answers 404 and records what was asked.

const PLATFORMS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64'] as const;
const MAIN = JSON.parse(readFileSync(join(REPO_DIR, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
};
const SCOPE = MAIN.name.split('/')[0]!;

let tmp: ReturnType<typeof makeTempDir>;
/** The tarball of each package: `main`, or a platform. */
const tarballs: Record<string, string> = {};
/** Each tarball unpacked: <dir>/package. */
const unpacked: Record<string, string> = {};
const started = new Set<number>();
let registry: Server;
/** The name a stranger takes in the test's registry, and their package (a client that passes the probe). */
const SQUATTED = `${SCOPE}/hookd-linux-x64`;
const SQUATTER = { name: SQUATTED, version: MAIN.version, os: ['linux'], cpu: ['x64'] };
let squatting = false;
let squatted: { bytes: Buffer; integrity: string };

function squatterTarball(dir: string): { bytes: Buffer; integrity: string } {
  mkdirSync(join(dir, 'bin'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...SQUATTER, files: ['bin'] }));
  for (const program of ['hookd-client', 'hookd-spawner'])
    writeFileSync(join(dir, 'bin', program), '#!/bin/sh\necho "hookd-client 3 protocol 3"\n', {
      mode: 0o755,
    });
  const packed = spawnSync('npm', ['pack', dir, '--pack-destination', dir, '--silent'], { encoding: 'utf8' });
  expect(packed.status, packed.stderr).toBe(0);
  const bytes = readFileSync(join(dir, packed.stdout.trim().split('\n').pop()!));
  return { bytes, integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}` };
}
const asked: string[] = [];
let registryUrl = '';

/** npm, as a child of its own: the test's registry server must keep answering while it runs. */
async function npm(args: string[], options: { cwd: string; env?: Record<string, string | undefined> }) {
  const child = spawn('npm', args, {
    cwd: options.cwd,
    // The registry's certificate authority: the main package's dependencies come from the registry.
    env: { ...registryEnv(), ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  started.add(child.pid!);
  return collectRun(child, {});
}

// The platform packages are built on Linux x64 (scripts/build-platforms.mjs); elsewhere this file says
// so in one skipped test, as the agents' tests do where their binaries cannot run.
const HERE = `${process.platform}-${process.arch}`;
const BUILDS_HERE = HERE === 'linux-x64';
if (!BUILDS_HERE) it.skip(`packages NOT RUN: they are built on Linux x64 (this is ${HERE})`, () => {});

beforeAll(async () => {
  if (!BUILDS_HERE) return;
  tmp = makeTempDir('hkpk-');
  const out = join(tmp.dir, 'packs');
  // With the registry's certificate authority: the first build fetches Zig from the registry.
  const packed = spawnSync(process.execPath, ['scripts/package.mjs', '--out', out], {
    cwd: REPO_DIR,
    env: registryEnv(),
    encoding: 'utf8',
    timeout: 280_000,
  });
  expect(packed.status, packed.stderr).toBe(0);
  for (const name of readdirSync(out).filter((n) => n.endsWith('.tgz'))) {
    const platform = PLATFORMS.find((p) => name.includes(`-${p}-`));
    const key = platform ?? 'main';
    tarballs[key] = join(out, name);
    unpacked[key] = join(tmp.dir, 'unpacked', key);
    mkdirSync(unpacked[key], { recursive: true });
    expect(spawnSync('tar', ['-xzf', tarballs[key], '-C', unpacked[key]]).status).toBe(0);
    unpacked[key] = join(unpacked[key], 'package');
  }
  squatted = squatterTarball(join(tmp.dir, 'squatter'));
  // The scope's registry: nothing of ours is ever served, every request is kept. While `squatting`, it
  // serves a stranger's package under the linux-x64 package's name, as anyone could publish today.
  registry = createServer((req, res) => {
    const url = decodeURIComponent(req.url ?? '');
    asked.push(`${req.method} ${url}`);
    const base = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
    if (squatting && url === `/${SQUATTED}`) {
      const version = {
        ...SQUATTER,
        dist: { tarball: `${base}/squatted.tgz`, integrity: squatted.integrity },
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          name: SQUATTED,
          'dist-tags': { latest: MAIN.version },
          versions: { [MAIN.version]: version },
        }),
      );
    } else if (squatting && url === '/squatted.tgz') res.writeHead(200).end(squatted.bytes);
    else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
  });
  registry.listen(0, '127.0.0.1');
  await once(registry, 'listening');
  registryUrl = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/`;
}, 300_000);

afterAll(async () => {
  for (const pid of started) killHard(pid);
  registry?.close();
  tmp?.cleanup();
});

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** The first bytes of a file: ELF or Mach-O, or neither. */
function isProgram(file: string): boolean {
  const head = readFileSync(file).subarray(0, 4);
  return head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46])) || head.readUInt32LE(0) === 0xfeedfacf;
}

describe.runIf(BUILDS_HERE)('npm run package: every package, packed', () => {
  it('one command packs the main package and one package per platform', () => {
    const scripts = (
      JSON.parse(readFileSync(join(REPO_DIR, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts.package).toBe('npm run build && node scripts/package.mjs');
    expect(Object.keys(tarballs).sort()).toEqual(['main', ...PLATFORMS].sort());
  });

  it('the main tarball: LICENSE, CHANGELOG, docs/ and the bundles; no program built here, no path of this machine', () => {
    const files = filesUnder(unpacked.main!);
    for (const file of [
      'LICENSE',
      'README.md',
      'CHANGELOG.md',
      'package.json',
      'dist/hookd.cjs',
      'hooks/guard-execute.mjs',
      'demo-session/events/01-SessionStart-startup.json',
    ])
      expect(files).toContain(file);
    const docs = filesUnder(join(REPO_DIR, 'docs')).map((d) => `docs/${d}`);
    expect(files.filter((f) => f.startsWith('docs/'))).toEqual(docs.sort());
    expect(readFileSync(join(unpacked.main!, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    expect(files.filter((f) => isProgram(join(unpacked.main!, f)))).toEqual([]);
    expect(files.filter((f) => f.startsWith('node_modules/'))).toEqual([]);
    const here = files.filter((f) => readFileSync(join(unpacked.main!, f)).includes(REPO_DIR));
    expect(here).toEqual([]);
    // The sums of the programs the platform packages carry: a program of another build is not used.
    const sums = JSON.parse(
      readFileSync(join(unpacked.main!, 'dist', 'native-programs.json'), 'utf8'),
    ) as Record<string, Record<string, string>>;
    for (const platform of PLATFORMS)
      for (const program of ['hookd-client', 'hookd-spawner'])
        expect(sums[platform]![program]).toBe(
          createHash('sha256')
            .update(readFileSync(join(unpacked[platform]!, 'bin', program)))
            .digest('hex'),
        );
    // Small: the bundles dominate it (dist/commands.cjs and dist/daemon.cjs, not minified, most of it;
    // five agents' adapters and the TOML reader among them). Catches a package bundled twice.
    expect(statSync(tarballs.main!).size).toBeLessThan(1.375 * 1024 * 1024);
  });

  it('the main manifest: our scope, where the project lives, no scripts; node-notifier the only dependency', () => {
    const manifest = JSON.parse(readFileSync(join(unpacked.main!, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest).toMatchObject({
      name: `${SCOPE}/hookd`,
      version: MAIN.version,
      license: 'MIT',
      bin: { hookd: 'dist/hookd.cjs' },
      repository: { type: 'git', url: 'git+https://github.com/hookd/hookd.git' },
      homepage: 'https://github.com/hookd/hookd#readme',
      bugs: { url: 'https://github.com/hookd/hookd/issues' },
      dependencies: { 'node-notifier': expect.any(String) },
      optionalDependencies: Object.fromEntries(PLATFORMS.map((p) => [`${SCOPE}/hookd-${p}`, MAIN.version])),
    });
    expect(Object.keys(manifest.dependencies as object)).toEqual(['node-notifier']);
    expect(manifest).not.toHaveProperty('scripts');
    expect(manifest).not.toHaveProperty('devDependencies');
    expect(manifest).not.toHaveProperty('private');
  });

  it.each(PLATFORMS)(
    '%s: its two programs, built for it, in a package that says where it runs',
    (platform) => {
      const dir = unpacked[platform]!;
      expect(filesUnder(dir)).toEqual([
        'LICENSE',
        'README.md',
        'bin/hookd-client',
        'bin/hookd-spawner',
        'package.json',
      ]);
      const [os, cpu] = platform.split('-');
      expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))).toMatchObject({
        name: `${SCOPE}/hookd-${platform}`,
        version: MAIN.version,
        os: [os],
        cpu: [cpu],
      });
      for (const program of ['hookd-client', 'hookd-spawner']) {
        const file = join(dir, 'bin', program);
        expect(platformBinaryProblem(file, platform), `${platform} ${program}`).toBeUndefined();
        expect(statSync(file).mode & 0o777).toBe(0o755);
        expect(readFileSync(file).includes(REPO_DIR)).toBe(false);
      }
    },
  );

  it('the darwin programs: Mach-O of their architecture for macOS 11, loading libSystem only, arm64 signed', () => {
    for (const [platform, arch] of [
      ['darwin-x64', 'x64'],
      ['darwin-arm64', 'arm64'],
    ] as const)
      for (const program of ['hookd-client', 'hookd-spawner']) {
        const info = describeBinary(join(unpacked[platform]!, 'bin', program));
        expect(info).toMatchObject({
          format: 'macho',
          arch,
          executable: true,
          dylinker: '/usr/lib/dyld',
          dylibs: ['/usr/lib/libSystem.B.dylib'],
          minos: '11.0',
        });
        if (arch === 'arm64') expect(info.signature).toBe('valid');
      }
  });

  it('the linux programs are static: no loader, so any libc runs them', () => {
    for (const platform of ['linux-x64', 'linux-arm64'])
      expect(describeBinary(join(unpacked[platform]!, 'bin', 'hookd-client'))).toMatchObject({
        format: 'elf',
        static: true,
        symbols: false,
      });
  });

  it('the builds are reproducible: built again elsewhere, the same bytes', () => {
    const again = join(tmp.dir, 'again');
    const built = spawnSync(
      process.execPath,
      [join(REPO_DIR, 'scripts', 'build-platforms.mjs'), '--out', again, 'linux-x64', 'darwin-arm64'],
      { cwd: tmp.dir, env: registryEnv(), encoding: 'utf8', timeout: 120_000 },
    );
    expect(built.status, built.stderr).toBe(0);
    for (const platform of ['linux-x64', 'darwin-arm64'])
      for (const program of ['hookd-client', 'hookd-spawner'])
        expect(
          readFileSync(join(again, platform, program)).equals(
            readFileSync(join(unpacked[platform]!, 'bin', program)),
          ),
        ).toBe(true);
  });

  it('the arm64 client passes the client tests under qemu-user', async () => {
    // qemu-user runs the arm64 program; a small exec wrapper keeps everything else as the agent gives it
    // (pid, environment, descriptors), which a shell script would not (dash drops odd variable names).
    const dir = join(tmp.dir, 'arm64');
    mkdirSync(join(dir, 'bin'), { recursive: true });
    const wrapper = join(dir, 'bin', 'hookd-client');
    const source = join(dir, 'exec-qemu.c');
    writeFileSync(
      source,
      [
        '#include <stdlib.h>',
        '#include <unistd.h>',
        'int main(int argc, char **argv) {',
        '    char **args = calloc((size_t)argc + 2, sizeof *args);',
        '    if (!args) return 127;',
        '    args[0] = QEMU;',
        '    args[1] = CLIENT;',
        '    for (int i = 1; i < argc; i++) args[i + 1] = argv[i];',
        '    execv(QEMU, args);',
        '    return 127;',
        '}',
        '',
      ].join('\n'),
    );
    const qemu = '/usr/bin/qemu-aarch64-static';
    expect(existsSync(qemu), `${qemu} (Debian's qemu-user-static)`).toBe(true);
    // The client as the suites run it: beside the hookd.cjs its Node path runs (as in dist/).
    const client = join(dir, 'hookd-client');
    copyFileSync(join(unpacked['linux-arm64']!, 'bin', 'hookd-client'), client);
    chmodSync(client, 0o755);
    symlinkSync(join(REPO_DIR, 'dist', 'hookd.cjs'), join(dir, 'hookd.cjs'));
    const cc = spawnSync('cc', ['-O2', `-DQEMU="${qemu}"`, `-DCLIENT="${client}"`, '-o', wrapper, source], {
      encoding: 'utf8',
    });
    expect(cc.status, cc.stderr).toBe(0);
    const probe = spawnSync(wrapper, ['--hookd-client-version'], { encoding: 'utf8' });
    expect(probe.stdout).toMatch(/^hookd-client \d+ protocol \d+\n$/);
    // The suites that say what the client does, through a real daemon: protocol, edges, faults.
    const env: Record<string, string | undefined> = { ...process.env, HOOKD_TEST_NATIVE_CLIENT: wrapper };
    for (const key of Object.keys(env))
      if (key.startsWith('VITEST') || key === 'FORCE_COLOR') delete env[key];
    env.NO_COLOR = '1';
    const child = spawn(
      process.execPath,
      [
        join(REPO_DIR, 'node_modules', 'vitest', 'vitest.mjs'),
        'run',
        '--project',
        'integration',
        'test/integration/daemon/fast-path-native.test.ts',
        'test/integration/daemon/fast-path.test.ts',
        'test/integration/daemon/fast-path-faults.test.ts',
      ],
      { cwd: REPO_DIR, env, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    started.add(child.pid!);
    const ran = await collectRun(child, {});
    const summary = ran.stdout;
    expect(ran.code, `${summary.slice(-6000)}\n${ran.stderr.slice(-2000)}`).toBe(0);
    expect(summary).toMatch(/Tests\s+\d+ passed/);
    expect(summary).not.toMatch(/skipped|failed/);
  }, 240_000);
});

// ----------------------------------------------------------------------------------- installed hookd

/** A user's world: HOME, config, state and runtime dirs in one folder; `hookd` found through PATH. */
interface Box {
  dir: string;
  env: Record<string, string>;
  project: string;
}

/** The README's example config: its guard on PreToolUse (notifications off: no desktop here). */
function readmeHooks(): unknown {
  const readme = readFileSync(join(REPO_DIR, 'README.md'), 'utf8');
  const block = /```json\n([\s\S]*?)```/.exec(readme);
  return (JSON.parse(block![1]!) as { hooks: unknown }).hooks;
}

function newBox(name: string, binDirs: string[]): Box {
  const dir = join(tmp.dir, name);
  const project = join(dir, 'project');
  mkdirSync(project, { recursive: true });
  mkdirSync(join(dir, 'home'), { recursive: true });
  const env = isolatedEnv(dir, {
    HOOKD_RUNTIME_DIR: join(dir, 'run'),
    HOOKD_STATE_DIR: join(dir, 'state'),
    PATH: [...binDirs, dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
  });
  delete env.HOOKD_DAEMON; // events reach the daemon
  writeFileSync(
    env.HOOKD_CONFIG!,
    JSON.stringify({ hooks: readmeHooks(), notify: { defaults: false }, daemon: { autoStart: false } }),
  );
  return { dir, env, project };
}

/** Runs the installed `hookd` (a symlink npm made) by its path, as a shell would. */
async function hookd(bin: string, box: Box, ...args: string[]): Promise<Ran> {
  const child = spawn(bin, args, { env: box.env, cwd: box.project, stdio: ['pipe', 'pipe', 'pipe'] });
  started.add(child.pid!);
  return collectRun(child, {});
}

/** The PreToolUse command install wrote into Droid's user settings. */
function installedCommand(box: Box): string {
  const settings = JSON.parse(readFileSync(join(box.env.HOME!, '.factory', 'settings.json'), 'utf8')) as {
    hooks: Record<string, { hooks: { command: string }[] }[]>;
  };
  return settings.hooks.PreToolUse![0]!.hooks[0]!.command;
}

/** `rm -rf /` as Droid asks for it, through the installed command; the guard must block it in `daemonPid`. */
async function expectBlocked(box: Box, daemonPid: number): Promise<void> {
  const payload = agentPayload('droid', 'PreToolUse', {
    cwd: box.project,
    tool_input: { command: 'rm -rf /' },
  });
  const ran = await runAsAgent(payload, {
    env: box.env,
    cwd: box.project,
    agent: 'droid',
    command: installedCommand(box),
  });
  started.add(ran.pid);
  expect(ran.stderr).toContain('Blocked by hookd guard: recursive forced delete of /, ~ or *');
  expect(ran.code).toBe(2);
  // It ran in that daemon, not in a Node path of its own (the daemon may still be writing its record).
  const log = join(box.env.HOOKD_STATE_DIR!, 'logs', 'hookd.log');
  await waitFor(
    () => jsonLines(log).some((r) => r.name === 'guard' && r.pid === daemonPid),
    10_000,
    `a guard record from daemon ${daemonPid} in hookd.log`,
  );
}

/** A systemd ExecStart= or Environment= value split into its words (quotes and escapes as systemd reads them). */
function systemdWords(text: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (const m of text.matchAll(re)) {
    const raw = m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!;
    words.push(raw.replace(/%%/g, '%').replace(/\$\$/g, '$'));
  }
  return words;
}

async function waitForDaemon(env: Record<string, string>, child: ChildProcess): Promise<number> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the daemon exited ${child.exitCode}`);
    const ping = await requestDaemon({ v: 1, type: 'ping' }, { env, timeoutMs: 500 });
    if (ping.ok && ping.reply.ok && existsSync(join(env.HOOKD_RUNTIME_DIR!, 'fast.sock')))
      return Number(ping.reply.pid);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The whole way in, for a `hookd` on PATH: install wires the native client at `client`; the README's
 * guard blocks `rm -rf /` through `hookd daemon start`'s daemon, then through the service unit's
 * ExecStart, run as written with the unit's environment.
 */
async function wireAndBlock(bin: string, box: Box, client: string): Promise<void> {
  const installed = await hookd(bin, box, 'install', '--agent', 'droid');
  expect(installed.code, installed.stderr).toBe(0);
  expect(installed.stdout).not.toMatch(/native fast client is not used/);
  const words = splitShellWords(installedCommand(box))!;
  expect(fastClientOf(words)).toBe('native');
  expect(words).toContain(client);

  // emit runs the hook path in the CLI: it finds hooks/ too.
  const emitted = await hookd(bin, box, 'emit', 'PreToolUse', '--tool', 'Execute', '--command', 'rm -rf /');
  expect(emitted.stdout).toContain('Blocked by hookd guard: recursive forced delete');

  const start = await hookd(bin, box, 'daemon', 'start');
  expect(start.code, start.stderr).toBe(0);
  const pid = Number(/pid (\d+)/.exec(start.stdout)![1]);
  started.add(pid);
  await expectBlocked(box, pid);
  expect((await hookd(bin, box, 'daemon', 'stop')).code).toBe(0);

  // `hookd daemon run` in the foreground, started through the symlink, as a user or a unit of their own does.
  await withDaemon(
    spawn(bin, ['daemon', 'run'], { env: box.env, cwd: '/', stdio: ['ignore', 'ignore', 'pipe'] }),
    box,
  );

  const service = await hookd(bin, box, 'daemon', 'install-service', '--no-enable', '--json');
  expect(service.code, service.stderr).toBe(0);
  const unit = readFileSync((JSON.parse(service.stdout) as { file: string }).file, 'utf8');
  const execStart = systemdWords(/^ExecStart=(.*)$/m.exec(unit)![1]!);
  const unitEnv = Object.fromEntries(
    [...unit.matchAll(/^Environment=(.*)$/gm)].map((m) => {
      const [assignment] = systemdWords(m[1]!);
      return [
        assignment!.slice(0, assignment!.indexOf('=')),
        assignment!.slice(assignment!.indexOf('=') + 1),
      ];
    }),
  );
  // As systemd starts a user service: the manager's HOME and runtime dir, then the unit's Environment=.
  const env = { HOME: box.env.HOME!, XDG_RUNTIME_DIR: box.env.XDG_RUNTIME_DIR!, ...unitEnv };
  await withDaemon(
    spawn(execStart[0]!, execStart.slice(1), { env, cwd: '/', stdio: ['ignore', 'ignore', 'pipe'] }),
    box,
  );
}

/** A daemon started by the test: once it answers, the guard must block through it; then it is stopped. */
async function withDaemon(daemon: ChildProcess, box: Box): Promise<void> {
  started.add(daemon.pid!);
  try {
    expect(await waitForDaemon(box.env, daemon)).toBe(daemon.pid);
    await expectBlocked(box, daemon.pid!);
  } finally {
    daemon.kill('SIGTERM');
    if (daemon.exitCode === null) await once(daemon, 'exit');
  }
}

describe.runIf(BUILDS_HERE)('installed from the tarballs, and through npm link', () => {
  let globalBin = '';
  let globalPrefix = '';
  let linkBin = '';

  it('a global install of the main and linux-x64 tarballs into a fresh prefix wires the native client; the guard blocks', async () => {
    globalPrefix = join(tmp.dir, 'prefix');
    asked.length = 0;
    const installed = await npm(
      [
        'install',
        '--global',
        '--prefix',
        globalPrefix,
        '--no-audit',
        '--no-fund',
        `--${SCOPE}:registry=${registryUrl}`,
        tarballs.main!,
        tarballs['linux-x64']!,
      ],
      { cwd: tmp.dir },
    );
    expect(installed.code, installed.stderr).toBe(0);
    // npm asked the scope's registry only about our platform packages, and got nothing from it.
    expect(asked.every((a) => a.startsWith(`GET /${SCOPE}/hookd-`))).toBe(true);
    const scopeDir = join(globalPrefix, 'lib', 'node_modules', SCOPE);
    expect(readdirSync(scopeDir).sort()).toEqual(['hookd', 'hookd-linux-x64']);
    for (const [key, name] of [
      ['main', 'hookd'],
      ['linux-x64', 'hookd-linux-x64'],
    ] as const)
      expect(readFileSync(join(scopeDir, name, 'package.json'), 'utf8')).toBe(
        readFileSync(join(unpacked[key]!, 'package.json'), 'utf8'),
      );
    // None of the packages dist/ bundles was installed.
    const all = readdirSync(join(globalPrefix, 'lib'), { recursive: true }).map(String);
    for (const bundled of ['zod', 'pino', 'yargs', 'chokidar', 'jsonc-parser', 'diff'])
      expect(all.filter((p) => p.endsWith(`node_modules/${bundled}`))).toEqual([]);

    globalBin = join(globalPrefix, 'bin', 'hookd');
    const box = newBox('global', [join(globalPrefix, 'bin')]);
    await wireAndBlock(globalBin, box, join(scopeDir, 'hookd-linux-x64', 'bin', 'hookd-client'));
    // The client's Node path is told which hookd.cjs it runs.
    expect(installedCommand(box)).toContain(`HOOKD_CJS=${join(scopeDir, 'hookd', 'dist', 'hookd.cjs')}`);
  }, 120_000);

  it("a stranger's package under the platform package's name: npm installs it, hookd never runs it", async () => {
    const prefix = join(tmp.dir, 'squatted');
    squatting = true;
    const installed = await npm(
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--no-audit',
        '--no-fund',
        `--${SCOPE}:registry=${registryUrl}`,
        tarballs.main!,
      ],
      { cwd: tmp.dir },
    ).finally(() => (squatting = false));
    expect(installed.code, installed.stderr).toBe(0);
    const root = join(prefix, 'lib', 'node_modules', SCOPE, 'hookd');
    const stranger = join(root, 'node_modules', SQUATTED, 'bin', 'hookd-client');
    expect(existsSync(stranger)).toBe(true);
    const box = newBox('squatted', [join(prefix, 'bin')]);
    const wired = await hookd(join(prefix, 'bin', 'hookd'), box, 'install', '--agent', 'droid');
    expect(wired.code, wired.stderr).toBe(0);
    expect(wired.stdout).toContain(`${stranger} is not the build this hookd was packed with`);
    expect(installedCommand(box)).not.toContain('hookd-client');
  }, 120_000);

  it('npm link wires the native client built in the clone; the guard blocks', async () => {
    const prefix = join(tmp.dir, 'link-prefix');
    // --ignore-scripts: `prepare` would rebuild the dist/ that other tests run (npm test built it).
    const linked = await npm(['link', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: REPO_DIR,
      env: { npm_config_prefix: prefix },
    });
    expect(linked.code, linked.stderr).toBe(0);
    linkBin = join(prefix, 'bin', 'hookd');
    expect(realPath(linkBin)).toBe(join(REPO_DIR, 'dist', 'hookd.cjs'));
    const box = newBox('link', [join(prefix, 'bin')]);
    await wireAndBlock(linkBin, box, join(REPO_DIR, 'dist', 'hookd-client'));
  }, 120_000);

  it('doctor finds entries of another hookd and install moves them, naming the other `hookd` first on PATH', async () => {
    expect(globalBin && linkBin).toBeTruthy();
    // The global install wired this user; the clone's hookd is run by path while PATH finds the global one.
    const box = newBox('moved', [join(globalPrefix, 'bin')]);
    expect((await hookd(globalBin, box, 'install', '--agent', 'droid')).code).toBe(0);
    const doctor = await hookd(linkBin, box, 'doctor', '--json');
    const checks = JSON.parse(doctor.stdout) as {
      id: string;
      status: string;
      detail: string;
      fix?: string;
    }[];
    const location = checks.find((c) => c.id === 'droid-location')!;
    expect(location.status).toBe('warn');
    expect(location.detail).toContain(join(globalPrefix, 'lib', 'node_modules', SCOPE, 'hookd'));
    expect(location.fix).toBe('run `hookd install --agent droid` to move them to this hookd');

    const moved = await hookd(linkBin, box, 'install', '--agent', 'droid');
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toContain(
      `the first \`hookd\` on PATH is ${globalBin} (${join(globalPrefix, 'lib', 'node_modules', SCOPE, 'hookd', 'dist', 'hookd.cjs')}), not this hookd (${join(REPO_DIR, 'dist', 'hookd.cjs')})`,
    );
    expect(splitShellWords(installedCommand(box))).toContain(join(REPO_DIR, 'dist', 'hookd-client'));
    const after = JSON.parse((await hookd(linkBin, box, 'doctor', '--json')).stdout) as {
      id: string;
      status: string;
    }[];
    expect(after.find((c) => c.id === 'droid-location')!.status).toBe('ok');
  }, 120_000);
});

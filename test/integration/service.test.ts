import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installService, uninstallService } from '../../src/service/install-service.js';

let root: string;
let bin: string;
let env: Record<string, string>;
const HOOKD = '/opt/hookd app/dist/hookd.cjs';
const unitPath = () => join(root, 'xdg', 'systemd', 'user', 'hookd.service');
const plistPath = () => join(root, 'home', 'Library', 'LaunchAgents', 'dev.hookd.daemon.plist');

/** A stand-in service manager on PATH: records its arguments, exits with $FAKE_EXIT_<n> for call n. */
async function fakeTool(name: string, exitCodes: number[] = []): Promise<string> {
  const log = join(root, `${name}.log`);
  const cases = exitCodes.map((code, i) => `  ${i + 1}) exit ${code} ;;`).join('\n');
  await writeFile(
    join(bin, name),
    `#!/bin/sh\necho "$*" >> '${log}'\nn=0\nwhile read -r _; do n=$((n + 1)); done < '${log}'\n` +
      `case $n in\n${cases}\n  *) exit 0 ;;\nesac\n`,
    { mode: 0o755 },
  );
  return log;
}

async function calls(log: string): Promise<string[]> {
  return (await readFile(log, 'utf8')).trim().split('\n');
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'hookd-service-'));
  bin = join(root, 'bin');
  await mkdir(bin);
  env = {
    HOME: join(root, 'home'),
    XDG_CONFIG_HOME: join(root, 'xdg'),
    XDG_STATE_HOME: join(root, 'state'),
    PATH: bin,
    DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
  };
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('installService on linux', () => {
  it('writes a systemd user unit that runs `hookd daemon run` with absolute paths', async () => {
    const result = await installService({
      platform: 'linux',
      env,
      hookdPath: HOOKD,
      nodePath: '/usr/bin/node',
      enable: false,
    });
    expect(result).toMatchObject({
      platform: 'linux',
      file: unitPath(),
      changed: true,
      managed: false,
      steps: [],
    });
    const unit = await readFile(unitPath(), 'utf8');
    expect(unit).toContain(
      '\nExecStart=/usr/bin/node --max-semi-space-size=1 --heap-growing-percent=20 "/opt/hookd app/dist/hookd.cjs" daemon run\n',
    );
    expect(unit).toContain('\nRestart=on-failure\n');
    expect(unit).toContain('\nRestartPreventExitStatus=10\n');
    expect(unit).toContain(
      '\nEnvironment=PATH=/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/sbin:/bin\n',
    );
    expect(unit).toContain('\nEnvironment=DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus\n');
    expect(unit).toContain('\n[Install]\nWantedBy=default.target\n');
    expect(unit).not.toMatch(/^Environment=HOME=/m);
    expect((await stat(unitPath())).mode & 0o777).toBe(0o600);
  });

  it("puts a minimal PATH in the unit: node's folder and the system folders, never the shell's", async () => {
    const shellPath = `./node_modules/.bin::/tmp/hookd-x/bin:${bin}:/home/ann/project/.venv/bin`;
    await installService({
      platform: 'linux',
      env: { ...env, PATH: shellPath },
      hookdPath: HOOKD,
      nodePath: '/home/ann/.nvm/versions/node/v20.19.0/bin/node',
      enable: false,
    });
    const unit = await readFile(unitPath(), 'utf8');
    const paths = unit.split('\n').filter((l) => l.startsWith('Environment=PATH='));
    expect(paths).toEqual([
      'Environment=PATH=/home/ann/.nvm/versions/node/v20.19.0/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    ]);
    expect(unit).not.toContain('node_modules');
    expect(unit).not.toContain('/tmp/hookd-x');
  });

  it('adds the folders given with --path, absolute ones only', async () => {
    await installService({
      platform: 'linux',
      env,
      hookdPath: HOOKD,
      nodePath: '/usr/bin/node',
      extraPath: ['/home/ann/.local/bin'],
      enable: false,
    });
    expect(await readFile(unitPath(), 'utf8')).toContain(
      '\nEnvironment=PATH=/home/ann/.local/bin:/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/sbin:/bin\n',
    );
    await expect(
      installService({ platform: 'linux', env, hookdPath: HOOKD, extraPath: ['bin'], enable: false }),
    ).rejects.toThrow(/--path "bin" is not an absolute folder/);
  });

  it('runs systemctl only from an absolute folder of PATH, never one a repository put there', async () => {
    // A relative PATH entry (as `node_modules/.bin`) resolves against the folder hookd runs in.
    const evil = join(root, 'evil');
    await mkdir(evil);
    const marker = join(root, 'evil-ran');
    await writeFile(join(evil, 'systemctl'), `#!/bin/sh\n: > '${marker}'\n`, { mode: 0o755 });
    const result = await installService({
      platform: 'linux',
      env: { ...env, PATH: relative(process.cwd(), evil) },
      hookdPath: HOOKD,
    });
    expect(result.managed).toBe(false);
    expect(result.notes.join('\n')).toContain('systemctl was not found');
    await expect(stat(marker)).rejects.toThrow(/ENOENT/);
  });

  it('is accepted by systemd-analyze verify', async (ctx) => {
    try {
      execFileSync('systemd-analyze', ['--version'], { stdio: 'ignore' });
    } catch {
      ctx.skip();
    }
    await installService({ platform: 'linux', env, hookdPath: process.argv[1]!, enable: false });
    const verify = spawnSync('systemd-analyze', ['verify', unitPath()], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(verify.stderr).toBe('');
    expect(verify.status).toBe(0);
  });

  it('runs systemctl --user daemon-reload and enable --now, and changes nothing the second time', async () => {
    const log = await fakeTool('systemctl');
    const first = await installService({ platform: 'linux', env, hookdPath: HOOKD });
    expect(first.managed).toBe(true);
    expect(await calls(log)).toEqual(['--user daemon-reload', '--user enable --now hookd.service']);
    const second = await installService({ platform: 'linux', env, hookdPath: HOOKD });
    expect(second.changed).toBe(false);
  });

  it('reports a failing systemctl, keeping the file', async () => {
    await fakeTool('systemctl', [0, 1]);
    await expect(installService({ platform: 'linux', env, hookdPath: HOOKD })).rejects.toThrow(
      /was written, but `systemctl --user enable --now hookd.service` failed \(exit 1\)/,
    );
    expect(await readFile(unitPath(), 'utf8')).toContain('ExecStart=');
  });

  it('writes the file and says how to start it when systemctl is not installed', async () => {
    const result = await installService({ platform: 'linux', env, hookdPath: HOOKD });
    expect(result.managed).toBe(false);
    expect(result.steps[0]?.spawnError).toMatch(/^ENOENT/);
    expect(result.notes[0]).toMatch(/systemctl was not found; start the service yourself: systemctl --user/);
  });
});

describe('uninstallService on linux', () => {
  it('stops, disables and removes exactly the unit file', async () => {
    await installService({ platform: 'linux', env, hookdPath: HOOKD, enable: false });
    await writeFile(join(unitPath(), '..', 'other.service'), '[Unit]\n');
    const log = await fakeTool('systemctl');
    const result = await uninstallService({ platform: 'linux', env });
    expect(result).toMatchObject({ changed: true, managed: true });
    expect(await calls(log)).toEqual(['--user disable --now hookd.service', '--user daemon-reload']);
    expect(await readdir(join(unitPath(), '..'))).toEqual(['other.service']);
    const again = await uninstallService({ platform: 'linux', env });
    expect(again.changed).toBe(false);
    expect(again.notes[0]).toMatch(/nothing to remove/);
  });
});

describe('installService on macOS (darwin)', () => {
  it('writes a launchd agent plist that parses and loads it into the gui domain', async (ctx) => {
    const log = await fakeTool('launchctl', [3]);
    const result = await installService({
      platform: 'darwin',
      env,
      hookdPath: HOOKD,
      nodePath: '/usr/local/bin/node',
      uid: 501,
    });
    expect(result.file).toBe(plistPath());
    // bootout of a service that is not loaded fails; that is expected and ignored
    expect(await calls(log)).toEqual([
      'bootout gui/501/dev.hookd.daemon',
      `bootstrap gui/501 ${plistPath()}`,
    ]);
    const text = await readFile(plistPath(), 'utf8');
    let python = true;
    try {
      execFileSync('python3', ['--version'], { stdio: 'ignore' });
    } catch {
      python = false;
    }
    if (!python) ctx.skip();
    const parsed = JSON.parse(
      execFileSync(
        'python3',
        [
          '-c',
          'import plistlib,sys,json; print(json.dumps(plistlib.load(open(sys.argv[1],"rb"))))',
          plistPath(),
        ],
        { encoding: 'utf8', timeout: 30_000 },
      ),
    );
    expect(parsed).toMatchObject({
      Label: 'dev.hookd.daemon',
      ProgramArguments: [
        '/usr/local/bin/node',
        '--max-semi-space-size=1',
        '--heap-growing-percent=20',
        HOOKD,
        'daemon',
        'run',
      ],
      RunAtLoad: true,
      KeepAlive: { SuccessfulExit: false },
      EnvironmentVariables: {
        PATH: '/usr/local/bin:/opt/homebrew/bin:/usr/bin:/bin:/usr/sbin:/sbin',
        DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
      },
    });
    expect(text).toContain('<key>StandardErrorPath</key>');
  });

  it('uninstall boots it out and removes the plist', async () => {
    await installService({ platform: 'darwin', env, hookdPath: HOOKD, enable: false });
    const log = await fakeTool('launchctl');
    await uninstallService({ platform: 'darwin', env, uid: 501 });
    expect(await calls(log)).toEqual(['bootout gui/501/dev.hookd.daemon']);
    await expect(stat(plistPath())).rejects.toThrow(/ENOENT/);
  });
});

it('refuses other platforms with a clear message', async () => {
  await expect(installService({ platform: 'win32', env, hookdPath: HOOKD })).rejects.toThrow(
    /no login service for platform "win32"/,
  );
});

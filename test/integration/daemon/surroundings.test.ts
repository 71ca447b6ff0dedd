import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requestDaemon } from '../../../src/link/client.js';
import { DAEMON_NODE_FLAGS } from '../../../src/link/daemon-argv.js';
import { daemonFiles, readPidFile } from '../../../src/link/runtime-files.js';
import { stateDir } from '../../../src/paths.js';
import { jsonLines } from '../../helpers/json-lines.js';
import { isAlive } from '../../helpers/procs.js';
import { runHookd } from '../../helpers/run-hookd.js';
import { runCli } from '../../helpers/cli-run.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';
import { fixture, waitFor } from './helpers.js';
import { BIN, exited, killQuietly, useProcessCleanup, writeConfig } from './process-helpers.js';

const { pids, cleanups } = useProcessCleanup();

/** A temp dir with a project in it, and an env whose hand-off to the daemon may start one. */
function setup(extra: Record<string, string> = {}) {
  const { dir, cleanup } = makeTempDir();
  cleanups.push(cleanup);
  const env = isolatedEnv(dir, extra);
  delete (env as Record<string, string | undefined>).HOOKD_DAEMON;
  cleanups.push(() => killQuietly(readPidFile(daemonFiles(env).lock)));
  const project = join(dir, 'project');
  mkdirSync(project);
  return { dir, env, project };
}

/** The daemon holding the lock once it answers. */
async function runningDaemon(env: Record<string, string>): Promise<number> {
  return waitFor(
    async () => {
      const pid = readPidFile(daemonFiles(env).lock);
      if (!pid) return undefined;
      const ping = await requestDaemon({ v: 1, type: 'ping' }, { env, timeoutMs: 500 });
      return ping.ok && ping.reply.ok && ping.reply.pid === pid ? pid : undefined;
    },
    20_000,
    'the daemon',
  );
}

/** Runs `hookd hook` in `project` with the daemon down: the daemon it starts, once it answers. */
async function autoStartFrom(project: string, env: Record<string, string>): Promise<number> {
  const ran = await runHookd(['hook'], {
    env,
    cwd: project,
    stdin: JSON.stringify({ ...fixture('04-Notification.json'), cwd: project }),
  });
  expect(ran.code).toBe(0);
  const pid = await runningDaemon(env);
  pids.push(pid);
  return pid;
}

/** A fake program at `path` that records each run in `marker` (and prints `output`). */
function fakeProgram(path: string, marker: string, output = ''): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `#!/bin/sh\necho "$0 $*" >> '${marker}'\nprintf '%s\\n' '${output}'\n`);
  chmodSync(path, 0o755);
}

describe("the daemon's working directory", () => {
  it('is its state dir after an auto-start by a hook run in a project', async () => {
    const { env, project } = setup();
    const pid = await autoStartFrom(project, env);
    expect(readlinkSync(`/proc/${pid}/cwd`)).toBe(realpathSync(stateDir(env)));
  });

  it('is its state dir under `hookd daemon run` started in a project', async () => {
    const { env, project } = setup();
    const child = spawn(process.execPath, [BIN, 'daemon', 'run'], { env, cwd: project, stdio: 'ignore' });
    pids.push(child.pid!);
    const pid = await runningDaemon(env);
    expect(pid).toBe(child.pid);
    expect(readlinkSync(`/proc/${pid}/cwd`)).toBe(realpathSync(stateDir(env)));
    child.kill('SIGTERM');
    expect((await exited(child)).code).toBe(0);
  });

  it('a relative HOOKD_STATE_DIR still names the same files for the daemon and the hooks', async () => {
    const { env, project } = setup();
    const relative = { ...env, HOOKD_STATE_DIR: 'hookd-state' };
    const child = spawn(process.execPath, [BIN, 'daemon', 'run'], {
      env: relative,
      cwd: project,
      stdio: 'ignore',
    });
    pids.push(child.pid!);
    const absolute = { ...env, HOOKD_STATE_DIR: join(project, 'hookd-state') };
    cleanups.push(() => killQuietly(readPidFile(daemonFiles(absolute).lock)));
    const pid = await runningDaemon(absolute);
    expect(pid).toBe(child.pid);
    expect(readlinkSync(`/proc/${pid}/cwd`)).toBe(realpathSync(join(project, 'hookd-state')));
    child.kill('SIGTERM');
    expect((await exited(child)).code).toBe(0);
  });
});

describe('programs hookd runs by name', () => {
  /**
   * A project that puts its own xprintidle, notify-send, sh and a `notify-me` where a relative PATH entry (`node_modules/.bin`,
   * or an empty entry: the cwd) would find them, each recording its runs in a marker file.
   */
  function hostileProject() {
    const s = setup();
    const marker = join(s.dir, 'ran');
    for (const dir of [join(s.project, 'node_modules', '.bin'), s.project]) {
      fakeProgram(join(dir, 'xprintidle'), marker, '0');
      fakeProgram(join(dir, 'notify-send'), marker, '--print-id');
      fakeProgram(join(dir, 'notify-me'), marker);
      fakeProgram(join(dir, 'sh'), marker);
    }
    const env = {
      ...s.env,
      PATH: `node_modules/.bin::${s.env.PATH}`,
      // What makes the presence probe try xprintidle and the desktop channel try notify-send.
      DISPLAY: ':0',
      DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(s.dir, 'no-bus')}`,
    };
    delete (env as Record<string, string | undefined>).WAYLAND_DISPLAY;
    return { ...s, env, marker };
  }

  it('`hookd doctor --send-test` in such a project runs none of them', async () => {
    const { env, project, marker } = hostileProject();
    writeConfig(env, {
      notify: {
        channels: {
          desktop: { type: 'desktop' },
          mine: { type: 'command', command: ['notify-me'] },
          shell: { type: 'command', command: 'exit 0' },
        },
      },
    });
    const ran = await runHookd(['doctor', '--send-test'], { env, cwd: project });
    expect(ran.stdout).toMatch(/Presence/);
    expect(ran.stdout).toMatch(/Desktop notifications: .*test notification/);
    expect(ran.stdout).toMatch(/Channel mine \(command\): .*notify-me is not on PATH/);
    expect(ran.stdout).toMatch(/Channel shell \(command\): test notification delivered/);
    expect(existsSync(marker)).toBe(false);
  });

  it('a daemon auto-started from such a project runs neither for presence or a desktop notification', async () => {
    const { env, project, marker } = hostileProject();
    writeConfig(env, {
      notify: {
        rules: [{ on: ['Notification'], channels: ['desktop'], presence: 'auto' }],
        noise: { dedupeWindowMs: 0 },
        waitingDelayMs: 0,
      },
    });
    const pid = await autoStartFrom(project, env);
    expect(isAlive(pid)).toBe(true);
    // The presence source was chosen, and the spooled event's desktop delivery was tried (whether a
    // notify-send of the system's could show it or not).
    const log = () => jsonLines<{ msg: string }>(join(stateDir(env), 'logs', 'daemon.log'));
    await waitFor(() => log().some((r) => r.msg === 'presence source'), 20_000, 'presence detected');
    await waitFor(
      async () => {
        const list = await runCli(['outbox', 'list', '--state', 'all', '--json'], { env });
        if (list.code !== 0) return false;
        const deliveries = JSON.parse(list.stdout) as { state: string; attempts: number }[];
        return deliveries.some((d) => d.attempts > 0 || d.state === 'dead' || d.state === 'delivered');
      },
      20_000,
      'the desktop delivery tried',
    );
    expect(existsSync(marker)).toBe(false);
  });
});

describe("the daemon's V8 flags", () => {
  /** The daemon's own command line, as the kernel has it. */
  const commandLine = (pid: number) =>
    readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

  it('are on the command line of a daemon a hook auto-starts', async () => {
    const { env, project } = setup();
    const pid = await autoStartFrom(project, env);
    const argv = commandLine(pid);
    expect(argv.slice(1, 1 + DAEMON_NODE_FLAGS.length)).toEqual([...DAEMON_NODE_FLAGS]);
    expect(argv.slice(-2)).toEqual(['daemon', 'run']);
  });

  it('are on the command line of a daemon `hookd daemon start` starts', async () => {
    const { env, project } = setup();
    const started = await runHookd(['daemon', 'start'], { env, cwd: project });
    expect(started.code, started.stderr).toBe(0);
    const pid = await runningDaemon(env);
    pids.push(pid);
    const argv = commandLine(pid);
    expect(argv.slice(1, 1 + DAEMON_NODE_FLAGS.length)).toEqual([...DAEMON_NODE_FLAGS]);
    expect(argv.slice(-2)).toEqual(['daemon', 'run']);
  });
});

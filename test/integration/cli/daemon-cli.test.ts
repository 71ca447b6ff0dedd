import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOOKD_BIN } from '../../helpers/fixtures.js';
import { useCliSandbox } from '../../helpers/cli-sandbox.js';
import { isAlive, waitFor } from '../../helpers/procs.js';
import { runCli } from '../../helpers/cli-run.js';
import { runHookd } from '../../helpers/run-hookd.js';

// `hookd daemon run` as systemd runs it (its log on stderr too), with the built CLI, and `hookd daemon
// restart` run in-process; every daemon is a real process.

const box = useCliSandbox();

/** The pid of the daemon that answers, from `hookd status --json`. */
async function daemonPid(): Promise<number | undefined> {
  const status = await runCli(['status', '--json'], { env: box.env });
  const report = JSON.parse(status.stdout) as { daemon: { running: boolean; stats?: { pid: number } } };
  return report.daemon.running ? report.daemon.stats!.pid : undefined;
}

/** `hookd daemon start`, then `hookd daemon restart`: the daemon's pid before and after, and what it said. */
async function startThenRestart(
  run: typeof runCli = runCli,
): Promise<{ before: number; after: number; stdout: string }> {
  const started = await runCli(['daemon', 'start'], { env: box.env });
  expect(started.code, started.stderr).toBe(0);
  const before = (await daemonPid())!;
  box.pids.push(before);
  const restarted = await run(['daemon', 'restart'], { env: box.env });
  expect(restarted.stderr).toBe('');
  expect(restarted.code).toBe(0);
  const after = (await daemonPid())!;
  box.pids.push(after);
  expect(after).toBeDefined();
  expect(after).not.toBe(before);
  return { before, after, stdout: restarted.stdout };
}

describe('hookd daemon run (the foreground daemon, as systemd runs it)', () => {
  it('writes its log records to stderr as well as to its log file', async () => {
    const child = spawn(process.execPath, [HOOKD_BIN, 'daemon', 'run'], {
      env: box.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    box.pids.push(child.pid!);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    expect(await waitFor(() => /INFO +daemon started/.test(stderr), 400)).toBe(true);
    // The same record is in the log file that `hookd logs` reads.
    const logFile = join(box.env.XDG_STATE_HOME!, 'hookd', 'logs', 'daemon.log');
    const logged = () =>
      existsSync(logFile) && readFileSync(logFile, 'utf8').includes('"msg":"daemon started"');
    expect(await waitFor(logged, 400)).toBe(true);
    child.kill('SIGTERM');
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    expect(stderr).toMatch(/INFO +daemon stopped/);
  });
});

describe('hookd daemon restart', () => {
  it('stops the running daemon and starts a new one', async () => {
    const { before, after, stdout } = await startThenRestart();
    expect(isAlive(before)).toBe(false);
    expect(stdout).toBe(`hookd daemon restarted (pid ${before} -> ${after})\n`);
  });

  it('starts it when none runs', async () => {
    const restarted = await runCli(['daemon', 'restart'], { env: box.env });
    expect(restarted.code, restarted.stderr).toBe(0);
    const pid = await daemonPid();
    box.pids.push(pid!);
    expect(restarted.stdout).toBe(`hookd daemon was not running; started (pid ${pid})\n`);
  });

  it('asks systemd to restart the daemon when the login service runs it', async () => {
    // The unit install-service writes, and a stand-in systemctl that says it is active and restarts
    // the daemon as systemd would (stop, start).
    const unitDir = join(box.env.XDG_CONFIG_HOME!, 'systemd', 'user');
    mkdirSync(unitDir, { recursive: true });
    writeFileSync(join(unitDir, 'hookd.service'), '[Service]\n');
    const bin = join(box.dir, 'bin');
    mkdirSync(bin);
    const calls = join(box.dir, 'systemctl.log');
    const hookd = `${JSON.stringify(process.execPath)} ${JSON.stringify(HOOKD_BIN)}`;
    writeFileSync(
      join(bin, 'systemctl'),
      `#!/bin/sh\necho "$*" >> ${JSON.stringify(calls)}\n` +
        `case "$2" in restart) ${hookd} daemon stop >/dev/null && ${hookd} daemon start >/dev/null ;; esac\n`,
    );
    chmodSync(join(bin, 'systemctl'), 0o755);
    box.env = { ...box.env, PATH: `${bin}:${box.env.PATH}` };
    // The built CLI: it finds systemctl on its own PATH.
    const { after, stdout } = await startThenRestart(async (args, o) => {
      const ran = await runHookd(args, o);
      return { ...ran, code: ran.code ?? -1 };
    });
    expect(readFileSync(calls, 'utf8')).toBe(
      '--user is-active --quiet hookd.service\n--user restart hookd.service\n',
    );
    expect(stdout).toBe(`hookd daemon restarted by systemctl (pid ${after})\n`);
  });
});

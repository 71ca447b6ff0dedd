import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCommand, type RunCommandOptions } from '../../../src/runner/run-command.js';
import { makeTempDir } from '../../helpers/temp.js';
import { isAlive, killHard, readPid, waitFor } from '../../helpers/procs.js';

let tmp: ReturnType<typeof makeTempDir>;
const spawned: number[] = [];

beforeEach(() => {
  tmp = makeTempDir();
});
afterEach(() => {
  for (const pid of spawned.splice(0)) killHard(pid);
  tmp.cleanup();
});

function run(command: string, more: Partial<RunCommandOptions> = {}) {
  return runCommand({
    command,
    cwd: tmp.dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdin: Buffer.from('{"hook_event_name":"Stop"}'),
    timeoutMs: 10_000,
    killGraceMs: 300,
    maxOutputBytes: 64 * 1024,
    ...more,
  }).then((result) => {
    if (result.pid) spawned.push(result.pid);
    return result;
  });
}

describe('runCommand with real processes', () => {
  it('passes the raw event on stdin and runs in the given cwd', async () => {
    const result = await run('cat; echo; pwd');
    expect(result.exitCode).toBe(0);
    expect(result.stdout.text()).toBe(`{"hook_event_name":"Stop"}\n${tmp.dir}\n`);
  });

  it.each([1, 2, 3])('reports exit code %i as a value', async (code) => {
    const result = await run(`echo failing >&2; exit ${code}`);
    expect(result).toMatchObject({ exitCode: code, timedOut: false, signal: null });
    expect(result.stderr.text()).toBe('failing\n');
  });

  it('reports a missing program as exit 127', async () => {
    const result = await run('definitely-not-a-command-hookd');
    expect(result.exitCode).toBe(127);
    expect(result.stderr.text()).toMatch(/not found/);
  });

  it('reports a missing cwd as a spawn error, not a throw', async () => {
    const result = await run('true', { cwd: join(tmp.dir, 'nope') });
    expect(result.spawnError).toMatch(/does not exist/);
    expect(result.exitCode).toBeNull();
  });

  it('kills a hanging command at its timeout with SIGTERM to its group', async () => {
    const result = await run('sleep 30', { timeoutMs: 200 });
    expect(result.timedOut).toBe(true);
    expect(result.killedBy).toBe('timeout');
    expect(result.signal).toBe('SIGTERM');
  });

  it('escalates to SIGKILL when the command ignores SIGTERM, and no grandchild survives', async () => {
    const pidFile = join(tmp.dir, 'grandchild.pid');
    const result = await run(`trap '' TERM; sleep 30 & echo $! > ${pidFile}; while :; do sleep 1; done`, {
      timeoutMs: 300,
      killGraceMs: 200,
    });
    const grandchild = readPid(pidFile);
    if (grandchild) spawned.push(grandchild);
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    expect(grandchild).toBeDefined();
    expect(await waitFor(() => !isAlive(grandchild!))).toBe(true);
  });

  it('kills the whole group on timeout: a background grandchild dies with its parent', async () => {
    const pidFile = join(tmp.dir, 'bg.pid');
    const result = await run(`sleep 60 & echo $! > ${pidFile}; sleep 60`, { timeoutMs: 300 });
    const grandchild = readPid(pidFile)!;
    spawned.push(grandchild);
    expect(result.timedOut).toBe(true);
    expect(await waitFor(() => !isAlive(grandchild))).toBe(true);
  });

  it('does not hang when a background child keeps stdout open after the command exits', async () => {
    const pidFile = join(tmp.dir, 'holder.pid');
    const result = await run(`sleep 30 & echo $! > ${pidFile}; echo done`, { pipeGraceMs: 200 });
    const holder = readPid(pidFile);
    if (holder) spawned.push(holder);
    expect(result.exitCode).toBe(0);
    expect(result.timedOut).toBe(false);
    expect(result.stdout.text()).toContain('done');
  });

  it('keeps memory bounded when a command prints 50 MB', async () => {
    const result = await run("head -c 52428800 /dev/zero | tr '\\0' x", { maxOutputBytes: 64 * 1024 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.totalBytes).toBe(52_428_800);
    expect(result.stdout.truncated).toBe(true);
    const text = result.stdout.text();
    expect(text.length).toBeLessThan(64 * 1024 + 200);
    expect(text).toMatch(/bytes dropped by hookd/);
  });

  it('stops a command when the event budget is aborted', async () => {
    const controller = new AbortController();
    const pending = run('sleep 30', { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const result = await pending;
    expect(result.killedBy).toBe('budget');
  });

  it('does not break when the command never reads a large stdin', async () => {
    const result = await run('exit 0', { stdin: Buffer.alloc(4 * 1024 * 1024, 0x61) });
    expect(result.exitCode).toBe(0);
  });
});

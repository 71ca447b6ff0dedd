import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { requestDaemon } from '../../../src/link/client.js';
import { daemonFiles } from '../../../src/link/runtime-files.js';
import { EXIT_ALREADY_RUNNING } from '../../../src/daemon/lifecycle/main.js';
import { tempEnv } from './helpers.js';
import { BIN, ensureBuilt, exited, killQuietly, spawnDaemon, writeConfig } from './process-helpers.js';

// A second `hookd daemon run` whose view of the first daemon's pid is wrong (a hook of an agent running
// in its own PID namespace, where the first daemon's pid does not exist) must not take the lock over
// and steal the socket while the first daemon still answers on it.

const started: ChildProcess[] = [];
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const child of started.splice(0)) killQuietly(child.pid);
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function runningDaemon() {
  ensureBuilt();
  const t = tempEnv();
  cleanups.push(t.cleanup);
  writeConfig(t.env, { notify: { rules: [] } });
  const first = await spawnDaemon(t.env);
  started.push(first);
  return { env: t.env, first };
}

/** Starts a second daemon; resolves with how it exited (bounded: a daemon that keeps running is killed). */
async function secondDaemon(argv: string[], env: Record<string, string | undefined>) {
  const child = spawn(argv[0]!, argv.slice(1), {
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  started.push(child);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => killQuietly(child.pid), 8000);
  const end = await exited(child);
  clearTimeout(timer);
  return { ...end, stderr };
}

async function pingPid(env: Record<string, string | undefined>): Promise<unknown> {
  const ping = await requestDaemon({ v: 1, type: 'ping' }, { env, timeoutMs: 2000 });
  return ping.ok ? ping.reply.pid : ping.error;
}

describe('a daemon that answers on its socket keeps it', () => {
  it('when the lock names a pid this process cannot see', async () => {
    const { env, first } = await runningDaemon();
    // What a PID namespace shows: the lock's pid does not exist here (a reaped child's pid).
    const gone = spawnSync('true').pid;
    writeFileSync(daemonFiles(env).lock, `${gone}\n`);
    const second = await secondDaemon([process.execPath, BIN, 'daemon', 'run'], env);
    expect(second.code, second.stderr).toBe(EXIT_ALREADY_RUNNING);
    expect(second.stderr).toContain(`already running (pid ${first.pid})`);
    expect(await pingPid(env)).toBe(first.pid);
  });

  const isRoot = process.getuid?.() === 0;
  const hasUnshare = spawnSync('unshare', ['--version']).status === 0;
  it.skipIf(!isRoot || !hasUnshare)('when started from another PID namespace', async () => {
    const { env, first } = await runningDaemon();
    const argv = [
      'unshare',
      '--pid',
      '--fork',
      '--mount-proc',
      '--kill-child',
      process.execPath,
      BIN,
      'daemon',
      'run',
    ];
    const second = await secondDaemon(argv, env);
    expect(second.code, second.stderr).toBe(EXIT_ALREADY_RUNNING);
    expect(await pingPid(env)).toBe(first.pid);
  });
});

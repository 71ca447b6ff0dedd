import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DAEMON_PARTS, Daemon, startDaemon } from '../../../src/daemon/lifecycle/daemon.js';
import { requestDaemon } from '../../../src/link/client.js';
import { daemonFiles, type DaemonFiles } from '../../../src/link/runtime-files.js';
import { FAST_SOCKET } from '../../../src/link/wire.js';
import { tempEnv } from './helpers.js';

// The Daemon's start and close with its real parts: files, the lock, the sockets.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const config = { notify: {}, daemon: {} };

function setup() {
  const temp = tempEnv();
  cleanups.push(temp.cleanup);
  return { ...temp, files: daemonFiles(temp.env) };
}

describe('the Daemon object', () => {
  it('starts its parts in order and stops them all: lock, socket and pid file are gone', async () => {
    const t = setup();
    const daemon = new Daemon({ env: t.env, config, watchConfig: false });
    cleanups.push(() => daemon.close());
    await daemon.start();
    expect(daemon.startedParts()).toEqual(DAEMON_PARTS.filter((part) => part !== 'config watch'));
    expect(existsSync(t.files.socket)).toBe(true);
    expect(existsSync(t.files.pid)).toBe(true);
    const first = daemon.close();
    expect(daemon.close()).toBe(first);
    await first;
    await daemon.closed;
    expect(daemon.startedParts()).toEqual([]);
    expect(existsSync(t.files.socket)).toBe(false);
    expect(existsSync(t.files.pid)).toBe(false);
    // The lock is free: another daemon starts on the same files.
    const next = await startDaemon({ env: t.env, config });
    cleanups.push(() => next.close());
    const ping = await requestDaemon({ v: 1, type: 'ping' }, { env: t.env, timeoutMs: 2000 });
    expect(ping.ok).toBe(true);
  });

  it.each([
    ['socket', (files: DaemonFiles) => files.socket],
    ['fast listener', (files: DaemonFiles) => join(files.dir, FAST_SOCKET)],
  ])(
    'the %s failing to start: what started stops (the lock, the socket), nothing is left listening',
    async (_, place) => {
      const t = setup();
      // The part's socket place holds a folder with a file in it: the part cannot take it.
      const blocked = place(t.files);
      mkdirSync(join(blocked, 'in-the-way'), { recursive: true });
      writeFileSync(join(blocked, 'in-the-way', 'file'), 'x');
      const daemon = new Daemon({ env: t.env, config: { ...config, daemon: { fastListener: true } } });
      cleanups.push(() => daemon.close());
      await expect(daemon.start()).rejects.toThrow();
      expect(daemon.startedParts()).toEqual([]);
      expect(existsSync(t.files.pid)).toBe(false);
      if (blocked !== t.files.socket) expect(existsSync(t.files.socket)).toBe(false);
      expect((await requestDaemon({ v: 1, type: 'ping' }, { env: t.env, timeoutMs: 500 })).ok).toBe(false);
      // The lock was released: once the way is clear, a daemon starts on the same files.
      rmSync(blocked, { recursive: true, force: true });
      const next = await startDaemon({ env: t.env, config });
      cleanups.push(() => next.close());
      expect((await requestDaemon({ v: 1, type: 'ping' }, { env: t.env, timeoutMs: 2000 })).ok).toBe(true);
    },
  );

  it('closed while it starts: start rejects, everything it started is stopped', async () => {
    const t = setup();
    const daemon = new Daemon({ env: t.env, config });
    const starting = daemon.start();
    const closing = daemon.close();
    await expect(starting).rejects.toThrow(/closed while it started/);
    await closing;
    expect(daemon.startedParts()).toEqual([]);
    expect(existsSync(t.files.socket)).toBe(false);
    const next = await startDaemon({ env: t.env, config });
    cleanups.push(() => next.close());
  });
});

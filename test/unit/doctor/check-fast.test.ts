import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { daemonSettings } from '../../../src/config/schemas/daemon-schema.js';
import { FAST_CLIENT_VERSIONS, FAST_PROTOCOL } from '../../../src/link/wire.js';
import { checkFast } from '../../../src/doctor/checks/hook/check-fast.js';
import type { DaemonView } from '../../../src/doctor/checks/daemon/daemon-view.js';
import type { DaemonStats } from '../../../src/daemon/lifecycle/daemon.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';

// The doctor's fast-listener check, against a real unix socket standing in for the daemon's and the
// daemon's own report of what it listens on.

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let servers: Server[];
let received: number;
const dir = () => join(env.XDG_RUNTIME_DIR!, 'hookd');
const socket = () => join(dir(), 'fast.sock');
const on = daemonSettings({});

/** A running daemon's view; `fast` as its status reports the fast listener (undefined: not listening). */
function view(running: boolean, fast?: { protocol: number; min: number; max: number }): DaemonView {
  const listening = {
    control: join(dir(), 'hookd.sock'),
    ...(fast
      ? {
          fast: {
            socket: socket(),
            protocol: fast.protocol,
            clientVersions: { min: fast.min, max: fast.max },
          },
        }
      : {}),
  };
  return {
    running,
    ...(running ? { stats: { listening } as DaemonStats } : {}),
    spooled: 0,
    pendingEvents: 0,
    outbox: { pending: 0, held: 0, dead: 0 },
  };
}
const THIS = { protocol: FAST_PROTOCOL, ...FAST_CLIENT_VERSIONS };

async function listen(): Promise<void> {
  mkdirSync(dir(), { recursive: true, mode: 0o700 });
  const server = createServer((s: Socket) => {
    s.on('data', (c: Buffer) => (received += c.length));
    s.on('error', () => {});
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(socket(), () => r()));
}

beforeEach(() => {
  tmp = makeTempDir('hkfc-');
  env = isolatedEnv(tmp.dir);
  servers = [];
  received = 0;
});
afterEach(() => {
  for (const s of servers) s.close();
  tmp.cleanup();
});

describe('doctor: the fast listener', () => {
  it('up: the daemon listens on the private socket and speaks this protocol; nothing is sent to it', async () => {
    await listen();
    const r = await checkFast(env, view(true, THIS), on, 2000);
    expect(r.status).toBe('ok');
    expect(r.detail).toBe(
      `up on ${socket()}, protocol ${FAST_PROTOCOL}, client versions ${FAST_CLIENT_VERSIONS.min}-${FAST_CLIENT_VERSIONS.max}`,
    );
    expect(received).toBe(0);
  });

  it('says which mismatches the daemon saw (fast-status.json), with the fix', async () => {
    await listen();
    writeFileSync(
      join(dir(), 'fast-status.json'),
      JSON.stringify({
        v: 1,
        protocol: 3,
        clientVersions: { min: 3, max: 3 },
        mismatches: 3,
        lastMismatch: { at: 0, protocol: '3', client: '1' },
      }),
      { mode: 0o600 },
    );
    const r = await checkFast(env, view(true, THIS), on, 2000);
    expect(r.status).toBe('warn');
    expect(r.detail).toContain('3 request(s) from a client this daemon does not serve took the Node path');
    expect(r.detail).toContain('client protocol 3, version 1, at 1970-01-01T00:00:00.000Z');
    expect(r.fix).toContain('hookd install');
  });

  it('a daemon of another protocol, a socket nobody listens on, an older daemon', async () => {
    await listen();
    expect((await checkFast(env, view(true, { ...THIS, protocol: 9 }), on, 2000)).detail).toContain(
      `the daemon speaks protocol 9 (client versions ${FAST_CLIENT_VERSIONS.min}-${FAST_CLIENT_VERSIONS.max}), this hookd protocol ${FAST_PROTOCOL}`,
    );
    await new Promise<void>((r) => servers.pop()!.close(() => r()));
    writeFileSync(socket(), ''); // a leftover that is not a socket
    const notSocket = await checkFast(env, view(true, THIS), on, 2000);
    expect(notSocket.status).toBe('fail');
    expect(notSocket.detail).toContain('is not a socket');
    rmSync(socket());
    // A daemon that answers on its control socket but does not say what it listens on: an older one.
    const older: DaemonView = { ...view(true), stats: {} as DaemonStats };
    expect((await checkFast(env, older, on, 2000)).detail).toContain('of an older hookd');
    expect(received).toBe(0);
  });

  it('a runtime dir others may write to fails, naming the fix', async () => {
    await listen();
    chmodSync(dir(), 0o777);
    const r = await checkFast(env, view(true, THIS), on, 2000);
    expect(r.status).toBe('fail');
    expect(r.detail).toContain('writable by others');
    expect(r.detail).toContain('the fast client refuses it');
    chmodSync(dir(), 0o700);
  });

  it('off, daemon down, a daemon started without the listener, the listener file of an older daemon', async () => {
    expect(
      (await checkFast(env, view(true), daemonSettings({ fastListener: false }), 2000)).detail,
    ).toContain('off (daemon.fastListener: false)');
    expect((await checkFast(env, view(false), on, 2000)).status).toBe('skip');
    const r = await checkFast(env, view(true), on, 2000);
    expect(r.status).toBe('warn');
    expect(r.detail).toContain('the daemon runs without the fast listener');
    mkdirSync(dir(), { recursive: true, mode: 0o700 });
    writeFileSync(join(dir(), 'hookd.fast'), '4000 secret token 2 1\n', { mode: 0o600 });
    const legacy = await checkFast(env, view(false), on, 2000);
    expect(legacy.status).toBe('warn');
    expect(legacy.detail).toContain('loopback listener of an older hookd daemon');
  });

  it('says daemon.httpHooks is no longer used', async () => {
    await listen();
    const r = await checkFast(env, view(true, THIS), daemonSettings({ httpHooks: { enabled: true } }), 2000);
    expect(r.status).toBe('warn');
    expect(r.detail).toContain('daemon.httpHooks is no longer used');
    expect(r.fix).toContain('remove "httpHooks"');
  });
});

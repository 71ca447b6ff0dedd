import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { daemonSettings } from '../../../src/config/daemon-schema.js';
import { checkFast } from '../../../src/doctor/check-fast.js';
import type { DaemonView } from '../../../src/doctor/daemon-view.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';

// The doctor's fast-listener check against a real loopback listener standing in for the daemon's.

const view = (running: boolean): DaemonView => ({
  running,
  spooled: 0,
  pendingEvents: 0,
  outbox: { pending: 0, held: 0, dead: 0 },
});
const on = daemonSettings({});
const SECRET = 'a'.repeat(48);

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let servers: Server[];
let received: number;
const dir = () => join(env.XDG_RUNTIME_DIR!, 'hookd');

async function listen(greeting: string | undefined): Promise<number> {
  const server = createServer((s: Socket) => {
    s.on('data', (c: Buffer) => (received += c.length));
    s.on('error', () => {});
    if (greeting !== undefined) s.write(greeting);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as { port: number }).port;
}
function listenerFile(port: number, protocol = 2): void {
  mkdirSync(dir(), { recursive: true, mode: 0o700 });
  writeFileSync(join(dir(), 'hookd.fast'), `${port} ${SECRET} ${'b'.repeat(48)} ${protocol} 17\n`, {
    mode: 0o600,
  });
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
  it('up: the greeting carries the secret of the listener file; nothing is sent to it', async () => {
    listenerFile(await listen(`HOOKD-FAST ${SECRET}\n`));
    const r = await checkFast(env, view(true), on, 2000);
    expect(r.status).toBe('ok');
    expect(r.detail).toMatch(
      /^up on 127\.0\.0\.1:\d+, protocol 2, client versions 2-2, config generation 17$/,
    );
    expect(received).toBe(0);
    expect(r.detail).not.toContain(SECRET);
  });

  it('says which mismatches the daemon saw (fast-status.json), with the fix', async () => {
    listenerFile(await listen(`HOOKD-FAST ${SECRET}\n`));
    writeFileSync(
      join(dir(), 'fast-status.json'),
      JSON.stringify({
        v: 1,
        protocol: 2,
        clientVersions: { min: 2, max: 2 },
        mismatches: 3,
        lastMismatch: { at: 0, protocol: '2', client: '1' },
      }),
      { mode: 0o600 },
    );
    const r = await checkFast(env, view(true), on, 2000);
    expect(r.status).toBe('warn');
    expect(r.detail).toContain('3 request(s) from a client this daemon does not serve took the Node path');
    expect(r.detail).toContain('client protocol 2, version 1, at 1970-01-01T00:00:00.000Z');
    expect(r.fix).toContain('hookd install');
  });

  it('a daemon of another protocol, a stale port bound by someone else, a dead port', async () => {
    listenerFile(await listen(`HOOKD-FAST ${SECRET}\n`), 3);
    expect((await checkFast(env, view(true), on, 2000)).detail).toContain(
      'the daemon speaks protocol 3, this hookd 2',
    );
    listenerFile(await listen('SSH-2.0-OpenSSH\n'));
    expect((await checkFast(env, view(true), on, 2000)).detail).toContain("is not this daemon's listener");
    const dead = await listen(undefined);
    servers.pop()!.close();
    listenerFile(dead);
    const r = await checkFast(env, view(false), on, 2000);
    expect(r.status).toBe('warn');
    expect(r.detail).toContain('did not greet (ECONNREFUSED)');
    expect(r.fix).toContain('hookd daemon start');
    expect(received).toBe(0);
  });

  it('no listener file: off, daemon down, or a daemon started without the listener', async () => {
    expect(
      (await checkFast(env, view(true), daemonSettings({ fastListener: false }), 2000)).detail,
    ).toContain('off (daemon.fastListener: false)');
    expect((await checkFast(env, view(false), on, 2000)).status).toBe('skip');
    const r = await checkFast(env, view(true), on, 2000);
    expect(r.status).toBe('warn');
    expect(r.detail).toContain('the daemon runs without the fast listener');
  });
});

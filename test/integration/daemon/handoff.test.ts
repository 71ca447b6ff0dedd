import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { startDaemon, DaemonRunningError, type DaemonHandle } from '../../../src/daemon/lifecycle/daemon.js';
import { handOff, requestDaemon } from '../../../src/link/client.js';
import { daemonFiles } from '../../../src/link/runtime-files.js';
import { spoolDir } from '../../../src/paths.js';
import { fixture, handoffOf, loopbackServer, tempEnv, waitFor } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(answer?: Parameters<typeof loopbackServer>[0]) {
  const temp = tempEnv();
  cleanups.push(temp.cleanup);
  const hook = await loopbackServer(answer);
  cleanups.push(hook.close);
  const config = {
    notify: {
      waitingDelayMs: 0, // this file is not about the waiting delay (waiting-delay.test.ts is)
      channels: { ops: { type: 'webhook', url: `${hook.url}/hook`, secret: 's3cret' } },
      rules: [{ on: ['Stop', 'Notification'], channels: ['ops'] }],
      noise: { dedupeWindowMs: 0 },
    },
    daemon: { retryBaseMs: 20, retryMaxMs: 100, spoolScanIntervalMs: 100 },
  };
  const start = async () => {
    const daemon = await startDaemon({ env: temp.env, config });
    cleanups.push(() => daemon.close());
    return daemon;
  };
  return { ...temp, hook, start, config };
}

function rawRequest(socketPath: string, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    let data = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(line));
    socket.on('data', (chunk: string) => {
      data += chunk;
      if (data.includes('\n')) {
        socket.destroy();
        resolve(data.trim());
      }
    });
    socket.on('error', reject);
  });
}

describe('hand-off to a running daemon', () => {
  it('acks an event and delivers its notification to the webhook', async () => {
    const t = await setup();
    await t.start();
    const message = handoffOf(fixture('16-Stop.json'));
    const result = await handOff(message, { env: t.env, timeoutMs: 2000 });
    expect(result).toEqual({ outcome: 'acked' });
    const got = await waitFor(() => t.hook.received[0], 10_000, 'webhook POST');
    const body = got.json as {
      id: string;
      notification: { event: string; eventIds: string[]; project: string };
    };
    expect(body.notification.event).toBe('Stop');
    expect(body.notification.eventIds).toEqual([message.event.id]);
    expect(body.notification.project).toBe('demo');
    expect(got.headers['x-hookd-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(got.headers['idempotency-key']).toBe(body.id);
  });

  it('keeps the runtime dir private and the socket 0600', async () => {
    const t = await setup();
    const daemon = await t.start();
    const files = daemonFiles(t.env);
    expect(statSync(files.dir).mode & 0o777).toBe(0o700);
    expect(statSync(daemon.socketPath).mode & 0o777).toBe(0o600);
  });

  it('treats a second hand-off of the same event id as a duplicate: one notification', async () => {
    const t = await setup();
    await t.start();
    const message = handoffOf(fixture('04-Notification.json'));
    await handOff(message, { env: t.env, timeoutMs: 2000 });
    const again = await requestDaemon(message, { env: t.env, timeoutMs: 2000 });
    expect(again.ok && again.reply).toMatchObject({ ok: true, id: message.event.id, duplicate: true });
    await waitFor(() => t.hook.received.length === 1, 10_000, 'first POST');
    // A second event proves the daemon went on; the duplicate never produced a POST.
    await handOff(handoffOf(fixture('16-Stop.json')), { env: t.env, timeoutMs: 2000 });
    await waitFor(() => t.hook.received.length === 2, 10_000, 'second POST');
    const ids = t.hook.received.map(
      (r) => (r.json as { notification: { eventIds: string[] } }).notification.eventIds[0],
    );
    expect(ids.filter((id) => id === message.event.id)).toHaveLength(1);
  });

  it('answers bad lines with a clear nack and keeps the connection usable', async () => {
    const t = await setup();
    const daemon = await t.start();
    expect(JSON.parse(await rawRequest(daemon.socketPath, '{"v":2,"type":"ping"}\n'))).toMatchObject({
      v: 1,
      ok: false,
      code: 'bad_version',
    });
    expect(JSON.parse(await rawRequest(daemon.socketPath, 'not json\n'))).toMatchObject({
      ok: false,
      code: 'bad_json',
    });
    expect(
      JSON.parse(await rawRequest(daemon.socketPath, '{"v":1,"type":"event","event":{}}\n')),
    ).toMatchObject({
      ok: false,
      code: 'invalid',
    });
    expect(JSON.parse(await rawRequest(daemon.socketPath, '{"v":1,"type":"ping"}\n'))).toMatchObject({
      ok: true,
      pong: true,
    });
  });

  it('refuses a second daemon for the same user', async () => {
    const t = await setup();
    await t.start();
    await expect(startDaemon({ env: t.env, config: t.config })).rejects.toBeInstanceOf(DaemonRunningError);
  });
});

describe('daemon down', () => {
  it('spools events in order, and a new daemon drains them in that order', async () => {
    const t = await setup();
    const messages = [1, 2, 3].map((n) =>
      handoffOf(
        { ...fixture('16-Stop.json'), elapsed_time: n * 1000 },
        { receivedAt: 1_700_000_000_000 + n },
      ),
    );
    for (const m of messages) {
      const result = await handOff(m, { env: t.env, timeoutMs: 200, autoStart: false });
      expect(result.outcome).toBe('spooled');
    }
    expect(readdirSync(spoolDir(t.env)).filter((n) => n.endsWith('.json'))).toHaveLength(3);
    await t.start();
    await waitFor(() => t.hook.received.length === 3, 10_000, 'three POSTs');
    const order = t.hook.received.map(
      (r) => (r.json as { notification: { eventIds: string[] } }).notification.eventIds[0],
    );
    expect(order).toEqual(messages.map((m) => m.event.id));
    expect(readdirSync(spoolDir(t.env)).filter((n) => n.endsWith('.json'))).toHaveLength(0);
  });

  it('cleans up a stale socket and lock left by a crash', async () => {
    const t = await setup();
    const first = await t.start();
    const files = daemonFiles(t.env);
    // Simulate a crash: the files stay behind with a pid that is gone.
    const { writeFileSync, mkdirSync } = await import('node:fs');
    await first.close();
    mkdirSync(files.dir, { recursive: true });
    writeFileSync(files.lock, '999999\n');
    writeFileSync(files.pid, '999999\n');
    writeFileSync(files.socket, '');
    const second = await t.start();
    expect(existsSync(second.socketPath)).toBe(true);
    const reply = await requestDaemon({ v: 1, type: 'ping' }, { env: t.env });
    expect(reply.ok && reply.reply.pid).toBe(process.pid);
  });

  it('a hand-off that times out is spooled, and the daemon drops it as a duplicate later', async () => {
    const t = await setup();
    const daemon = await t.start();
    const message = handoffOf(fixture('04-Notification.json'));
    expect((await handOff(message, { env: t.env, timeoutMs: 2000 })).outcome).toBe('acked');
    // The same event also lands in the spool (as when an ack arrives too late).
    const { writeSpoolFile, spoolFileName } = await import('../../../src/link/spool.js');
    writeSpoolFile(
      spoolDir(t.env),
      spoolFileName(message.event.receivedAt, message.event.id),
      JSON.stringify(message),
    );
    await waitFor(
      () => readdirSync(spoolDir(t.env)).filter((n) => n.endsWith('.json')).length === 0,
      10_000,
      'spool drained',
    );
    expect(daemon.stats().events.duplicates).toBe(1);
    await waitFor(() => t.hook.received.length === 1, 10_000, 'one POST');
  });
});

export type { DaemonHandle };

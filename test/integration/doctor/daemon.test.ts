import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, requestDaemon } from '../../../src/link/client.js';
import { startDaemon, type DaemonHandle } from '../../../src/daemon/lifecycle/daemon.js';
import { daemonFiles } from '../../../src/link/runtime-files.js';
import { spoolFileName, writeSpoolFile } from '../../../src/link/spool.js';
import { spoolDir } from '../../../src/paths.js';
import { check, doctor, makeDoctorHome, writeJson, type DoctorHome } from './doctor-env.js';

let h: DoctorHome;
let daemon: DaemonHandle | undefined;
let server: Server | undefined;

beforeEach(() => {
  h = makeDoctorHome();
});
afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
  if (server) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
  }
  h.cleanup();
});

async function start(
  config: { notify?: unknown; daemon?: unknown } = {},
  env = h.env,
): Promise<DaemonHandle> {
  writeJson(h.env.HOOKD_CONFIG!, config);
  daemon = await startDaemon({ env, config, watchConfig: false, desktop: { env } });
  return daemon;
}

describe('doctor: daemon', () => {
  it('is ok when the daemon answers on a 0600 socket in a 0700 folder', async () => {
    await start();
    const result = check(await doctor(h), 'daemon');
    expect(result.status).toBe('ok');
    expect(result.detail).toContain(`running (pid ${process.pid}`);
    expect(result.detail).toContain(daemonFiles(h.env).socket);
  });

  it('fails when the socket can be reached by others', async () => {
    await start();
    const socket = daemonFiles(h.env).socket;
    chmodSync(socket, 0o666);
    const result = check(await doctor(h), 'daemon');
    expect(result.status).toBe('fail');
    expect(result.detail).toBe(`${socket} is mode 0666; others can send it events (it must be 0600)`);
    expect(result.fix).toContain(`chmod 600 ${socket}`);
  });

  it('fails when the runtime folder is open to others, running or not', async () => {
    const dir = daemonFiles(h.env).dir;
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
    const result = check(await doctor(h), 'daemon');
    expect(result.status).toBe('fail');
    expect(result.detail).toBe(`${dir} is mode 0755; it must be 0700`);
    expect(result.fix).toBe(`chmod 700 ${dir}`);
  });

  it('warns when the daemon is not running, and skips when it is disabled', async () => {
    const down = check(await doctor(h), 'daemon');
    expect(down.status).toBe('warn');
    expect(down.detail).toContain('not running');
    expect(down.fix).toContain('hookd daemon start');
    expect(check(await doctor(h, { env: { ...h.env, HOOKD_DAEMON: '0' } }), 'daemon').status).toBe('skip');
    writeJson(h.env.HOOKD_CONFIG!, { daemon: { enabled: false } });
    expect(check(await doctor(h), 'daemon').detail).toContain('daemon.enabled is false');
  });
});

describe('doctor: spool and outbox', () => {
  it('warns about events spooled while the daemon is down', async () => {
    const handoff = {
      v: 1,
      type: 'event',
      event: { id: 'e1', receivedAt: Date.now(), name: 'Stop', payload: {} },
      results: [],
    };
    writeSpoolFile(spoolDir(h.env), spoolFileName(Date.now(), 'e1'), JSON.stringify(handoff));
    const result = check(await doctor(h), 'backlog');
    expect(result.status).toBe('warn');
    expect(result.detail).toContain('spool 1,');
    expect(result.detail).toContain(`1 event(s) in ${spoolDir(h.env)} wait for the daemon`);
    expect(result.fix).toBe('hookd daemon start');
  });

  it('warns about dead-lettered notifications, from the running daemon', async () => {
    server = createServer((_req, res) => res.writeHead(400).end('no'));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await start({
      notify: {
        channels: { hook: { type: 'webhook', url: `http://127.0.0.1:${port}/in` } },
        rules: [{ on: 'Stop', channels: ['hook'] }],
      },
    });
    expect(check(await doctor(h), 'backlog').status).toBe('ok');
    const id = randomUUID();
    const reply = await requestDaemon(
      {
        v: PROTOCOL_VERSION,
        type: 'event',
        event: {
          id,
          receivedAt: Date.now(),
          agent: 'droid',
          name: 'Stop',
          sessionId: 's1',
          payload: { hook_event_name: 'Stop' },
        },
        results: [],
      },
      { env: h.env, timeoutMs: 5000 },
    );
    expect(reply).toMatchObject({ ok: true, reply: { ok: true, id } });
    for (let i = 0; i < 200 && daemon!.stats().outbox.dead === 0; i++)
      await new Promise((r) => setTimeout(r, 25));
    const result = check(await doctor(h), 'backlog');
    expect(result.status).toBe('warn');
    expect(result.detail).toContain('1 notification(s) could not be delivered and were dead-lettered');
    expect(result.fix).toContain('hookd outbox list --state dead');
  });
});

describe('doctor: what the running daemon sees', () => {
  it("reports the daemon's own desktop problems even when this shell could notify", async () => {
    await start({}, { ...h.env, PATH: '/nonexistent', DBUS_SESSION_BUS_ADDRESS: undefined });
    const result = check(await doctor(h), 'desktop');
    expect(result.status).toBe('fail');
    expect(result.detail).toContain('the running daemon cannot show them: notify-send not found on PATH');
  });

  it('knows a channel variable unset here is set in the daemon', async () => {
    const config = { notify: { channels: { team: { type: 'slack', webhookUrl: '${SLACK_WEBHOOK_URL}' } } } };
    await start(config, { ...h.env, SLACK_WEBHOOK_URL: 'http://127.0.0.1:9/hook' });
    const result = check(await doctor(h), 'channel:team');
    expect(result.status).toBe('warn');
    expect(result.detail).toContain(
      'not set in this shell: SLACK_WEBHOOK_URL (used in notify.channels.team.webhookUrl)',
    );
    expect(result.detail).toContain('no enabled rule sends to it');
  });
});

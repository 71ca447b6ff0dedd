import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { handOff, requestDaemon } from '../../../src/link/client.js';
import { fixture, handoffOf, loopbackServer, tempEnv, waitFor } from './helpers.js';
import { bundleFixture, exited, useProcessCleanup } from './process-helpers.js';
import { runCli } from '../../helpers/cli-run.js';

const { pids, cleanups } = useProcessCleanup();

let bundleDir: string;
let script: string;
beforeAll(async () => {
  bundleDir = mkdtempSync(join(tmpdir(), 'hkd-esc-'));
  script = join(bundleDir, 'clock-daemon.cjs');
  // CommonJS: the daemon's dependencies (pino) require Node built-ins.
  await bundleFixture(join(import.meta.dirname, 'fixtures', 'clock-daemon.ts'), script, 'cjs');
}, 60_000);
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));

const MIN = 60_000;
const START = 1_800_000_000_000;

/** A daemon process (the real one, its clock in a file) with loopback Slack and ntfy stand-ins. */
async function setup() {
  const t = tempEnv();
  cleanups.push(t.cleanup);
  const slack = await loopbackServer();
  cleanups.push(slack.close);
  const ntfy = await loopbackServer();
  cleanups.push(ntfy.close);
  const clockFile = join(t.root, 'clock');
  const configFile = join(t.root, 'config.json');
  const at = (ms: number) => writeFileSync(clockFile, String(START + ms));
  at(0);
  writeFileSync(
    configFile,
    JSON.stringify({
      notify: {
        channels: {
          slack: { type: 'slack', webhookUrl: `${slack.url}/hook` },
          phone: { type: 'ntfy', server: ntfy.url, topic: 'phone' },
        },
        rules: [
          {
            name: 'needs you',
            on: 'Notification',
            channels: ['slack'],
            title: 'needs you',
            body: '',
            escalate: [{ after: '15m', channels: ['phone'], repeat: '10m', maxRepeats: 2 }],
          },
        ],
        waitingDelayMs: 5000,
        presence: { source: 'off' },
      },
    }),
  );
  const start = async (): Promise<ChildProcess> => {
    const child = spawn(process.execPath, [script, clockFile, configFile], {
      env: t.env as NodeJS.ProcessEnv,
      stdio: 'ignore',
    });
    pids.push(child.pid!);
    await waitFor(
      async () => {
        const ping = await requestDaemon({ v: 1, type: 'ping' }, { env: t.env, timeoutMs: 500 });
        return ping.ok && ping.reply.ok && ping.reply.pid === child.pid;
      },
      20_000,
      'the daemon',
    );
    return child;
  };
  /**
   * SIGKILL, once every delivery made is recorded as sent: the outbox sends at least once, so one killed
   * between the HTTP answer and its journal record is sent again after the restart (not the ladder's doing).
   */
  const kill = async (child: ChildProcess) => {
    await waitFor(
      async () => {
        const r = await requestDaemon({ v: 1, type: 'status' }, { env: t.env, timeoutMs: 1000 });
        return r.ok && (r.reply.status as { outbox: { pending: number } }).outbox.pending === 0;
      },
      10_000,
      'the deliveries recorded',
    );
    child.kill('SIGKILL');
    await exited(child);
  };
  const ladders = async () => {
    const r = await requestDaemon({ v: 1, type: 'ladders' }, { env: t.env, timeoutMs: 1000 });
    if (!r.ok || !r.reply.ok) throw new Error('no ladders reply');
    return r.reply as unknown as { active: { progress: number[] }[]; recent: { end: string }[] };
  };
  const ask = async (session: string) => {
    const h = handoffOf({ ...fixture('04-Notification.json'), session_id: session });
    expect((await handOff(h, { env: t.env, timeoutMs: 5000 })).outcome).toBe('acked');
    // Killed only once the ladder is in the journal.
    await waitFor(async () => (await ladders()).active.length === 1, 10_000, 'the ladder');
  };
  return { env: t.env, slack, ntfy, at, start, kill, ladders, ask };
}

describe('a daemon killed in the middle of a ladder', () => {
  it('resumes it after a restart and sends nothing twice', async () => {
    const t = await setup();
    let daemon = await t.start();
    // Killed while the first notification is held: it is in the journal, with the ladder.
    await t.ask('restart');
    await t.kill(daemon);

    t.at(5000);
    daemon = await t.start();
    await waitFor(() => t.slack.received.length === 1, 10_000, 'the held notification after the restart');
    t.at(15 * MIN);
    await waitFor(() => t.ntfy.received.length === 1, 10_000, 'the phone step');
    await t.kill(daemon);

    // Restarted after the step: it is not sent again; the next reminder comes when due, once.
    daemon = await t.start();
    t.at(20 * MIN);
    expect((await t.ladders()).active[0]!.progress).toEqual([1]);
    t.at(25 * MIN);
    await waitFor(() => t.ntfy.received.length === 2, 10_000, 'the first reminder');
    await t.kill(daemon);
    daemon = await t.start();
    t.at(35 * MIN);
    await waitFor(() => t.ntfy.received.length === 3, 10_000, 'the second reminder');
    await waitFor(async () => (await t.ladders()).active.length === 0, 10_000, 'the ladder done');
    t.at(120 * MIN);
    await t.kill(daemon);
    daemon = await t.start();
    expect((await t.ladders()).recent).toMatchObject([{ end: 'done', progress: [3] }]);
    expect(t.slack.received.length).toBe(1);
    expect(
      t.ntfy.received.map((r) => (r.json as { title: string }).title.replace(/\(.*\)/, '(...)')),
    ).toEqual([
      'Still waiting (...): needs you',
      'Still waiting (...): needs you',
      'Still waiting (...): needs you',
    ]);
    await t.kill(daemon);
  });

  it('`hookd ack` while the daemon is down is recorded in its journal: the ladder does not resume', async () => {
    const t = await setup();
    let daemon = await t.start();
    await t.ask('offline');
    t.at(5000);
    await waitFor(() => t.slack.received.length === 1, 10_000, 'the first notification');
    await t.kill(daemon);
    const acked = await runCli(['ack'], { env: t.env as Record<string, string> });
    expect(acked.code).toBe(0);
    expect(acked.stdout).toContain('acknowledged offline');
    expect(acked.stdout).toContain('the daemon is not running: recorded in its journal');
    t.at(60 * MIN);
    daemon = await t.start();
    expect(await t.ladders()).toMatchObject({ active: [], recent: [{ end: 'acked' }] });
    expect(t.ntfy.received).toEqual([]);
    await t.kill(daemon);
  });
});

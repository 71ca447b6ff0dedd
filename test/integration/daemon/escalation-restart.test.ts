import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { handOff, requestDaemon } from '../../../src/daemon/client.js';
import { fixture, handoffOf, loopbackServer, tempEnv, waitFor } from './helpers.js';
import { bundleFixture, exited, useProcessCleanup } from './process-helpers.js';

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

describe('a daemon killed in the middle of a ladder (issue 13)', () => {
  it('resumes it after a restart and sends nothing twice', async () => {
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
    const kill = async (child: ChildProcess) => {
      child.kill('SIGKILL');
      await exited(child);
    };

    let daemon = await start();
    const h = handoffOf({ ...fixture('04-Notification.json'), session_id: 'restart' });
    expect((await handOff(h, { env: t.env, timeoutMs: 5000 })).outcome).toBe('acked');
    // Killed while the first notification is held: it is in the journal, with the ladder.
    await waitFor(
      async () => {
        const r = await requestDaemon({ v: 1, type: 'ladders' }, { env: t.env, timeoutMs: 1000 });
        return r.ok && Array.isArray(r.reply.active) && r.reply.active.length === 1;
      },
      10_000,
      'the ladder',
    );
    await kill(daemon);

    at(5000);
    daemon = await start();
    await waitFor(() => slack.received.length === 1, 10_000, 'the held notification after the restart');
    at(15 * MIN);
    await waitFor(() => ntfy.received.length === 1, 10_000, 'the phone step');
    await kill(daemon);

    // Restarted after the step: it is not sent again; the next reminder comes when due, once.
    daemon = await start();
    at(20 * MIN);
    const ladders = await requestDaemon({ v: 1, type: 'ladders' }, { env: t.env, timeoutMs: 1000 });
    expect(ladders.ok && (ladders.reply.active as { progress: number[] }[])[0]!.progress).toEqual([1]);
    at(25 * MIN);
    await waitFor(() => ntfy.received.length === 2, 10_000, 'the first reminder');
    await kill(daemon);
    daemon = await start();
    at(35 * MIN);
    await waitFor(() => ntfy.received.length === 3, 10_000, 'the second reminder');
    await waitFor(
      async () => {
        const r = await requestDaemon({ v: 1, type: 'ladders' }, { env: t.env, timeoutMs: 1000 });
        return r.ok && Array.isArray(r.reply.active) && r.reply.active.length === 0;
      },
      10_000,
      'the ladder done',
    );
    at(120 * MIN);
    await kill(daemon);
    daemon = await start();
    const done = await requestDaemon({ v: 1, type: 'ladders' }, { env: t.env, timeoutMs: 1000 });
    expect(done.ok && done.reply.recent).toMatchObject([{ end: 'done', progress: [3] }]);
    expect(slack.received.length).toBe(1);
    expect(ntfy.received.map((r) => (r.json as { title: string }).title.replace(/\(.*\)/, '(...)'))).toEqual([
      'Still waiting (...): needs you',
      'Still waiting (...): needs you',
      'Still waiting (...): needs you',
    ]);
    await kill(daemon);
  });
});

import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { handOff, requestDaemon } from '../../../src/link/client.js';
import { daemonFiles, readPidFile } from '../../../src/link/runtime-files.js';
import { spoolDir } from '../../../src/paths.js';
import { fixture, handoffOf, loopbackServer, tempEnv, waitFor, type Received } from './helpers.js';
import { BIN, exited, killQuietly, spawnDaemon, writeConfig, useProcessCleanup } from './process-helpers.js';

const { pids, cleanups } = useProcessCleanup();

function eventIdOf(r: Received): string {
  return (r.json as { notification: { eventIds: string[] } }).notification.eventIds[0]!;
}

async function setup(answer?: Parameters<typeof loopbackServer>[0], daemon: Record<string, unknown> = {}) {
  const temp = tempEnv();
  cleanups.push(temp.cleanup);
  // Whatever daemon holds this test's lock (one the hooks started, too) is killed even when the test fails.
  cleanups.push(() => killQuietly(readPidFile(daemonFiles(temp.env).lock)));
  const hook = await loopbackServer(answer);
  cleanups.push(hook.close);
  writeConfig(temp.env, {
    notify: {
      waitingDelayMs: 0, // this file is not about the waiting delay (waiting-delay.test.ts is)
      channels: { ops: { type: 'webhook', url: `${hook.url}/hook` } },
      rules: [{ on: ['Notification'], channels: ['ops'], title: '{{message}}' }],
      noise: { dedupeWindowMs: 0 },
    },
    daemon: { retryBaseMs: 50, retryMaxMs: 200, spoolScanIntervalMs: 100, ...daemon },
  });
  const start = async () => {
    const child = await spawnDaemon(temp.env);
    pids.push(child.pid!);
    return child;
  };
  return { ...temp, hook, start };
}

function notificationEvent(n: number) {
  return handoffOf({ ...fixture('04-Notification.json'), message: `event ${n}` });
}

describe('the daemon as a real process', () => {
  it('SIGTERM: stops accepting, keeps undelivered work, exits 0; the next start delivers it once', async () => {
    let up = false;
    const t = await setup(() => (up ? { status: 200 } : { status: 503 }));
    const daemon = await t.start();
    const sent = Array.from({ length: 20 }, (_, n) => notificationEvent(n));
    for (const m of sent) expect((await handOff(m, { env: t.env, timeoutMs: 5000 })).outcome).toBe('acked');
    await waitFor(() => t.hook.received.length > 0, 10_000, 'a first failing attempt');
    daemon.kill('SIGTERM');
    expect(await exited(daemon)).toEqual({ code: 0, signal: null });
    const files = daemonFiles(t.env);
    expect(existsSync(files.socket)).toBe(false);
    expect(existsSync(files.lock)).toBe(false);
    // Down now: a hand-off is spooled, not lost.
    const late = notificationEvent(99);
    expect((await handOff(late, { env: t.env, timeoutMs: 300, autoStart: false })).outcome).toBe('spooled');
    up = true;
    const failed = t.hook.received.length;
    await t.start();
    await waitFor(
      () => new Set(t.hook.received.slice(failed).map(eventIdOf)).size === 21,
      20_000,
      '21 deliveries',
    );
    const delivered = t.hook.received.slice(failed).map(eventIdOf);
    expect(delivered.sort()).toEqual([...sent, late].map((m) => m.event.id).sort());
  });

  it('kill -9 in the middle of a burst of 1,000 events: after a restart every notification arrives once', async () => {
    const t = await setup();
    const daemon = await t.start();
    const sent = Array.from({ length: 1000 }, (_, n) => notificationEvent(n));
    let acked = 0;
    let killed = false;
    const outcomes: string[] = [];
    // Ten concurrent clients; the daemon is killed once a third of the events are acknowledged.
    const queue = [...sent];
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        for (let m = queue.shift(); m; m = queue.shift()) {
          const result = await handOff(m, { env: t.env, timeoutMs: 2000, autoStart: false });
          outcomes.push(result.outcome);
          if (result.outcome === 'acked' && ++acked >= 330 && !killed) {
            killed = true;
            daemon.kill('SIGKILL');
          }
        }
      }),
    );
    expect(killed).toBe(true);
    expect(outcomes.filter((o) => o === 'failed')).toEqual([]);
    expect(outcomes.filter((o) => o === 'spooled').length).toBeGreaterThan(0);
    await exited(daemon);
    // The crash left the lock, pid and socket behind: the next daemon cleans them up.
    expect(readPidFile(daemonFiles(t.env).lock)).toBe(daemon.pid);
    await t.start();
    await waitFor(
      () => new Set(t.hook.received.map(eventIdOf)).size === 1000,
      60_000,
      '1000 distinct notifications',
    );
    await new Promise((r) => setTimeout(r, 500));
    const ids = t.hook.received.map(eventIdOf);
    expect(new Set(ids)).toEqual(new Set(sent.map((m) => m.event.id)));
    // At-least-once over HTTP: only a POST in flight at the moment of the kill can be repeated, and it
    // carries the same idempotency key so the receiver can drop it.
    const keys = t.hook.received.map((r) => r.headers['idempotency-key']);
    expect(ids.length - 1000).toBeLessThanOrEqual(1);
    expect(new Set(keys).size).toBe(1000);
    expect(readdirSync(spoolDir(t.env)).filter((n) => n.endsWith('.json'))).toEqual([]);
  }, 120_000);

  it('500 `hookd hook` processes at once with the daemon down: one daemon starts, nothing is lost', async () => {
    const t = await setup(undefined, { handoffTimeoutMs: 500 });
    const messages = Array.from({ length: 500 }, (_, n) => `hook ${n} ${randomUUID()}`);
    // Each hook reads its event from a file (as from an agent that writes and closes stdin at once). A
    // separate launcher process starts them all, so this process keeps answering as the webhook receiver.
    mkdirSync(join(t.root, 'in'));
    messages.forEach((message, n) =>
      writeFileSync(
        join(t.root, 'in', `${n}.json`),
        JSON.stringify({ ...fixture('04-Notification.json'), message }),
      ),
    );
    const launcher = spawn(
      process.execPath,
      ['-e', LAUNCHER, BIN, join(t.root, 'in'), String(messages.length)],
      {
        env: t.env as NodeJS.ProcessEnv,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    pids.push(launcher.pid!);
    let report = '';
    launcher.stdout!.on('data', (c: Buffer) => (report += c.toString()));
    await exited(launcher);
    const { codes, pids: hookPids } = JSON.parse(report) as { codes: (number | null)[]; pids: number[] };
    pids.push(...hookPids);
    expect(codes.filter((c) => c !== 0)).toEqual([]);
    await waitFor(
      () => new Set(t.hook.received.map((r) => r.headers['idempotency-key'])).size >= 500,
      120_000,
      '500 notifications',
    );
    await new Promise((r) => setTimeout(r, 500));
    // At-least-once: a POST whose answer came too late is sent again, always with the same idempotency key.
    const keyOf = new Map<string, Set<unknown>>();
    for (const r of t.hook.received) {
      const title = (r.json as { notification: { title: string } }).notification.title;
      keyOf.set(title, (keyOf.get(title) ?? new Set()).add(r.headers['idempotency-key']));
    }
    expect([...keyOf.keys()].sort()).toEqual([...messages].sort());
    expect([...keyOf.values()].every((keys) => keys.size === 1)).toBe(true);
    const status = await requestDaemon({ v: 1, type: 'status' }, { env: t.env, timeoutMs: 2000 });
    expect(status.ok && status.reply.ok).toBe(true);
    const daemonPid = readPidFile(daemonFiles(t.env).lock);
    pids.push(daemonPid!);
    // Exactly one daemon: the one holding the lock answers, and no second one is left running.
    const ps = spawn('pgrep', ['-f', `${BIN} daemon run`]);
    let listed = '';
    ps.stdout.on('data', (c: Buffer) => (listed += c.toString()));
    await exited(ps);
    const running = listed
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter((pid) => {
        try {
          return readFileEnv(pid).includes(t.env.HOOKD_RUNTIME_DIR!);
        } catch {
          return false;
        }
      });
    expect(running).toEqual([daemonPid]);
  }, 240_000);
});

/** Starts N `hookd hook` processes at once, each with its event file on stdin; prints their exit codes. */
const LAUNCHER = `
const { spawn } = require('node:child_process');
const { openSync, closeSync } = require('node:fs');
const [bin, dir, count] = process.argv.slice(1);
const pids = [];
Promise.all(Array.from({ length: Number(count) }, (_, n) => new Promise((resolve) => {
  const fd = openSync(dir + '/' + n + '.json', 'r');
  const child = spawn(process.execPath, [bin, 'hook'], { stdio: [fd, 'ignore', 'ignore'] });
  closeSync(fd);
  pids.push(child.pid);
  child.on('exit', (code) => resolve(code));
}))).then((codes) => process.stdout.write(JSON.stringify({ codes, pids })));
`;

function readFileEnv(pid: number): string {
  // /proc/<pid>/environ: only daemons of this test have our temp runtime dir in their environment.
  return readFileSync(`/proc/${pid}/environ`, 'utf8');
}

import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { requestDaemon } from '../../../src/link/client.js';
import { daemonFiles, readPidFile } from '../../../src/link/runtime-files.js';
import { useFaultsSetup } from './faults-setup.js';
import { daemonSettled, fixture, waitFor } from './helpers.js';
import { BIN, exited } from './process-helpers.js';

// Heavy (500 processes): runs in `npm test`, not in the quick tier.
const { pids, setup } = useFaultsSetup();

describe('the daemon as a real process, under a crowd', () => {
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
    await daemonSettled(t.env);
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

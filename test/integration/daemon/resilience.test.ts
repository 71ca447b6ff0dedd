import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { handOff, requestDaemon } from '../../../src/link/client.js';
import { daemonFiles, readPidFile } from '../../../src/link/runtime-files.js';
import { spoolDir } from '../../../src/paths.js';
import { runCli } from '../../helpers/cli-run.js';
import { fixture, handoffOf, loopbackServer, tempEnv, waitFor } from './helpers.js';
import { ensureBuilt, exited, killQuietly, spawnDaemon, writeConfig } from './process-helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
const track = (pid: number | undefined) => cleanups.push(() => killQuietly(pid));
beforeAll(() => ensureBuilt(), 120_000);

const isRoot = process.getuid?.() === 0;
const stringEnv = (env: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as Record<string, string>;

function notificationEvent(message: string) {
  return handoffOf({ ...fixture('04-Notification.json'), message });
}

function delivery(id: string, withNextAt: boolean) {
  return {
    id,
    channel: 'ops',
    notification: {
      title: 'odd',
      body: '',
      urgency: 'normal',
      rule: 'r',
      event: 'Stop',
      eventIds: ['x'],
      count: 1,
      at: 1,
      fields: [],
    },
    createdAt: 1,
    state: 'pending',
    attempts: 0,
    ...(withNextAt ? { nextAt: 1 } : {}),
  };
}

describe('odd records read back', () => {
  it('quarantines journal lines and spool entries that are not valid records, and carries on with the rest', async () => {
    const t = tempEnv();
    cleanups.push(t.cleanup);
    cleanups.push(() => killQuietly(readPidFile(daemonFiles(t.env).lock)));
    const hook = await loopbackServer();
    cleanups.push(hook.close);
    writeConfig(t.env, {
      notify: {
        waitingDelayMs: 0, // this file is not about the waiting delay (waiting-delay.test.ts is)
        channels: { ops: { type: 'webhook', url: `${hook.url}/hook` } },
        rules: [{ on: ['Notification'], channels: ['ops'], title: '{{message}}' }],
        noise: { dedupeWindowMs: 0 },
      },
      daemon: { retryBaseMs: 50, retryMaxMs: 200, spoolScanIntervalMs: 100 },
    });
    const pendingEvent = notificationEvent('from the journal');
    const odd = [
      'null',
      '{"t":"in","at":1,"h":null}',
      '{"t":"seen","ids":null}',
      JSON.stringify({ t: 'add', d: delivery('odd/0/ops', false) }),
      '[1,2]',
    ];
    const journalDir = join(t.env.HOOKD_STATE_DIR!, 'daemon');
    mkdirSync(journalDir, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(journalDir, 'journal.jsonl'),
      [JSON.stringify({ t: 'in', at: 1, h: pendingEvent }), ...odd, ''].join('\n'),
    );
    const spool = spoolDir(t.env);
    mkdirSync(join(spool, '0000000000001-x.json'), { recursive: true });
    const spooled = notificationEvent('from the spool');
    writeFileSync(join(spool, `0000000000002-${spooled.event.id}.json`), JSON.stringify(spooled));

    const list = await runCli(['outbox', 'list', '--state', 'all', '--json'], { env: stringEnv(t.env) });
    expect(list.stderr).not.toMatch(/TypeError/);
    expect(list.code).toBe(0);
    const status = await runCli(['status', '--json'], { env: stringEnv(t.env) });
    expect(status.stderr).not.toMatch(/TypeError/);

    const daemon = await spawnDaemon(t.env);
    track(daemon.pid);
    const titles = () =>
      hook.received.map((r) => (r.json as { notification: { title: string } }).notification.title);
    await waitFor(() => titles().length >= 2, 15_000, 'both events delivered');
    expect(titles().sort()).toEqual(['from the journal', 'from the spool']);
    const quarantine = readFileSync(join(journalDir, 'journal.quarantine.jsonl'), 'utf8');
    for (const line of odd) expect(quarantine).toContain(line);
    expect(existsSync(join(spool, 'rejected', '0000000000001-x.json'))).toBe(true);
    const log = readFileSync(join(t.env.HOOKD_STATE_DIR!, 'logs', 'daemon.log'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; count?: number });
    expect(log.find((r) => r.msg.includes('quarantined'))?.count).toBe(odd.length);
  });
});

describe('a full disk', () => {
  let mount: string | undefined;
  afterAll(() => {
    // Lazy: a killed daemon may still be closing its files.
    if (mount) execFileSync('umount', ['-l', mount]);
  });

  it.runIf(isRoot)(
    'stays up, refuses hand-offs and says so, then resumes without loss or duplicates',
    async () => {
      const t = tempEnv();
      cleanups.push(t.cleanup);
      const state = t.env.HOOKD_STATE_DIR!;
      mkdirSync(state, { mode: 0o700 });
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', state]);
      mount = state;
      cleanups.push(() => {
        execFileSync('umount', ['-l', state]);
        mount = undefined;
      });
      cleanups.push(() => killQuietly(readPidFile(daemonFiles(t.env).lock)));
      // A receiver that holds its first answer until the disk is full.
      const received: string[] = [];
      let releaseFirst: (() => void) | undefined;
      const server = createServer((req, res: ServerResponse) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          received.push((JSON.parse(body) as { notification: { title: string } }).notification.title);
          if (received.length === 1) releaseFirst = () => res.end('ok');
          else res.end('ok');
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      cleanups.push(() => {
        server.closeAllConnections();
        server.close();
      });
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
      writeConfig(t.env, {
        notify: {
          waitingDelayMs: 0, // this file is not about the waiting delay (waiting-delay.test.ts is)
          channels: { ops: { type: 'webhook', url, timeoutMs: 60_000 } },
          rules: [{ on: ['Notification'], channels: ['ops'], title: '{{message}}' }],
          noise: { dedupeWindowMs: 0 },
        },
        daemon: { retryBaseMs: 50, retryMaxMs: 200, spoolScanIntervalMs: 100 },
      });
      const daemon = await spawnDaemon(t.env);
      track(daemon.pid);
      expect((await handOff(notificationEvent('A'), { env: t.env, timeoutMs: 5000 })).outcome).toBe('acked');
      await waitFor(() => releaseFirst, 10_000, 'the first POST');

      const filler = join(state, 'filler');
      try {
        execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=4k'], { stdio: 'ignore' });
      } catch {} // ENOSPC ends it: the disk is full
      releaseFirst!(); // the daemon now has a delivery to record on a full disk

      const status = async () => {
        const r = await requestDaemon({ v: 1, type: 'status' }, { env: t.env, timeoutMs: 2000 });
        return r.ok ? (r.reply.status as { journal: { error?: string } }) : undefined;
      };
      // Events until the journal's last page is full too (tmpfs allocates whole pages).
      const expected = ['A'];
      for (let n = 0; n < 30 && !(await status())?.journal.error; n++) {
        const result = await handOff(notificationEvent(`B${n}`), { env: t.env, timeoutMs: 1000 });
        // Accepted, or written once the disk has room again: either way it must arrive, once.
        if (!/not accepting events/.test(result.error ?? '')) expected.push(`B${n}`);
      }
      expect((await status())?.journal.error).toMatch(/ENOSPC|no space/i);
      const refused = await handOff(notificationEvent('E'), { env: t.env, timeoutMs: 2000 });
      expect(refused.outcome).toBe('failed'); // refused by the daemon, and the spool is on the full disk too
      expect(refused.error).toMatch(/not accepting events/);
      expect(daemon.exitCode).toBeNull();
      const shown = await runCli(['status'], { env: { ...stringEnv(t.env), NO_COLOR: '1' } });
      expect(shown.stdout).toMatch(/journal: cannot write .*new events are refused/);

      rmSync(filler);
      await waitFor(
        async () => {
          const s = await status();
          return s && !s.journal.error;
        },
        15_000,
        'the journal writable again',
      );
      expect((await handOff(notificationEvent('C'), { env: t.env, timeoutMs: 5000 })).outcome).toBe('acked');
      await waitFor(() => received.includes('C'), 15_000, 'C delivered');
      expected.push('C', 'D');

      // A restart must not send A again: D arrives after anything left over (a channel delivers in order).
      daemon.kill('SIGTERM');
      await exited(daemon);
      const again = await spawnDaemon(t.env);
      track(again.pid);
      expect((await handOff(notificationEvent('D'), { env: t.env, timeoutMs: 5000 })).outcome).toBe('acked');
      await waitFor(() => received.includes('D'), 15_000, 'D delivered');
      expect([...received].sort()).toEqual(expected.sort());
    },
  );
});

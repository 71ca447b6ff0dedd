import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon } from '../../../src/daemon/lifecycle/daemon.js';
import { daemonFiles } from '../../../src/link/runtime-files.js';
import { requestDaemon } from '../../../src/link/client.js';
import { spoolDir } from '../../../src/paths.js';
import { spoolEvent } from '../../../src/link/spool.js';
import { collectRun, runHookd } from '../../helpers/run-hookd.js';
import { NATIVE_CLIENT } from './fast-client-helpers.js';
import { fixture, handoffOf, loopbackServer, tempEnv, waitFor } from './helpers.js';

// The Node path with a daemon running: the hook leaves its event in the spool, which the daemon watches
// (no connection, no wait for the journal); the daemon takes it at once, in order with what reaches its
// sockets, and a hook that finds no live watcher connects as before.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup() {
  const temp = tempEnv();
  cleanups.push(temp.cleanup);
  const hook = await loopbackServer();
  cleanups.push(hook.close);
  const config = {
    notify: {
      waitingDelayMs: 0,
      channels: { ops: { type: 'webhook', url: `${hook.url}/hook` } },
      rules: [{ on: ['Stop'], channels: ['ops'] }],
      noise: { dedupeWindowMs: 0 },
    },
    // An hour: only the watch can bring a spooled event in within the test.
    daemon: { spoolScanIntervalMs: 3_600_000, autoStart: false },
  };
  mkdirSync(join(temp.root, 'config'), { recursive: true });
  writeFileSync(temp.env.HOOKD_CONFIG!, JSON.stringify(config));
  const env = { ...(temp.env as Record<string, string>), HOOKD_DAEMON: '1' };
  const start = async (options: { watchSpool?: boolean } = {}) => {
    const daemon = await startDaemon({ env, config, ...options });
    cleanups.push(() => daemon.close());
    return daemon;
  };
  return { env, hook, start };
}

/** The hook's own log records of its events (`hookd.log`). */
function hookRecords(env: Record<string, string>): Record<string, unknown>[] {
  const file = join(env.HOOKD_STATE_DIR!, 'logs', 'hookd.log');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"kind":"event"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The event ids in the daemon's journal, in order. */
function journaled(env: Record<string, string>): string[] {
  const file = join(env.HOOKD_STATE_DIR!, 'daemon', 'journal.jsonl');
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { t: string; h?: { event: { id: string } } })
    .flatMap((r) => (r.t === 'in' && r.h ? [r.h.event.id] : []));
}

const stop = (session: string) => JSON.stringify({ ...fixture('16-Stop.json'), session_id: session });

describe('a hook hands its event to a running daemon through the watched spool', () => {
  it('queues the event, and the watch alone brings it to the journal and the webhook', async () => {
    const t = await setup();
    await t.start();
    const files = daemonFiles(t.env);
    expect(readFileSync(files.spoolWatch, 'utf8')).toBe(`${process.pid}\n`);
    const ran = await runHookd(['hook', '--agent', 'droid'], { env: t.env, stdin: stop('queued-1') });
    expect(ran.code).toBe(0);
    expect(hookRecords(t.env).at(-1)).toMatchObject({ event: 'Stop', handoff: 'queued' });
    // No request to the daemon meanwhile (a request would take the spool first): the watch did it.
    await waitFor(() => t.hook.received.length === 1, 10_000, 'the Stop notification');
    expect(readdirSync(spoolDir(t.env)).filter((n) => n.endsWith('.json'))).toEqual([]);
  });

  it('journals what was spooled before a request that reaches the socket later, in that order', async () => {
    const t = await setup();
    // No watch and an hour between scans: only the daemon's catching up before each request can take
    // the spooled event in, so the order below holds because of it, not because a drain came first.
    await t.start({ watchSpool: false });
    // Distinct events of one session (identical ones within a second would be one event handed twice).
    const event = (id: string) =>
      handoffOf({ ...fixture('16-Stop.json'), session_id: 'order', n: id }, { id });
    spoolEvent(event('spooled-1'), t.env, false);
    const reply = await requestDaemon(event('socket-1'), { env: t.env, timeoutMs: 5000 });
    expect(reply).toMatchObject({ ok: true, reply: { ok: true, id: 'socket-1' } });
    expect(journaled(t.env)).toEqual(['spooled-1', 'socket-1']);
    // Any request, not only an event: a status counts what was spooled before it.
    spoolEvent(event('spooled-2'), t.env, false);
    const status = await requestDaemon({ v: 1, type: 'status' }, { env: t.env, timeoutMs: 5000 });
    expect(status).toMatchObject({ ok: true, reply: { status: { events: { received: 3, fromSpool: 2 } } } });
    expect(readdirSync(spoolDir(t.env)).filter((n) => n.endsWith('.json'))).toEqual([]);
    // The native client's events too: what the fast listener ran comes after what was spooled first.
    spoolEvent(event('spooled-3'), t.env, false);
    const fast = await collectRun(
      spawn(NATIVE_CLIENT, ['--agent', 'droid'], { env: { ...t.env, HOOKD_NODE: process.execPath } }),
      { stdin: JSON.stringify({ ...fixture('16-Stop.json'), session_id: 'order', n: 'fast' }) },
    );
    expect(fast.code, fast.stderr).toBe(0);
    // The fast listener hands its event over just after it answered the client.
    const ids = await waitFor(() => journaled(t.env).length === 5 && journaled(t.env), 10_000, 'five events');
    expect(ids.indexOf('spooled-3')).toBe(3);
  });

  it('connects as before when the spool-watch file is stale, and it is gone after a stop', async () => {
    const t = await setup();
    const daemon = await t.start();
    const files = daemonFiles(t.env);
    await daemon.close();
    expect(existsSync(files.spoolWatch)).toBe(false);
    // A daemon killed without cleaning up: its file stays, and nobody touches it any more.
    writeFileSync(files.spoolWatch, '999999999\n', { mode: 0o600 });
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(files.spoolWatch, old, old);
    const ran = await runHookd(['hook', '--agent', 'droid'], { env: t.env, stdin: stop('down-1') });
    expect(ran.code).toBe(0);
    expect(hookRecords(t.env).at(-1)).toMatchObject({ handoff: 'spooled' });
    // The next daemon drains it at start.
    await t.start();
    await waitFor(() => t.hook.received.length === 1, 10_000, 'the Stop notification');
  });
});

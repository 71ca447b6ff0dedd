import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../helpers/temp.js';
import { waitFor } from './helpers.js';
import { exited, stopDaemon, useProcessCleanup, writeConfig } from './process-helpers.js';
import {
  handOffEnv,
  hookLogRecords,
  journaledTags,
  fastSocket,
  signalQuietly,
  startFastDaemon,
  startHook,
  toolEvent,
  writeFastConfig,
} from './fast-client-helpers.js';

// An observe-only event (no command planned) is answered with its ACK once its in-flight record is
// written; it is run (handed off to the journal) only after the client's GO. What this must keep:
// exactly once (no GO, never run here) and durability (a daemon killed between the answer and the
// hand-off leaves the record: the next daemon journals the event, once). Real daemon processes, a raw
// protocol-2 client on a real socket where the test must stand between two protocol steps.

const { pids } = useProcessCleanup();
let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
const daemons: ChildProcess[] = [];

beforeEach(() => {
  tmp = makeTempDir('hkea-');
  // The client's wait for the ACK: long, so that a loaded machine does not send it to its fallback.
  env = handOffEnv(tmp.dir, { HOOKD_CLIENT_WAIT_S: '60' });
});
afterEach(async () => {
  for (const d of daemons.splice(0)) {
    signalQuietly(d.pid, 'SIGCONT');
    await stopDaemon(d);
  }
  tmp.cleanup();
});

async function daemon(): Promise<ChildProcess> {
  const d = await startFastDaemon(env);
  daemons.push(d);
  return d;
}

const inflight = () => join(env.HOOKD_STATE_DIR!, 'daemon', 'inflight');
const records = () =>
  existsSync(inflight()) ? readdirSync(inflight()).filter((n) => n.endsWith('.json')) : [];
const eventRecords = (tag: string) =>
  hookLogRecords(env).filter((r) => r.kind === 'event' && r.eventId !== undefined && tagOf(r) === tag);
const ids = new Map<string, string>();
const tagOf = (r: Record<string, unknown>) => [...ids].find(([, id]) => id === r.eventId)?.[0];

/** A raw protocol-2 client: greeting checked, request sent (list mode, stdin inline), replies read. */
class RawClient {
  private text = '';
  private waiters: (() => void)[] = [];
  closed = false;
  private readonly socket: Socket;
  constructor(path: string) {
    this.socket = connect(path);
    this.socket.on('data', (c: Buffer) => {
      this.text += c.toString('latin1');
      for (const w of this.waiters.splice(0)) w();
    });
    this.socket.on('error', () => {});
    this.socket.on('close', () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w();
    });
  }
  /** Resolves once what the daemon said satisfies `check` (or the connection closed). */
  async until(check: (text: string) => boolean): Promise<string> {
    while (!check(this.text) && !this.closed) await new Promise<void>((r) => this.waiters.push(r));
    return this.text;
  }
  write(data: Buffer | string): Promise<void> {
    return new Promise((done) => this.socket.write(data, () => done()));
  }
  end(): void {
    this.socket.end();
  }
  destroy(): void {
    this.socket.destroy();
  }
}

/** Connects and sends one event with `entries` as its environment, as the client does. */
async function send(stdin: Buffer, entries: Record<string, string>): Promise<RawClient> {
  const client = new RawClient(fastSocket(env));
  const head = `HOOKD-FAST 3 3\ndroid\n-\n0022\neof\n`;
  const list = Object.entries(entries).map(([k, v]) => `${k}=${v}\0`);
  await client.write(
    Buffer.concat([Buffer.from(`${head}${tmp.dir}\0-\0${list.join('')}\0`), stdin, Buffer.from('\0')]),
  );
  return client;
}

/**
 * The old order, for an event without an in-flight record: without a GO only the ACK comes (the daemon
 * writes any RESULT in the same write, before it sees the close); with one, the RESULT after the run.
 */
async function expectAnsweredAfterGo(entries: Record<string, string>, tag: string): Promise<void> {
  const nogo = await send(toolEvent(`${tag}-nogo`), entries);
  await nogo.until((t) => /^ACK [12] \S+\n/.test(t));
  nogo.end();
  expect(await nogo.until(() => false)).toMatch(/^ACK 1 \S+\n$/);
  const go = await send(toolEvent(`${tag}-go`), entries);
  await go.until((t) => /^ACK [12] \S+\n/.test(t));
  await go.write('GO\n');
  expect(await go.until(() => false)).toMatch(/^ACK 1 \S+\nRESULT 0 0 0\n$/);
}

describe('observe-only events answered at the ACK', () => {
  it('a daemon SIGKILLed after answering, before the hand-off: the next daemon journals the event once', async () => {
    writeFastConfig(env, {});
    const first = await daemon();
    const client = await send(toolEvent('ea-killed'), env);
    const answer = await client.until((t) => t.includes('RESULT 0 0 0\n'));
    const [ack, result, rest] = answer.split('\n');
    expect(ack).toMatch(/^ACK 1 \S+$/);
    expect([result, rest]).toEqual(['RESULT 0 0 0', '']);
    ids.set('ea-killed', ack!.split(' ')[2]!);
    // Answered: the record was written before the ACK.
    expect(records()).toHaveLength(1);
    // The daemon cannot have handed the event off: that waits for the GO, sent only now, to a daemon
    // that is stopped, then killed (the client has its answer and exits 0, as the real one does).
    signalQuietly(first.pid, 'SIGSTOP');
    await client.write('GO\n');
    signalQuietly(first.pid, 'SIGKILL');
    await exited(first);
    daemons.splice(0);
    client.destroy();
    expect(journaledTags(env)).not.toContain('ea-killed');
    expect(eventRecords('ea-killed')).toEqual([]);
    expect(records()).toHaveLength(1);
    // The next daemon journals it at start, once, and removes the record; a restart does not again.
    await daemon();
    expect(journaledTags(env).filter((t) => t === 'ea-killed')).toHaveLength(1);
    expect(records()).toEqual([]);
    await stopDaemon(daemons.pop());
    await daemon();
    expect(journaledTags(env).filter((t) => t === 'ea-killed')).toHaveLength(1);
  });

  it('answered at the ACK but no GO (a client that gave up): never run, never journaled, record gone', async () => {
    writeFastConfig(env, {});
    await daemon();
    const client = await send(toolEvent('ea-nogo'), env);
    const answer = await client.until((t) => t.includes('RESULT 0 0 0\n'));
    ids.set('ea-nogo', answer.split(' ')[2]!.split('\n')[0]!);
    client.end();
    await client.until(() => false); // the daemon closes its side
    await waitFor(() => records().length === 0, 10_000, 'the record dropped at the close');
    // A later event through the real client is run and journaled; the one without GO never is.
    const ran = startHook('fast', { env, cwd: tmp.dir, stdin: toolEvent('ea-next') });
    pids.push(ran.child.pid!);
    expect((await ran.done).code).toBe(0);
    await waitFor(() => journaledTags(env).includes('ea-next'), 10_000, 'the next event journaled');
    expect(journaledTags(env)).not.toContain('ea-nogo');
    expect(eventRecords('ea-nogo')).toEqual([]);
  });

  it('through the real client: exit 0, silent, handed off once, no record left', async () => {
    writeFastConfig(env, {});
    await daemon();
    for (const tag of ['ea-c1', 'ea-c2', 'ea-c3']) {
      const ran = startHook('fast', { env, cwd: tmp.dir, stdin: toolEvent(tag) });
      pids.push(ran.child.pid!);
      const done = await ran.done;
      expect({ code: done.code, stdout: done.stdout.length, stderr: done.stderr.toString() }).toEqual({
        code: 0,
        stdout: 0,
        stderr: '',
      });
    }
    await waitFor(() => journaledTags(env).length === 3, 10_000, 'three events journaled');
    expect(journaledTags(env).sort()).toEqual(['ea-c1', 'ea-c2', 'ea-c3']);
    await waitFor(() => records().length === 0, 10_000, 'the records removed after the hand-off');
  });

  it('without a record (the hand-off is off for the event): answered only after GO, as before', async () => {
    writeFastConfig(env, {});
    await daemon();
    await expectAnsweredAfterGo({ ...env, HOOKD_DAEMON: '0' }, 'ea-off');
    expect(records()).toEqual([]);
  });

  it('without a record (it cannot be written): answered only after GO, and the event still handed off', async () => {
    writeFastConfig(env, {});
    // The in-flight folder is a file: the record cannot be written (the daemon warns, starts).
    mkdirSync(join(env.HOOKD_STATE_DIR!, 'daemon'), { recursive: true, mode: 0o700 });
    writeFileSync(inflight(), 'not a folder', { mode: 0o600 });
    await daemon();
    await expectAnsweredAfterGo(env, 'ea-nr');
    // Answered after its hand-off: journaled by the time the answer came.
    expect(journaledTags(env)).toEqual(['ea-nr-go']);
  });

  it('a config edit is seen by the very next event of a project dir (the memo checks the files)', async () => {
    const runs = join(tmp.dir, 'runs');
    const hooks = (word: string) => ({
      PostToolUse: [{ hooks: [{ type: 'command', command: `echo ${word} >> "$RUNS"` }] }],
    });
    writeFastConfig(env, hooks('one'));
    await daemon();
    const fire = async (tag: string) => {
      const ran = startHook('fast', {
        env: { ...env, RUNS: runs },
        cwd: tmp.dir,
        stdin: toolEvent(tag, { cwd: tmp.dir }),
      });
      pids.push(ran.child.pid!);
      expect((await ran.done).code).toBe(0);
    };
    await fire('ea-cfg1');
    await fire('ea-cfg2');
    // Same size: only the file's times (and its ctime) change.
    writeFastConfig(env, hooks('two'));
    await fire('ea-cfg3');
    writeConfig(env, { daemon: { fastListener: true, autoStart: false }, hooks: hooks('three') });
    await fire('ea-cfg4');
    expect(readFileSync(runs, 'utf8')).toBe('one\none\ntwo\nthree\n');
  });
});

import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFastServer, type FastServer } from '../../../src/daemon/listen/fast-server.js';
import { createDaemonLogger } from '../../../src/daemon/lifecycle/logger.js';
import type { EventHandoff } from '../../../src/events/types.js';
import type { HandOffResult } from '../../../src/hook-path/hand-off.js';
import { makeTempDir } from '../../helpers/temp.js';
import { waitFor } from './helpers.js';
import { useProcessCleanup } from './process-helpers.js';
import {
  handOffEnv,
  hookLogRecords,
  onToolEvents,
  startHook,
  toolEvent,
  writeFastConfig,
} from './fast-client-helpers.js';

// When the fast listener answers, relative to the event's hand-off (rules, ledger, journal): with the
// event's in-flight record kept, the answer does not wait for the hand-off (a daemon killed before it
// leaves the record, fast-path-early-answer.test.ts); without one, it does. The listener runs in this
// process with the hand-off injected (an edge) and held until the test lets it go; the client is the
// real bash client, the commands real processes.

const { pids } = useProcessCleanup();
let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let server: FastServer | undefined;
const held: { message: EventHandoff; release: (r: HandOffResult) => void }[] = [];

beforeEach(() => {
  tmp = makeTempDir('hkao-');
  env = handOffEnv(tmp.dir, { HOOKD_CLIENT_WAIT_S: '60' });
  mkdirSync(env.HOOKD_RUNTIME_DIR!, { recursive: true, mode: 0o700 });
  held.length = 0;
});
afterEach(async () => {
  for (const h of held.splice(0)) h.release({ outcome: 'acked' });
  await server?.close();
  server = undefined;
  tmp.cleanup();
});

const inflightDir = () => join(tmp.dir, 'inflight');
const records = () =>
  existsSync(inflightDir()) ? readdirSync(inflightDir()).filter((n) => n.endsWith('.json')) : [];
const eventLogged = () => hookLogRecords(env).filter((r) => r.kind === 'event').length;

async function listen(keepRecords: boolean): Promise<void> {
  server = await startFastServer({
    env,
    runtimeDir: env.HOOKD_RUNTIME_DIR!,
    logger: createDaemonLogger(env),
    stopping: () => false,
    handOff: (message) => new Promise((release) => held.push({ message, release })),
    ...(keepRecords ? { inflightDir: inflightDir() } : {}),
  });
}

function client(tag: string) {
  const runs = join(tmp.dir, 'runs');
  const run = startHook('fast', { env: { ...env, RUNS: runs }, cwd: tmp.dir, stdin: toolEvent(tag) });
  pids.push(run.child.pid!);
  let exited = false;
  void run.done.then(() => (exited = true));
  return { ...run, runs, exited: () => exited };
}

describe('the fast answer and the hand-off', () => {
  it('with a record: a command event is answered once its command ran, while its hand-off is held', async () => {
    writeFastConfig(env, onToolEvents('echo ran >> "$RUNS"'));
    await listen(true);
    const c = client('ao-cmd');
    const done = await c.done;
    expect({ code: done.code, stderr: done.stderr.toString() }).toEqual({ code: 0, stderr: '' });
    expect(readFileSync(c.runs, 'utf8')).toBe('ran\n');
    // The client has its answer; the hand-off is still held, so the record is there.
    await waitFor(() => held.length === 1, 10_000, 'the hand-off');
    expect(held[0]!.message.results).toHaveLength(1);
    expect(records()).toHaveLength(1);
    expect(eventLogged()).toBe(0);
    held.splice(0)[0]!.release({ outcome: 'acked' });
    await waitFor(() => records().length === 0 && eventLogged() === 1, 10_000, 'the record dropped');
  });

  it('with a record: an observe-only event is answered at its ACK, handed off after', async () => {
    writeFastConfig(env, {});
    await listen(true);
    const c = client('ao-observe');
    expect((await c.done).code).toBe(0);
    await waitFor(() => held.length === 1, 10_000, 'the hand-off');
    expect(records()).toHaveLength(1);
    held.splice(0)[0]!.release({ outcome: 'acked' });
    await waitFor(() => records().length === 0, 10_000, 'the record dropped');
  });

  it('without a record: the answer waits for the hand-off', async () => {
    writeFastConfig(env, onToolEvents('echo ran >> "$RUNS"'));
    await listen(false);
    const c = client('ao-norecord');
    await waitFor(() => held.length === 1, 10_000, 'the hand-off');
    // The command ran and the hand-off is held: the client is still waiting for its answer.
    expect(readFileSync(c.runs, 'utf8')).toBe('ran\n');
    expect(c.exited()).toBe(false);
    held.splice(0)[0]!.release({ outcome: 'acked' });
    const done = await c.done;
    expect({ code: done.code, stderr: done.stderr.toString() }).toEqual({ code: 0, stderr: '' });
  });
});

import { mkdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startFastServer, type FastServer } from '../../../src/daemon/listen/fast-server.js';
import { createDaemonLogger } from '../../../src/daemon/lifecycle/logger.js';
import { makeTempDir } from '../../helpers/temp.js';
import { handOffEnv, onToolEvents, toolEvent, writeFastConfig } from './fast-client-helpers.js';

// The listener's time limit is per step: from connect to the whole request, then afresh from the ACK to
// GO. A request that used most of its limit must not have its acknowledged event dropped by the timer
// once the ACK is out (the client may have sent GO and counts on the daemon). The listener runs in this
// process; only its timers are faked (sockets and the command are real), so the test moves the clock
// instead of waiting for it.

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let server: FastServer | undefined;
const LIMIT = 10_000;

beforeEach(() => {
  tmp = makeTempDir('hkgt-');
  env = handOffEnv(tmp.dir);
  mkdirSync(env.HOOKD_RUNTIME_DIR!, { recursive: true, mode: 0o700 });
});
afterEach(async () => {
  vi.useRealTimers();
  await server?.close();
  server = undefined;
  tmp.cleanup();
});

/** The next complete line from the socket (event-driven: the faked timers cannot stall it). */
function lines(socket: Socket): { next: () => Promise<string | undefined> } {
  let buf = '';
  let ended = false;
  const waiting: (() => void)[] = [];
  const wake = () => waiting.splice(0).forEach((w) => w());
  socket.on('data', (c: Buffer) => {
    buf += c.toString('latin1');
    wake();
  });
  socket.on('close', () => {
    ended = true;
    wake();
  });
  socket.on('error', () => {});
  return {
    next: async () => {
      for (;;) {
        const nl = buf.indexOf('\n');
        if (nl >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          return line;
        }
        if (ended) return undefined;
        await new Promise<void>((r) => waiting.push(r));
      }
    },
  };
}

async function ackedLate(limits: { requestTimeoutMs: number; goTimeoutMs?: number }, handOff: () => void) {
  writeFastConfig(env, onToolEvents('true'));
  server = await startFastServer({
    env,
    runtimeDir: env.HOOKD_RUNTIME_DIR!,
    logger: createDaemonLogger(env),
    stopping: () => false,
    handOff: async () => {
      handOff();
      return { outcome: 'acked' };
    },
    limits,
  });
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const socket = connect(server.socket);
  const read = lines(socket);
  await new Promise<void>((r) => socket.once('connect', () => r()));
  // Most of the request's limit goes by before the request is complete.
  vi.advanceTimersByTime(LIMIT - 100);
  const body = toolEvent('late');
  socket.write(
    Buffer.concat([
      Buffer.from(`HOOKD-FAST 3 3\ndroid\n-\n0022\neof\n${tmp.dir}\0-\0PATH=${process.env.PATH}\0\0`),
      body,
      Buffer.from('\0'),
    ]),
  );
  expect(await read.next()).toMatch(/^ACK 1 \S+$/);
  return { socket, read };
}

describe('the fast listener time limit', () => {
  it('a fresh, longer limit from the ACK: an event acknowledged late in its request limit still runs at GO', async () => {
    let handedOff = 0;
    const { socket, read } = await ackedLate({ requestTimeoutMs: LIMIT }, () => handedOff++);
    // Past the request's limit several times over, within the one from the ACK to GO.
    vi.advanceTimersByTime(LIMIT * 5);
    vi.useRealTimers();
    socket.write('GO\n');
    expect(await read.next()).toBe('RESULT 0 0 0');
    expect(handedOff).toBe(1);
    socket.destroy();
  });

  it('no GO within its limit: the connection is closed and the event is not run here', async () => {
    let handedOff = 0;
    const { socket, read } = await ackedLate(
      { requestTimeoutMs: LIMIT, goTimeoutMs: LIMIT },
      () => handedOff++,
    );
    vi.advanceTimersByTime(LIMIT + 1);
    vi.useRealTimers();
    expect(await read.next()).toBeUndefined();
    expect(handedOff).toBe(0);
    socket.destroy();
  });
});

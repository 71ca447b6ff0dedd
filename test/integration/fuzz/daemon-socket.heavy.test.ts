import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestDaemon } from '../../../src/link/client.js';
import { tempEnv } from '../daemon/helpers.js';
import { ensureBuilt, spawnDaemon, stopDaemon, writeConfig } from '../daemon/process-helpers.js';
import { fuzzOptions } from './arbitraries.js';

// A real `hookd daemon run`, fed hostile bytes on its socket with a fixed seed: after each, it still
// answers a ping. The daemon never stops because of what a peer sends.

let h: ReturnType<typeof tempEnv>;
let daemon: ChildProcess | undefined;

beforeAll(async () => {
  ensureBuilt();
  h = tempEnv();
  writeConfig(h.env, { notify: { enabled: false } });
  daemon = await spawnDaemon(h.env);
}, 60_000);
afterAll(async () => {
  await stopDaemon(daemon);
  h.cleanup();
});

/** Writes the bytes, then waits for the daemon to answer or close (at most a second), then closes. */
function send(bytes: Buffer): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(join(h.env.HOOKD_RUNTIME_DIR!, 'hookd.sock'));
    const done = () => {
      socket.destroy();
      resolve();
    };
    socket.on('error', done);
    socket.on('data', done);
    socket.on('close', done);
    socket.setTimeout(1000, done);
    socket.on('connect', () => socket.end(bytes));
  });
}

const hostileLine = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
  fc.json().map((text) => Buffer.from(`${text}\n`)),
  fc
    .record(
      {
        v: fc.oneof(fc.constant(1), fc.jsonValue({ maxDepth: 1 })),
        type: fc.oneof(
          fc.constantFrom('event', 'ping', 'status', 'noise', 'outbox', 'shutdown!'),
          fc.string(),
        ),
        event: fc.jsonValue({ maxDepth: 4 }),
      },
      { requiredKeys: ['v', 'type'] },
    )
    .map((r) => Buffer.from(`${JSON.stringify(r)}\n`)),
  fc
    .integer({ min: 1000, max: 50_000 })
    .map((n) => Buffer.from(`{"v":1,"type":"event","event":${'['.repeat(n)}`)),
);

describe('the daemon under hostile peers (fast-check, fixed seed)', () => {
  it('answers a ping after every hostile request', async () => {
    await fc.assert(
      fc.asyncProperty(hostileLine, async (bytes) => {
        await send(bytes);
        const ping = await requestDaemon({ v: 1, type: 'ping' }, { env: h.env, timeoutMs: 5000 });
        expect(ping.ok && ping.reply.ok).toBe(true);
        expect(daemon?.exitCode).toBe(null);
      }),
      fuzzOptions(80),
    );
  }, 240_000);
});

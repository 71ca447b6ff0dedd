import { request, type ClientRequest } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readHttpToken } from '../../../src/daemon/http-credential.js';
import { startHttpHooks, type HttpHooksServer } from '../../../src/daemon/http-hooks.js';
import { createDaemonLogger } from '../../../src/daemon/logger.js';
import type { EventHandoff } from '../../../src/events/types.js';
import { jsonLines } from '../../helpers/json-lines.js';
import { waitFor } from '../../helpers/procs.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';

// The http hook listener in this process, with the hand-off to ingest injected (an edge): memory stays
// bounded whatever local peers send, because the bodies held at once, across requests, have a budget.

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let server: HttpHooksServer;
const taken: EventHandoff[] = [];

beforeEach(async () => {
  tmp = makeTempDir('hkl-');
  env = isolatedEnv(tmp.dir);
  taken.length = 0;
  server = await startHttpHooks({
    env,
    port: 0,
    logger: createDaemonLogger(env),
    heldConfig: () => undefined,
    stopping: () => false,
    maxInflightBytes: 64 * 1024,
    handOff: async (message) => {
      taken.push(message);
      return { outcome: 'acked' };
    },
  });
});
afterEach(async () => {
  await server.close();
  tmp.cleanup();
});

const token = () => readHttpToken(env).token!;
function open(length: number): { req: ClientRequest; answer: Promise<number> } {
  let req!: ClientRequest;
  const answer = new Promise<number>((resolve, reject) => {
    req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: '/hookd/v1/claude',
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': length,
          authorization: `Bearer ${token()}`,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
  });
  return { req, answer };
}
/** An event padded to `size` bytes of JSON. */
const event = (id: string, size: number) => {
  const base = JSON.stringify({ session_id: id, cwd: tmp.dir, hook_event_name: 'Stop', pad: '' });
  return Buffer.from(base.replace('"pad":""', `"pad":"${'x'.repeat(size - base.length)}"`));
};

describe('http hook listener: bounded memory', () => {
  it('refuses a request as busy (503, logged) while others hold the budget, and takes it once they are done', async () => {
    const held = event('s-held', 48 * 1024);
    const first = open(held.length);
    first.req.write(held.subarray(0, 40 * 1024)); // held, unfinished

    // The held bytes reach the listener in their own time: ask until a second body does not fit.
    let status = 0;
    for (let i = 0; i < 200 && status !== 503; i++) {
      const body = event(`s-${i}`, 40 * 1024);
      const second = open(body.length);
      second.req.end(body);
      status = await second.answer;
    }
    expect(status).toBe(503);
    await waitFor(() =>
      jsonLines(join(env.XDG_STATE_HOME!, 'hookd', 'logs', 'daemon.log')).some(
        (r) => r.kind === 'http-hook' && r.status === 503 && r.reason === 'busy',
      ),
    );

    first.req.end(held.subarray(40 * 1024));
    expect(await first.answer).toBe(200);
    expect(taken.some((m) => m.event.sessionId === 's-held')).toBe(true);
    const after = event('s-after', 40 * 1024);
    const third = open(after.length);
    third.req.end(after);
    expect(await third.answer).toBe(200);
  });
});

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { EventHandoff, HookEvent } from '../../../src/events/types.js';
import { FIXTURES_DIR } from '../../helpers/fixtures.js';
import type { RenderedNotification } from '../../../src/notify/notification.js';
import type { DeliveryContext } from '../../../src/channels/channel.js';
import { handOff, requestDaemon } from '../../../src/link/client.js';
import { waitFor } from '../../helpers/wait.js';

/** Short temp dirs (unix socket paths are limited to ~107 bytes) and the env that points hookd at them. */
export function tempEnv(): { root: string; env: Record<string, string | undefined>; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'hkd-'));
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: root,
    HOOKD_RUNTIME_DIR: join(root, 'run'),
    HOOKD_STATE_DIR: join(root, 'state'),
    HOOKD_DATA_DIR: join(root, 'data'),
    HOOKD_CONFIG: join(root, 'config', 'config.json'),
  };
  return { root, env, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  json: unknown;
  at: number;
}

export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

/** A loopback HTTP server standing in for Slack or a webhook receiver; answers are scripted per request. */
export async function loopbackServer(
  answer: (req: Received, index: number) => Answer = () => ({ status: 200, body: 'ok' }),
) {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {}
      const record: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        json,
        at: Date.now(),
      };
      const index = received.push(record) - 1;
      const a = answer(record, index);
      if (a === 'hang') {
        hanging.push(res);
        return;
      }
      res.writeHead(a.status, { 'content-type': 'text/plain', ...a.headers });
      res.end(a.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    received,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const FIXTURES = join(FIXTURES_DIR, 'jsonrpc');

export function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as Record<string, unknown>;
}

/** An event as `hookd hook` hands it over, from a payload. */
export function handoffOf(
  payload: Record<string, unknown>,
  overrides: Partial<HookEvent> = {},
): EventHandoff {
  return {
    v: 1,
    type: 'event',
    event: {
      id: randomUUID(),
      receivedAt: Date.now(),
      agent: 'droid',
      name: String(payload.hook_event_name ?? 'Unknown'),
      ...(typeof payload.session_id === 'string' ? { sessionId: payload.session_id } : {}),
      ...(typeof payload.cwd === 'string' ? { cwd: payload.cwd } : {}),
      payload,
      ...overrides,
    },
    results: [],
  };
}

export { waitFor };

/** A minimal notification and delivery context for sending through one channel directly. */
export const plainNotification: RenderedNotification = {
  title: 't',
  body: 'b',
  urgency: 'normal',
  rule: 'r',
  event: 'Stop',
  eventIds: ['e1'],
  count: 1,
  at: 0,
  fields: [],
};
export const plainContext: DeliveryContext = {
  deliveryId: 'e1/0/x',
  attempt: 1,
  threads: { get: () => undefined, set: async () => {} },
};

/**
 * Waits until a daemon's outbox has nothing pending or held, moving an injected clock as it waits (retries
 * and held notifications wait on that clock). `state.daemon` may be replaced by a restart meanwhile.
 */
export function outboxSettled(
  state: { daemon: { stats(): { outbox: { pending: number; held: number } } } },
  clock: { now: number },
  stepMs: number,
): Promise<true> {
  return waitFor(
    () => {
      clock.now += stepMs;
      const { outbox } = state.daemon.stats();
      return outbox.pending === 0 && outbox.held === 0;
    },
    10_000,
    'outbox empty',
  );
}

/**
 * Waits until a daemon running as its own process (its socket in `env`) has processed every event it took
 * and has nothing pending or held in its outbox: after that it sends nothing more by itself, so what a
 * receiver got can be counted, duplicates included.
 */
export function daemonSettled(env: Record<string, string | undefined>, timeoutMs = 20_000): Promise<true> {
  return waitFor(
    async () => {
      const reply = await requestDaemon({ v: 1, type: 'status' }, { env, timeoutMs: 1000 });
      if (!reply.ok) return false;
      const { events, outbox } = reply.reply.status as {
        events: { pending: number };
        outbox: { pending: number; held: number };
      };
      return events.pending === 0 && outbox.pending === 0 && outbox.held === 0;
    },
    timeoutMs,
    "the daemon's events processed and its outbox empty",
  );
}

/**
 * A sender of recorded events (a fixture with fields changed) to an in-process daemon: each is handed
 * off and processed before it resolves (with the event's id). `daemon` is read at each send (a test may
 * restart it).
 */
export function eventSender(
  env: Record<string, string | undefined>,
  daemon: () => { stats(): { events: { pending: number } } },
) {
  return async (file: string, payload: Record<string, unknown>): Promise<string> => {
    const h = handoffOf({ ...fixture(file), ...payload });
    const outcome = (await handOff(h, { env, timeoutMs: 5000 })).outcome;
    if (outcome !== 'acked') throw new Error(`${file}: the daemon did not take it (${outcome})`);
    await waitFor(() => daemon().stats().events.pending === 0, 10_000, `${file} processed`);
    return h.event.id;
  };
}

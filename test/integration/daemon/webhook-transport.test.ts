import { afterEach, describe, expect, it } from 'vitest';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { createWebhookChannel } from '../../../src/channels/webhook.js';
import { notifySchema } from '../../../src/config/schemas/notify-schema.js';
import type { RenderedNotification } from '../../../src/notify/notification.js';
import type { DeliveryContext } from '../../../src/channels/channel.js';

// The channels' own HTTP transport (src/channels/node-http.ts: node:http with kept-alive
// connections instead of fetch), against real loopback servers.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const notification: RenderedNotification = {
  title: 'demo: finished',
  body: 'done',
  urgency: 'normal',
  rule: 'rule-0',
  event: 'Stop',
  eventIds: ['e1'],
  count: 1,
  at: Date.UTC(2026, 0, 1),
  fields: [],
};
const context = (deliveryId: string): DeliveryContext => ({
  deliveryId,
  attempt: 1,
  threads: { get: () => undefined, set: async () => {} },
});

function webhook(url: string) {
  const config = notifySchema.parse({ channels: { x: { type: 'webhook', url, timeoutMs: 10_000 } } }).channels
    .x!;
  if (config.type !== 'webhook') throw new Error('unexpected');
  return createWebhookChannel('ops', config);
}

interface Seen {
  url: string;
  connection: number;
  delivery: string;
  body: string;
}

/** An HTTP server that records each request with the number of the connection it came on. */
async function countingServer(answer: (seen: Seen) => { status: number; headers?: Record<string, string> }) {
  const seen: Seen[] = [];
  let connections = 0;
  const ids = new WeakMap<Socket, number>();
  const server: Server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const record = {
        url: req.url ?? '',
        connection: ids.get(req.socket) ?? -1,
        delivery: String(req.headers['x-hookd-delivery']),
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(record);
      const a = answer(record);
      res.writeHead(a.status, { 'content-type': 'text/plain', ...a.headers });
      res.end('ok');
    });
  });
  server.on('connection', (socket: Socket) => ids.set(socket, ++connections));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${port}`, seen, connections: () => connections };
}

describe('the channels HTTP transport', () => {
  it('sends one notification after another on the same kept-alive connection', async () => {
    const server = await countingServer(() => ({ status: 200 }));
    const channel = webhook(`${server.url}/hook`);
    for (const id of ['e1/0/ops', 'e2/0/ops', 'e3/0/ops'])
      expect(await channel.send(notification, context(id))).toMatchObject({ ok: true, ref: id });
    expect(server.seen.map((s) => [s.delivery, s.connection])).toEqual([
      ['e1/0/ops', 1],
      ['e2/0/ops', 1],
      ['e3/0/ops', 1],
    ]);
    expect(JSON.parse(server.seen[2]!.body)).toMatchObject({ id: 'e3/0/ops', channel: 'ops' });
  });

  it('a kept-alive connection the server drops as the next POST goes out: sent again on a new one, delivered', async () => {
    // A raw server: the first connection answers its first request with keep-alive, then drops the
    // connection when the second request arrives on it, without answering (a server closing an idle
    // connection as the client reuses it). Later connections answer every request.
    const requests: { connection: number; delivery: string }[] = [];
    let connections = 0;
    const sockets = new Set<Socket>();
    const server = createTcpServer((socket) => {
      const connection = ++connections;
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
      let buffer = '';
      let served = 0;
      socket.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('latin1');
        for (;;) {
          const end = buffer.indexOf('\r\n\r\n');
          if (end < 0) return;
          const head = buffer.slice(0, end);
          const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
          if (buffer.length < end + 4 + length) return;
          buffer = buffer.slice(end + 4 + length);
          const delivery = /x-hookd-delivery:\s*(\S+)/i.exec(head)?.[1] ?? '?';
          requests.push({ connection, delivery });
          served++;
          if (connection === 1 && served === 2) {
            socket.destroy();
            return;
          }
          socket.write(
            'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: keep-alive\r\nKeep-Alive: timeout=30\r\n\r\nok',
          );
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    const { port } = server.address() as { port: number };
    const channel = webhook(`http://127.0.0.1:${port}/hook`);
    expect(await channel.send(notification, context('e1/0/ops'))).toMatchObject({ ok: true });
    expect(await channel.send(notification, context('e2/0/ops'))).toMatchObject({ ok: true });
    // The second POST went out on the kept-alive connection, was dropped, and was sent once more.
    expect(requests).toEqual([
      { connection: 1, delivery: 'e1/0/ops' },
      { connection: 1, delivery: 'e2/0/ops' },
      { connection: 2, delivery: 'e2/0/ops' },
    ]);
  });

  it('a redirect is followed as fetch follows it (a 307 keeps the POST and its body)', async () => {
    const server = await countingServer((s) =>
      s.url === '/old' ? { status: 307, headers: { location: '/new' } } : { status: 200 },
    );
    const result = await webhook(`${server.url}/old`).send(notification, context('e1/0/ops'));
    expect(result).toMatchObject({ ok: true });
    const landed = server.seen.filter((s) => s.url === '/new');
    expect(landed).toHaveLength(1);
    expect(JSON.parse(landed[0]!.body)).toMatchObject({ id: 'e1/0/ops' });
    // The redirecting URL saw the POST from the transport, then from fetch, which followed it.
    expect(server.seen.filter((s) => s.url === '/old')).toHaveLength(2);
  });

  it('a refused connection is a retryable failure naming the cause, not the URL path', async () => {
    const probe = createTcpServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const result = await webhook(`http://127.0.0.1:${port}/secret-path`).send(
      notification,
      context('e1/0/ops'),
    );
    expect(result).toMatchObject({
      ok: false,
      retryable: true,
      error: expect.stringContaining('ECONNREFUSED'),
    });
    expect(JSON.stringify(result)).not.toContain('secret-path');
  });
});

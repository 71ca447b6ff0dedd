import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A small ntfy-compatible server on loopback, for tests: publish (POST / as JSON, or POST /<topic> with
 * a text body), the JSON stream subscription (GET /<topic>/json, `since=<id>|<unix time>`), and access
 * control by bearer token (each token may read and write listed topics; every other request gets 403).
 * It records every message, and `press` performs a message's `http` action as the ntfy app would.
 * `holdSubscriptions` keeps new subscriptions waiting, unanswered, until released: what is published
 * meanwhile reaches a subscriber only through its `since=`.
 */

export interface NtfyMessage {
  id: string;
  time: number;
  event: 'message';
  topic: string;
  title?: string;
  message: string;
  priority?: number;
  tags?: string[];
  actions?: NtfyAction[];
}

export interface NtfyAction {
  action: string;
  label: string;
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  clear?: boolean;
}

export interface NtfyAccess {
  read: string[];
  write: string[];
}

export interface LoopbackNtfy {
  url: string;
  messages(topic?: string): NtfyMessage[];
  /** Subscriptions open now. */
  subscribers(): number;
  /** Cuts every open subscription (a dropped connection; the client must reconnect). */
  dropSubscribers(): void;
  /** From now on a new subscription waits, unanswered, until the returned function is called. */
  holdSubscriptions(): () => void;
  /** Subscriptions waiting to be answered now. */
  heldSubscribers(): number;
  /** Performs the `http` action labelled `label` of `message`, as the phone does; returns the status. */
  press(message: NtfyMessage, label: string): Promise<number>;
  /** Publishes to a topic as some client would (text body), with this token. */
  post(topic: string, body: string, token: string | undefined): Promise<number>;
  close(): Promise<void>;
}

export async function startLoopbackNtfy(tokens: Record<string, NtfyAccess>): Promise<LoopbackNtfy> {
  const messages: NtfyMessage[] = [];
  const streams = new Set<{ topic: string; res: ServerResponse }>();
  /** Subscriptions kept waiting while `holding`: each opens its stream when released. */
  const held = new Set<() => void>();
  let holding = false;
  const sockets = new Set<Socket>();
  let next = 0;

  const access = (req: IncomingMessage): NtfyAccess | undefined => {
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : undefined;
    return token !== undefined ? tokens[token] : undefined;
  };
  const deny = (res: ServerResponse, status = 403) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ code: status * 100 + 3, http: status, error: 'forbidden' }));
  };
  const publish = (message: Omit<NtfyMessage, 'id' | 'time' | 'event'>): NtfyMessage => {
    const full: NtfyMessage = {
      id: `m${String(++next).padStart(6, '0')}`,
      time: Math.floor(Date.now() / 1000),
      event: 'message',
      ...message,
    };
    messages.push(full);
    for (const stream of streams)
      if (stream.topic === full.topic) stream.res.write(`${JSON.stringify(full)}\n`);
    return full;
  };

  /** Answers a subscription: `open`, the messages its `since=` asks for, then every new one. */
  const subscribe = (topic: string, url: URL, res: ServerResponse) => {
    res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
    res.write(
      `${JSON.stringify({ id: 'open', time: Math.floor(Date.now() / 1000), event: 'open', topic })}\n`,
    );
    const since = url.searchParams.get('since');
    if (since !== null) {
      const byId = messages.findIndex((m) => m.id === since);
      const earlier =
        byId >= 0
          ? messages.slice(byId + 1)
          : /^\d+$/.test(since)
            ? messages.filter((m) => m.time >= Number(since))
            : [];
      for (const m of earlier) if (m.topic === topic) res.write(`${JSON.stringify(m)}\n`);
    }
    const stream = { topic, res };
    streams.add(stream);
    res.on('close', () => streams.delete(stream));
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const path = url.pathname.replace(/^\/+/, '');
      const who = access(req);
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'GET' && /^[-_A-Za-z0-9]+\/json$/.test(path)) {
        const topic = path.slice(0, -'/json'.length);
        if (!who?.read.includes(topic)) return deny(res);
        if (holding) {
          const release = () => {
            held.delete(release);
            if (!res.destroyed) subscribe(topic, url, res);
          };
          held.add(release);
          res.on('close', () => held.delete(release));
          return;
        }
        subscribe(topic, url, res);
        return;
      }
      if (req.method === 'POST' && path === '') {
        let json: Record<string, unknown>;
        try {
          json = JSON.parse(body) as Record<string, unknown>;
        } catch {
          res.writeHead(400);
          return res.end('{"error":"bad json"}');
        }
        const topic = String(json.topic ?? '');
        if (!who?.write.includes(topic)) return deny(res);
        const message = publish({
          topic,
          message: String(json.message ?? ''),
          ...(typeof json.title === 'string' ? { title: json.title } : {}),
          ...(typeof json.priority === 'number' ? { priority: json.priority } : {}),
          ...(Array.isArray(json.tags) ? { tags: json.tags as string[] } : {}),
          ...(Array.isArray(json.actions) ? { actions: json.actions as NtfyAction[] } : {}),
        });
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return res.end(JSON.stringify(message));
      }
      if ((req.method === 'POST' || req.method === 'PUT') && /^[-_A-Za-z0-9]+$/.test(path)) {
        if (!who?.write.includes(path)) return deny(res);
        const message = publish({ topic: path, message: body });
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return res.end(JSON.stringify(message));
      }
      res.writeHead(404);
      res.end('{"error":"not found"}');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    messages: (topic) => messages.filter((m) => topic === undefined || m.topic === topic),
    subscribers: () => streams.size,
    dropSubscribers: () => {
      for (const stream of [...streams]) {
        streams.delete(stream);
        stream.res.destroy();
      }
    },
    holdSubscriptions: () => {
      holding = true;
      return () => {
        holding = false;
        for (const release of [...held]) release();
      };
    },
    heldSubscribers: () => held.size,
    press: async (message, label) => {
      const action = message.actions?.find((a) => a.label === label);
      if (!action || action.action !== 'http') throw new Error(`no http action "${label}" in ${message.id}`);
      const response = await fetch(action.url, {
        method: action.method ?? 'POST',
        headers: action.headers ?? {},
        body: action.body ?? '',
      });
      await response.arrayBuffer();
      return response.status;
    },
    post: async (topic, body, token) => {
      const response = await fetch(`${url}/${topic}`, {
        method: 'POST',
        headers: token ? { Authorization: `Bearer ${token}` } : {},
        body,
      });
      await response.arrayBuffer();
      return response.status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const stream of streams) stream.res.destroy();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

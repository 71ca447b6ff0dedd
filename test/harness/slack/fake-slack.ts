import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

/**
 * A fake Slack on 127.0.0.1 for the Slack answer channel: the Web API methods it calls
 * (`apps.connections.open` with the app-level token, `chat.postMessage` and `chat.update` with the bot
 * token) over HTTP, and a websocket server that plays Socket Mode: each URL is a single-use ticket, a new
 * link gets `hello`, the test sends envelopes (and reads the acks), asks for a refresh, sends hostile
 * frames, or takes the whole thing down.
 */

export const FAKE_APP_TOKEN = 'xapp-1-A0TEST-0000-fakeapptoken';
export const FAKE_BOT_TOKEN = 'xoxb-0000-fakebottoken';
export const FAKE_CHANNEL_ID = 'C0FAKE01';

export interface ApiCall {
  method: string;
  /** The bearer token it came with. */
  token: string;
  body: Record<string, unknown>;
}

export interface FakeMessage {
  channel: string;
  ts: string;
  /** What chat.postMessage and each chat.update sent, in order (the last is what Slack shows). */
  versions: Record<string, unknown>[];
}

export interface FakeSlack {
  apiBaseUrl: string;
  calls: ApiCall[];
  messages: FakeMessage[];
  /** `envelope_id`s acknowledged by the client, in order. */
  acks: string[];
  /** Frames the client sent that were not acks. */
  otherFrames: string[];
  /** Links that were opened (each after a fresh `apps.connections.open`), and those open now. */
  linksOpened(): number;
  linksOpen(): number;
  /** Down: `apps.connections.open` answers HTTP 503 and every open link is cut. */
  setDown(down: boolean): void;
  /** Whether the links answer pings (a dead link that still looks open answers none). */
  setPongs(answer: boolean): void;
  /** Every Web API call answers with a redirect to `url` (undefined: none). */
  setRedirect(url: string | undefined): void;
  /** Pings the client sent. */
  pingsSeen(): number;
  /** Sends an envelope on the newest open link; returns its `envelope_id`. */
  sendEnvelope(type: string, payload: unknown): string;
  /** Sends a raw frame on the newest open link. */
  sendRaw(frame: string | Buffer, binary?: boolean): void;
  /** Socket Mode's `disconnect` (refresh_requested, warning, link_disabled). */
  sendDisconnect(reason: string): void;
  /** A click on a button of a posted message, as Slack reports it: a `block_actions` interaction. */
  click(message: FakeMessage, userId: string, actionId: string): string;
  close(): Promise<void>;
}

function buttonsOf(version: Record<string, unknown>): { action_id: string; value: string }[] {
  const blocks = Array.isArray(version.blocks) ? (version.blocks as Record<string, unknown>[]) : [];
  return blocks
    .filter((block) => block.type === 'actions')
    .flatMap((block) => block.elements as { action_id: string; value: string }[]);
}

export async function startFakeSlack(): Promise<FakeSlack> {
  const calls: ApiCall[] = [];
  const messages: FakeMessage[] = [];
  const acks: string[] = [];
  const otherFrames: string[] = [];
  const tickets = new Set<string>();
  const links: WebSocket[] = [];
  let opened = 0;
  let counter = 0;
  let down = false;
  let pongs = true;
  let pings = 0;
  let redirect: string | undefined;

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const method = (req.url ?? '').replace(/^\/api\//, '');
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      } catch {
        return json(res, 200, { ok: false, error: 'invalid_json' });
      }
      calls.push({ method, token, body });
      if (redirect) {
        res.writeHead(307, { location: `${redirect}/${method}` });
        return res.end();
      }
      if (method === 'apps.connections.open') {
        if (down) return json(res, 503, { ok: false, error: 'service_unavailable' });
        if (token !== FAKE_APP_TOKEN) return json(res, 200, { ok: false, error: 'invalid_auth' });
        const ticket = `t${++counter}`;
        tickets.add(ticket);
        return json(res, 200, { ok: true, url: `ws://127.0.0.1:${port()}/link/?ticket=${ticket}` });
      }
      if (token !== FAKE_BOT_TOKEN) return json(res, 200, { ok: false, error: 'invalid_auth' });
      if (method === 'chat.postMessage') {
        if (body.channel !== FAKE_CHANNEL_ID)
          return json(res, 200, { ok: false, error: 'channel_not_found' });
        const ts = `1700000000.${String(++counter).padStart(6, '0')}`;
        messages.push({ channel: FAKE_CHANNEL_ID, ts, versions: [body] });
        return json(res, 200, { ok: true, channel: FAKE_CHANNEL_ID, ts, message: {} });
      }
      if (method === 'chat.update') {
        const message = messages.find((m) => m.channel === body.channel && m.ts === body.ts);
        if (!message) return json(res, 200, { ok: false, error: 'message_not_found' });
        message.versions.push(body);
        return json(res, 200, { ok: true, channel: message.channel, ts: message.ts });
      }
      return json(res, 200, { ok: false, error: 'unknown_method' });
    });
  });

  const wss = new WebSocketServer({ noServer: true, autoPong: false });
  server.on('upgrade', (req, socket, head) => {
    const ticket = new URL(req.url ?? '/', 'http://x').searchParams.get('ticket') ?? '';
    if (down || !tickets.delete(ticket)) {
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      opened += 1;
      links.push(ws);
      ws.on('close', () => links.splice(links.indexOf(ws), 1));
      ws.on('ping', (data) => {
        pings += 1;
        if (pongs) ws.pong(data);
      });
      ws.on('message', (data) => {
        const text = (data as Buffer).toString('utf8');
        try {
          const frame = JSON.parse(text) as { envelope_id?: unknown };
          if (typeof frame.envelope_id === 'string' && Object.keys(frame).length === 1) {
            acks.push(frame.envelope_id);
            return;
          }
        } catch {
          // not JSON: kept below
        }
        otherFrames.push(text);
      });
      ws.send(JSON.stringify({ type: 'hello', num_connections: links.length, debug_info: { host: 'fake' } }));
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = () => (server.address() as AddressInfo).port;
  const newest = () => {
    const link = links.at(-1);
    if (!link) throw new Error('fake slack: no open Socket Mode link');
    return link;
  };

  const fake: FakeSlack = {
    apiBaseUrl: `http://127.0.0.1:${port()}/api`,
    calls,
    messages,
    acks,
    otherFrames,
    linksOpened: () => opened,
    linksOpen: () => links.length,
    setDown(value) {
      down = value;
      if (value) for (const link of [...links]) link.terminate();
    },
    pingsSeen: () => pings,
    setRedirect(url) {
      redirect = url;
    },
    setPongs(answer) {
      pongs = answer;
    },
    sendEnvelope(type, payload) {
      const envelopeId = `env-${++counter}`;
      newest().send(
        JSON.stringify({
          envelope_id: envelopeId,
          type,
          payload,
          accepts_response_payload: false,
          retry_attempt: 0,
        }),
      );
      return envelopeId;
    },
    sendRaw(frame, binary = false) {
      newest().send(frame, { binary });
    },
    sendDisconnect(reason) {
      newest().send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'fake' } }));
    },
    click(message, userId, actionId) {
      const button = buttonsOf(message.versions.at(-1)!).find((b) => b.action_id === actionId);
      if (!button) throw new Error(`fake slack: the message has no button ${actionId}`);
      return fake.sendEnvelope('interactive', {
        type: 'block_actions',
        user: { id: userId, username: 'someone', team_id: 'T0FAKE' },
        team: { id: 'T0FAKE' },
        channel: { id: message.channel },
        container: { type: 'message', message_ts: message.ts, channel_id: message.channel },
        message: message.versions.at(-1),
        actions: [
          {
            type: 'button',
            action_id: button.action_id,
            block_id: 'hookd_answer',
            value: button.value,
            action_ts: '1',
          },
        ],
      });
    },
    async close() {
      for (const link of [...links]) link.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
  return fake;
}

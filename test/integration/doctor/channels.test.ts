import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { check, doctor, makeDoctorHome, writeJson, type DoctorHome } from './doctor-env.js';

interface Hit {
  method: string;
  url: string;
  body: string;
  headers: IncomingMessage['headers'];
}

let h: DoctorHome;
let servers: Server[] = [];

beforeEach(() => {
  h = makeDoctorHome();
});
afterEach(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  servers = [];
  h.cleanup();
});

/** A loopback receiver standing in for Slack or a webhook endpoint. */
async function receiver(status = 200): Promise<{ url: string; hits: Hit[] }> {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      hits.push({ method: req.method ?? '', url: req.url ?? '', body, headers: req.headers });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'broken');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, hits };
}

/** A port nothing listens on: bound once, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function configure(channels: Record<string, unknown>): void {
  writeJson(h.env.HOOKD_CONFIG!, {
    notify: { channels, rules: [{ on: 'Stop', channels: Object.keys(channels) }] },
  });
}

describe('doctor: Slack and webhook channels', () => {
  it('fails a Slack channel whose ${VAR} is not set, naming the variable and the field', async () => {
    configure({ team: { type: 'slack', webhookUrl: '${SLACK_WEBHOOK_URL}' } });
    const results = await doctor(h);
    const result = check(results, 'channel:team');
    expect(result.status).toBe('fail');
    expect(result.detail).toBe(
      'environment variable not set: SLACK_WEBHOOK_URL (used in notify.channels.team.webhookUrl); the channel cannot deliver',
    );
    expect(result.fix).toContain('export SLACK_WEBHOOK_URL=...');
    expect(result.title).toBe('Channel team (slack)');
  });

  it('checks the host of a webhook: reachable, without sending to its secret path', async () => {
    const rx = await receiver();
    configure({ hook: { type: 'webhook', url: `${rx.url}/secret/path/T0K3N` } });
    const result = check(await doctor(h), 'channel:hook');
    expect(result.status).toBe('ok');
    expect(result.detail).toBe(`${rx.url} reachable (HEAD / answered 200)`);
    expect(rx.hits.map((x) => `${x.method} ${x.url}`)).toEqual(['HEAD /']);
  });

  it('fails an unreachable webhook, with the host only', async () => {
    const port = await closedPort();
    configure({ hook: { type: 'webhook', url: `http://127.0.0.1:${port}/secret/T0K3N` } });
    const result = check(await doctor(h), 'channel:hook');
    expect(result.status).toBe('fail');
    expect(result.detail).toBe(`cannot reach http://127.0.0.1:${port}: ECONNREFUSED`);
    expect(result.detail).not.toContain('T0K3N');
    expect(result.fix).toContain('check the URL');
  });

  it('resolves ${VAR} from the environment before checking', async () => {
    const rx = await receiver();
    configure({ team: { type: 'slack', webhookUrl: '${SLACK_WEBHOOK_URL}' } });
    const result = check(
      await doctor(h, { env: { ...h.env, SLACK_WEBHOOK_URL: `${rx.url}/services/T/B/X` } }),
      'channel:team',
    );
    expect(result.status).toBe('ok');
    expect(rx.hits).toHaveLength(1);
  });

  it('--send-test sends a real notification through the channel code', async () => {
    const rx = await receiver();
    const slack = await receiver();
    configure({
      hook: { type: 'webhook', url: `${rx.url}/in`, secret: 'shh' },
      team: { type: 'slack', webhookUrl: `${slack.url}/services/T/B/X` },
    });
    const results = await doctor(h, { sendTest: true });
    expect(check(results, 'channel:hook')).toMatchObject({ status: 'ok' });
    expect(check(results, 'channel:hook').detail).toContain('test notification delivered');
    const post = rx.hits.find((x) => x.method === 'POST')!;
    expect(post.url).toBe('/in');
    expect(post.headers['x-hookd-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(JSON.parse(post.body)).toMatchObject({
      version: 1,
      channel: 'hook',
      notification: { title: 'hookd doctor: test notification', rule: 'doctor' },
    });
    const slackPost = slack.hits.find((x) => x.method === 'POST')!;
    expect(slackPost.url).toBe('/services/T/B/X');
    expect(JSON.parse(slackPost.body)).toMatchObject({
      text: expect.stringContaining('hookd doctor: test notification'),
    });
  });

  it('--send-test fails when the receiver refuses the notification', async () => {
    const rx = await receiver(500);
    configure({ hook: { type: 'webhook', url: `${rx.url}/in` } });
    const result = check(await doctor(h, { sendTest: true }), 'channel:hook');
    expect(result.status).toBe('fail');
    expect(result.detail).toContain(`test notification failed: webhook ${rx.url} answered HTTP 500: broken`);
  });

  it('checks the channels concurrently: each host answers only once both were asked', async () => {
    // Run one after the other, the first probe would wait for a request that never comes and time out.
    const waiting: (() => void)[] = [];
    const answerWhenBothAsked = (res: { writeHead(s: number): { end(): void } }) => {
      waiting.push(() => res.writeHead(200).end());
      if (waiting.length === 2) for (const answer of waiting) answer();
    };
    const urls: string[] = [];
    for (let i = 0; i < 2; i++) {
      const server = createServer((_req, res) => answerWhenBothAsked(res));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      urls.push(`http://127.0.0.1:${(server.address() as { port: number }).port}/in`);
    }
    configure({ a: { type: 'webhook', url: urls[0] }, b: { type: 'webhook', url: urls[1] } });
    const results = await doctor(h, { timeoutMs: 5000 });
    expect(check(results, 'channel:a').status).toBe('ok');
    expect(check(results, 'channel:b').status).toBe('ok');
  });

  it('skips a disabled channel and fails a command channel whose program is missing', async () => {
    configure({
      off: { type: 'webhook', url: 'http://127.0.0.1:9/x', enabled: false },
      run: { type: 'command', command: ['no-such-notifier-xyz', '--flag'] },
    });
    const results = await doctor(h);
    expect(check(results, 'channel:off').status).toBe('skip');
    expect(check(results, 'channel:run')).toMatchObject({
      status: 'fail',
      detail: 'no-such-notifier-xyz is not on PATH',
    });
  });
});

describe('doctor: ntfy channels', () => {
  it('names an unset ${NTFY_TOKEN}, and probes the server host only (never publishes without --send-test)', async () => {
    const rx = await receiver();
    configure({ phone: { type: 'ntfy', server: rx.url, topic: 'secret-topic', token: '${NTFY_TOKEN}' } });
    const missing = check(await doctor(h), 'channel:phone');
    expect(missing).toMatchObject({ status: 'fail', title: 'Channel phone (ntfy)' });
    expect(missing.detail).toContain('NTFY_TOKEN (used in notify.channels.phone.token)');
    h.env.NTFY_TOKEN = 'tk_1';
    const result = check(await doctor(h), 'channel:phone');
    expect(result.status).toBe('ok');
    expect(result.detail).toBe(`${rx.url} reachable (HEAD / answered 200)`);
    expect(rx.hits.map((x) => `${x.method} ${x.url}`)).toEqual(['HEAD /']);
  });

  it('--send-test publishes one message to the topic with the token', async () => {
    const rx = await receiver();
    h.env.NTFY_TOKEN = 'tk_2';
    configure({ phone: { type: 'ntfy', server: rx.url, topic: 'alerts', token: '${NTFY_TOKEN}' } });
    const result = check(await doctor(h, { sendTest: true }), 'channel:phone');
    expect(result.status).toBe('ok');
    const publish = rx.hits.find((x) => x.method === 'POST')!;
    expect(publish.headers.authorization).toBe('Bearer tk_2');
    expect(JSON.parse(publish.body)).toMatchObject({ topic: 'alerts', priority: expect.any(Number) });
  });
});

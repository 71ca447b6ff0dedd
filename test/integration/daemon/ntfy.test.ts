import { afterEach, describe, expect, it } from 'vitest';
import { createNtfyChannel } from '../../../src/channels/ntfy.js';
import { buildChannels } from '../../../src/channels/build-channels.js';
import { notifySchema, type NtfyChannelConfig } from '../../../src/config/schemas/notify-schema.js';
import { startDaemon } from '../../../src/daemon/lifecycle/daemon.js';
import { handOff } from '../../../src/link/client.js';
import type { RenderedNotification } from '../../../src/notify/notification.js';
import type { DeliveryContext } from '../../../src/channels/channel.js';
import { fixture, handoffOf, loopbackServer, tempEnv, waitFor } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const notification: RenderedNotification = {
  title: 'démo: needs your permission ✋',
  body: 'Execute: npm test',
  urgency: 'critical',
  rule: 'asks',
  event: 'PermissionRequest',
  eventIds: ['e1'],
  count: 1,
  sessionId: 'sess 1',
  project: 'demo',
  at: Date.UTC(2026, 0, 1),
  fields: [],
};
const context: DeliveryContext = {
  deliveryId: 'e1/0/phone',
  attempt: 1,
  threads: { get: () => undefined, set: async () => {} },
};

function ntfyConfig(input: Record<string, unknown>): NtfyChannelConfig {
  const config = notifySchema.parse({ channels: { x: { type: 'ntfy', ...input } } }).channels.x!;
  if (config.type !== 'ntfy') throw new Error('unexpected');
  return config;
}

interface Published {
  topic: string;
  message: string;
  title?: string;
  priority?: number;
  tags?: string[];
  click?: string;
}

describe('ntfy channel', () => {
  it('publishes JSON to the server: topic, title, message, priority from urgency, tags, click, bearer token', async () => {
    const server = await loopbackServer();
    cleanups.push(server.close);
    const channel = createNtfyChannel(
      'phone',
      ntfyConfig({
        server: `${server.url}/`,
        topic: 'hookd-alerts',
        token: 'tk_secret',
        tags: ['robot'],
        click: '{appUrl}/sessions/{sessionId}',
      }),
      { appUrl: 'https://app.example.test' },
    );
    expect(channel.remote).toBe(true);
    expect(channel.describe()).toBe(`ntfy ${server.url}`);
    expect(await channel.send(notification, context)).toMatchObject({ ok: true });
    const got = server.received[0]!;
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/');
    expect(got.headers.authorization).toBe('Bearer tk_secret');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.json).toEqual({
      topic: 'hookd-alerts',
      title: 'démo: needs your permission ✋',
      message: 'Execute: npm test',
      priority: 5,
      tags: ['robot'],
      click: 'https://app.example.test/sessions/sess%201',
    });
  });

  it('maps low/normal to 2/3 unless overridden, uses basic auth, sends no click without a session, and caps the text', async () => {
    const server = await loopbackServer();
    cleanups.push(server.close);
    const channel = createNtfyChannel(
      'phone',
      ntfyConfig({
        server: server.url,
        topic: 't',
        user: 'me',
        password: 'pw',
        priorities: { normal: 4 },
        click: '{appUrl}/sessions/{sessionId}',
      }),
    );
    const { sessionId: _omit, ...noSession } = notification;
    await channel.send({ ...noSession, urgency: 'low', body: 'x'.repeat(10_000) }, context);
    await channel.send({ ...notification, urgency: 'normal', title: 't'.repeat(1000) }, context);
    const [low, normal] = server.received.map((r) => r.json as Published);
    expect(server.received[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('me:pw').toString('base64')}`,
    );
    expect(low!.priority).toBe(2);
    expect(low!.click).toBeUndefined();
    expect(Buffer.byteLength(low!.message)).toBeLessThanOrEqual(4096);
    expect(low!.message.endsWith('…')).toBe(true);
    expect(normal!.priority).toBe(4);
    expect(normal!.title!.length).toBeLessThanOrEqual(250);
  });

  it('429 and 5xx are retryable, 4xx is not; a bad server URL is unusable', async () => {
    const statuses = [429, 503, 400];
    const server = await loopbackServer((_, i) => ({
      status: statuses[i]!,
      headers: { 'retry-after': '1' },
    }));
    cleanups.push(server.close);
    const channel = createNtfyChannel('phone', ntfyConfig({ server: server.url, topic: 't' }));
    expect(await channel.send(notification, context)).toMatchObject({
      ok: false,
      retryable: true,
      retryAfterMs: 1000,
    });
    expect(await channel.send(notification, context)).toMatchObject({ ok: false, retryable: true });
    expect(await channel.send(notification, context)).toMatchObject({ ok: false, retryable: false });
    const broken = createNtfyChannel('phone', ntfyConfig({ server: 'not a url', topic: 't' }));
    expect(broken.health().ok).toBe(false);
    expect(await broken.send(notification, context)).toMatchObject({ ok: false, retryable: false });
  });

  it('the schema refuses a token together with user/password, and a bad topic', () => {
    expect(() => ntfyConfig({ topic: 't', token: 'a', user: 'u', password: 'p' })).toThrow(/token or user/);
    expect(() => ntfyConfig({ topic: 'has space' })).toThrow(/topic/);
    expect(ntfyConfig({ topic: '${NTFY_TOPIC}', token: '${NTFY_TOKEN}' }).server).toBe('https://ntfy.sh');
  });

  it('build-channels resolves ${VAR} in the token', async () => {
    const server = await loopbackServer();
    cleanups.push(server.close);
    const config = notifySchema.parse({
      channels: { phone: { type: 'ntfy', server: server.url, topic: 't', token: '${NTFY_TOKEN}' } },
    });
    const channels = buildChannels(config, { env: { NTFY_TOKEN: 'from-env' } });
    await channels.get('phone')!.send(notification, context);
    expect(server.received[0]!.headers.authorization).toBe('Bearer from-env');
  });

  it('in the daemon: redacted, retried through the outbox after a 429 and a 503, delivered once', async () => {
    const server = await loopbackServer((_, i) =>
      i < 2 ? { status: i === 0 ? 429 : 503 } : { status: 200 },
    );
    cleanups.push(server.close);
    const temp = tempEnv();
    cleanups.push(temp.cleanup);
    const daemon = await startDaemon({
      env: temp.env,
      config: {
        notify: {
          waitingDelayMs: 0, // this file is not about the waiting delay (waiting-delay.test.ts is)
          channels: { phone: { type: 'ntfy', server: server.url, topic: 'alerts' } },
          rules: [{ on: 'Notification', channels: ['phone'], title: '{{message}}', urgency: 'critical' }],
        },
        daemon: { retryBaseMs: 20, retryMaxMs: 50 },
      },
      housekeepingIntervalMs: 50,
    });
    cleanups.push(() => daemon.close());
    const secret = 'ghp_' + 'a'.repeat(36);
    await handOff(handoffOf({ ...fixture('04-Notification.json'), message: `token ${secret}` }), {
      env: temp.env,
      timeoutMs: 5000,
    });
    await waitFor(() => server.received.length === 3, 10_000, 'three attempts');
    await waitFor(() => daemon.stats().outbox.pending === 0, 10_000, 'the outbox to empty');
    const bodies = server.received.map((r) => r.json as Published);
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(bodies[2]!.title).not.toContain(secret);
    expect(bodies[2]!.priority).toBe(5);
    expect(daemon.stats().channels.find((c) => c.name === 'phone')).toMatchObject({ type: 'ntfy' });
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createWebhookChannel } from '../../../src/channels/webhook.js';
import { createSlackChannel } from '../../../src/channels/slack.js';
import { notifySchema } from '../../../src/config/schemas/notify-schema.js';
import { sendRequest } from '../../../src/platform-api/http.js';
import * as z from 'zod';
import { runHookd } from '../../helpers/run-hookd.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';
import { ensureBuilt } from './process-helpers.js';
import { plainContext, plainNotification } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function channelConfig(input: Record<string, unknown>) {
  return notifySchema.parse({ channels: { x: input } }).channels.x!;
}

/** A loopback server whose answer body never ends (it writes 64 KiB chunks until the client goes away). */
async function endlessServer(status: number): Promise<{ url: string; sent: () => number }> {
  let sent = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    res.writeHead(status, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const pump = () => {
      while (!res.destroyed && res.write(chunk)) sent += chunk.length;
      if (!res.destroyed) res.once('drain', pump);
    };
    res.on('close', () => undefined);
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, sent: () => sent };
}

describe('responses are read up to a few KB', () => {
  it('a webhook answering 500 with an endless body: an HTTP 500 error, not a timeout', async () => {
    const server = await endlessServer(500);
    const channel = createWebhookChannel(
      'x',
      channelConfig({ type: 'webhook', url: `${server.url}/hook`, timeoutMs: 20_000 }) as never,
    );
    const result = await channel.send(plainNotification, plainContext);
    expect(result).toMatchObject({ ok: false, retryable: true });
    expect((result as { error: string }).error).toMatch(/answered HTTP 500: a{20}/);
  });

  it('the Slack Web API answering 200 with an endless body: a clear error, not a timeout', async () => {
    const server = await endlessServer(200);
    const channel = createSlackChannel(
      'x',
      channelConfig({
        type: 'slack',
        botToken: 'xoxb-test',
        channel: '#c',
        apiBaseUrl: server.url,
        timeoutMs: 20_000,
      }) as never,
    );
    const result = await channel.send(plainNotification, plainContext);
    expect(result.ok).toBe(false);
    expect((result as { error: string }).error).toMatch(/more than 8 KiB/);
  });

  it('the platform API answering 200 with an endless JSON body: a clear error past 16 MiB, not a timeout', async () => {
    const server = await endlessServer(200);
    const error = await sendRequest(
      {
        apiKey: 'k',
        fetch,
        timeoutMs: 60_000,
        retries: 0,
        retryBaseMs: 1,
        sleep: async () => {},
        userAgent: 'hookd-test',
      },
      { method: 'GET', url: new URL(`${server.url}/api/v0/x`), schema: z.unknown() },
    ).catch((e: unknown) => e as Error);
    expect((error as Error).message).toMatch(/larger than 16 MiB/);
  });
});

describe('limits that hold', () => {
  it('a header value with CR/LF from a variable is dead-lettered at once, with the real reason', async () => {
    const channel = createWebhookChannel(
      'x',
      channelConfig({
        type: 'webhook',
        url: 'http://127.0.0.1:9/hook',
        headers: { 'x-token': 'abc\r\nx-injected: 1' },
      }) as never,
    );
    const result = await channel.send(plainNotification, plainContext);
    expect(result).toMatchObject({ ok: false, retryable: false });
    expect((result as { error: string }).error).toMatch(/header "x-token".*(CR|LF)/);
    expect((result as { error: string }).error).not.toContain('abc');
  });

  it('settings.deadLetterMax is honoured, and the dead letters are capped in total bytes', async () => {
    ensureBuilt();
    const tmp = makeTempDir();
    cleanups.push(tmp.cleanup);
    const config = join(tmp.dir, 'config.json');
    writeFileSync(config, JSON.stringify({ settings: { deadLetterMax: 2 } }));
    const env = isolatedEnv(tmp.dir, { HOOKD_CONFIG: config });
    for (let i = 0; i < 4; i++) await runHookd(['hook'], { env, stdin: `not json ${i}` });
    const dir = join(env.XDG_STATE_HOME!, 'hookd', 'dead-letter');
    expect(readdirSync(dir).filter((n) => n.endsWith('.bin'))).toHaveLength(2);

    const capped = isolatedEnv(tmp.dir, { HOOKD_CONFIG: config, HOOKD_DEAD_LETTER_MAX_BYTES: '250000' });
    for (let i = 0; i < 2; i++)
      await runHookd(['hook'], { env: capped, stdin: `not json ${'x'.repeat(100_000)}` });
    const total = readdirSync(dir).reduce((sum, n) => sum + statSync(join(dir, n)).size, 0);
    expect(total).toBeLessThanOrEqual(250_000);
    expect(readdirSync(dir).filter((n) => n.endsWith('.bin')).length).toBeGreaterThanOrEqual(1);
  });
});

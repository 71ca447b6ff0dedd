import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { createWebhookChannel } from '../../../src/channels/webhook.js';
import { createCommandChannel } from '../../../src/channels/command.js';
import { createDesktopChannel } from '../../../src/channels/desktop.js';
import { notifySchema } from '../../../src/config/schemas/notify-schema.js';
import type { RenderedNotification } from '../../../src/notify/notification.js';
import type { DeliveryContext } from '../../../src/channels/channel.js';
import { isAlive } from '../../helpers/procs.js';
import { loopbackServer, tempEnv, waitFor } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const notification: RenderedNotification = {
  title: 'demo: finished',
  body: 'All tests pass <3 & done',
  urgency: 'critical',
  rule: 'rule-0',
  event: 'Stop',
  eventIds: ['e1'],
  count: 1,
  sessionId: 's1',
  project: 'demo',
  at: Date.UTC(2026, 0, 1),
  fields: [{ label: 'Project', value: 'demo' }],
};
const context: DeliveryContext = {
  deliveryId: 'e1/0/ops',
  attempt: 1,
  threads: { get: () => undefined, set: async () => {} },
};

/** Whether no process with this pid is left. */
function channelConfig(input: Record<string, unknown>) {
  return notifySchema.parse({ channels: { x: input } }).channels.x!;
}

describe('webhook channel', () => {
  it('POSTs the documented body with custom headers and a verifiable HMAC-SHA256 signature', async () => {
    const server = await loopbackServer();
    cleanups.push(server.close);
    const config = channelConfig({
      type: 'webhook',
      url: `${server.url}/in`,
      headers: { 'x-team': 'core' },
      secret: 'k3y',
    });
    if (config.type !== 'webhook') throw new Error('unexpected');
    const result = await createWebhookChannel('ops', config).send(notification, context);
    expect(result.ok).toBe(true);
    const got = server.received[0]!;
    expect(got.headers['x-team']).toBe('core');
    expect(got.headers['content-type']).toBe('application/json');
    const expected = createHmac('sha256', 'k3y')
      .update(`${String(got.headers['x-hookd-timestamp'])}.${got.body}`)
      .digest('hex');
    expect(got.headers['x-hookd-signature']).toBe(`sha256=${expected}`);
    expect(got.json).toMatchObject({
      version: 1,
      id: 'e1/0/ops',
      channel: 'ops',
      notification: {
        title: 'demo: finished',
        urgency: 'critical',
        eventIds: ['e1'],
        at: '2026-01-01T00:00:00.000Z',
      },
    });
  });

  it('a 500 is retryable, a 404 is not, and a hanging server times out (retryable)', async () => {
    const server = await loopbackServer((r) =>
      r.url === '/500'
        ? { status: 500, body: 'boom' }
        : r.url === '/404'
          ? { status: 404, body: 'nope' }
          : 'hang',
    );
    cleanups.push(server.close);
    const send = (path: string) => {
      const config = channelConfig({ type: 'webhook', url: `${server.url}${path}`, timeoutMs: 300 });
      if (config.type !== 'webhook') throw new Error('unexpected');
      return createWebhookChannel('ops', config).send(notification, context);
    };
    expect(await send('/500')).toMatchObject({
      ok: false,
      retryable: true,
      error: expect.stringContaining('HTTP 500: boom'),
    });
    expect(await send('/404')).toMatchObject({ ok: false, retryable: false });
    expect(await send('/hang')).toMatchObject({
      ok: false,
      retryable: true,
      error: expect.stringContaining('within 300ms'),
    });
  });

  it('never puts the URL path (a secret) in an error', async () => {
    const config = channelConfig({ type: 'webhook', url: 'http://127.0.0.1:9/secret-path-token' });
    if (config.type !== 'webhook') throw new Error('unexpected');
    const result = await createWebhookChannel('ops', config).send(notification, context);
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toContain('secret-path-token');
  });
});

describe('command channel', () => {
  it('pipes the notification JSON to the command', async () => {
    const { root, cleanup } = tempEnv();
    cleanups.push(cleanup);
    const out = join(root, 'out.json');
    const config = channelConfig({ type: 'command', command: ['sh', '-c', `cat > ${out}`] });
    if (config.type !== 'command') throw new Error('unexpected');
    expect(await createCommandChannel('cmd', config).send(notification, context)).toMatchObject({ ok: true });
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({
      id: 'e1/0/ops',
      notification: { title: 'demo: finished' },
    });
  });

  it('exit 75 asks for a retry, other codes are final, stderr is in the error', async () => {
    const mk = (command: string) => {
      const config = channelConfig({ type: 'command', command });
      if (config.type !== 'command') throw new Error('unexpected');
      return createCommandChannel('cmd', config);
    };
    expect(await mk('exit 75').send(notification, context)).toMatchObject({ ok: false, retryable: true });
    expect(await mk('echo broken >&2; exit 3').send(notification, context)).toMatchObject({
      ok: false,
      retryable: false,
      error: expect.stringContaining('exited 3: broken'),
    });
  });

  it('a timeout kills the whole process group (no grandchild survives)', async () => {
    const { root, cleanup } = tempEnv();
    cleanups.push(cleanup);
    const pidFile = join(root, 'grandchild.pid');
    const config = channelConfig({
      type: 'command',
      command: `sleep 30 & echo $! > ${pidFile}; wait`,
      timeoutMs: 300,
    });
    if (config.type !== 'command') throw new Error('unexpected');
    const result = await createCommandChannel('cmd', config).send(notification, context);
    expect(result).toMatchObject({ ok: false, retryable: true, error: expect.stringContaining('timed out') });
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => !isAlive(grandchild), 5000, 'grandchild gone');
  });
  it('delivers when the command exits 0, even while a child it left holds stderr; the child is ended', async () => {
    const { root, cleanup } = tempEnv();
    cleanups.push(cleanup);
    const pidFile = join(root, 'leftover.pid');
    const config = channelConfig({
      type: 'command',
      command: `sleep 30 & echo $! > ${pidFile}; exit 0`,
      timeoutMs: 5000,
    });
    if (config.type !== 'command') throw new Error('unexpected');
    const result = await createCommandChannel('cmd', config).send(notification, context);
    const leftover = Number(readFileSync(pidFile, 'utf8'));
    cleanups.push(() => {
      try {
        process.kill(leftover, 'SIGKILL');
      } catch {}
    });
    expect(result).toMatchObject({ ok: true });
    await waitFor(() => !isAlive(leftover), 5000, 'leftover child gone');
  });
});

describe('desktop channel', () => {
  /** A notify-send on PATH that records its arguments; `printId`: it knows --print-id and prints 42. */
  function stubNotifySend(root: string, printId: boolean): { dir: string; log: string } {
    const dir = join(root, 'bin');
    mkdirSync(dir);
    const log = join(root, 'notify-send.log');
    const help = printId ? `echo '  -p, --print-id   Print the notification ID.'` : 'echo usage';
    writeFileSync(
      join(dir, 'notify-send'),
      `#!/bin/sh\nif [ "$1" = --help ]; then ${help}; exit 0; fi\nfor a in "$@"; do printf '%s\\n' "$a"; done >> ${log}\necho --- >> ${log}\n${printId ? 'echo 42\n' : ''}`,
    );
    chmodSync(join(dir, 'notify-send'), 0o755);
    return { dir, log };
  }

  it.each([
    ['an older notify-send, run without --print-id', false],
    ['notify-send run with --print-id', true],
  ])(
    'runs notify-send with title, body, urgency and sound hint: %s (stub on PATH records its arguments)',
    async (_how, printId) => {
      const { root, cleanup } = tempEnv();
      cleanups.push(cleanup);
      const { dir, log } = stubNotifySend(root, printId);
      const config = channelConfig({ type: 'desktop', sound: true });
      if (config.type !== 'desktop') throw new Error('unexpected');
      const channel = createDesktopChannel('desk', config, {
        platform: 'linux',
        env: { PATH: `${dir}:${process.env.PATH}`, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' },
      });
      expect(channel.health()).toMatchObject({ ok: true, problems: [] });
      const result = await channel.send(notification, context);
      // The id notify-send printed is kept, to close the notification when it is answered.
      expect(result).toEqual(
        printId ? { ok: true, detail: 'shown', ref: '42' } : { ok: true, detail: 'shown' },
      );
      const args = readFileSync(log, 'utf8').split('\n');
      const [title, body] = args.slice(args.indexOf('--') + 1);
      expect(title).toBe('demo: finished');
      expect(body).toBe('All tests pass &lt;3 &amp; done');
      expect(args.includes('--print-id')).toBe(printId);
      expect(args).toContain('--urgency');
      expect(args[args.indexOf('--urgency') + 1]).toBe('critical');
      expect(args[args.indexOf('--hint') + 1]).toBe('string:sound-name:message-new-instant');
      expect(args[args.indexOf('--app-name') + 1]).toBe('hookd');
    },
  );

  it('reports a missing notify-send and a missing D-Bus session instead of failing silently', async () => {
    const { root, cleanup } = tempEnv();
    cleanups.push(cleanup);
    const config = channelConfig({ type: 'desktop' });
    if (config.type !== 'desktop') throw new Error('unexpected');
    const channel = createDesktopChannel('desk', config, {
      platform: 'linux',
      env: { PATH: join(root, 'empty'), XDG_RUNTIME_DIR: root },
    });
    const health = channel.health();
    expect(health.ok).toBe(false);
    expect(health.problems.join('\n')).toMatch(/notify-send not found on PATH: install libnotify-bin/);
    expect(health.problems.join('\n')).toMatch(/no D-Bus session bus/);
    const result = await channel.send(notification, context);
    expect(result).toMatchObject({
      ok: false,
      retryable: false,
      error: expect.stringContaining('notify-send not found'),
    });
    expect(existsSync(join(root, 'bus'))).toBe(false);
  });
});

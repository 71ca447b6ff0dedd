import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon } from '../../../src/daemon/lifecycle/daemon.js';
import { handOff } from '../../../src/link/client.js';
import { handoffOf, loopbackServer, tempEnv, waitFor } from './helpers.js';

// Everything that leaves the machine goes through the redactor: webhook, Slack and commands marked
// remote. Local channels (a command not marked remote here) get the text as it is.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const SECRET = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';

describe('redaction before notifications leave the machine', () => {
  it('webhooks and remote commands get redacted text, local commands the original; home paths on request', async () => {
    const temp = tempEnv();
    cleanups.push(temp.cleanup);
    const server = await loopbackServer();
    cleanups.push(server.close);
    const localFile = join(temp.root, 'local.json');
    const remoteFile = join(temp.root, 'remote.json');
    const home = String(temp.env.HOME);
    const daemon = await startDaemon({
      env: temp.env,
      redactHomePaths: true,
      config: {
        notify: {
          waitingDelayMs: 0, // this file is not about the waiting delay (waiting-delay.test.ts is)
          channels: {
            ops: { type: 'webhook', url: `${server.url}/in` },
            local: { type: 'command', command: ['sh', '-c', `cat > ${localFile}`] },
            relay: { type: 'command', command: ['sh', '-c', `cat > ${remoteFile}`], remote: true },
          },
          rules: [{ on: 'Notification', channels: ['ops', 'local', 'relay'], body: '{{message}}' }],
        },
      },
    });
    cleanups.push(() => daemon.close());
    const message = `token ${SECRET} in ${home}/projects/app/.env`;
    const ack = await handOff(
      handoffOf({ hook_event_name: 'Notification', session_id: 's1', cwd: `${home}/projects/app`, message }),
      { env: temp.env, autoStart: false, timeoutMs: 2000 },
    );
    expect(ack.outcome).toBe('acked');
    const posted = await waitFor(() => server.received[0], 10_000, 'the webhook POST');
    await waitFor(() => {
      try {
        return readFileSync(localFile, 'utf8') && readFileSync(remoteFile, 'utf8');
      } catch {
        return false;
      }
    });
    const body = (posted.json as { notification: { body: string } }).notification.body;
    expect(body).not.toContain(SECRET);
    expect(body).not.toContain(home);
    expect(body).toContain('[REDACTED');
    const remote = JSON.parse(readFileSync(remoteFile, 'utf8')) as { notification: { body: string } };
    expect(remote.notification.body).not.toContain(SECRET);
    const local = JSON.parse(readFileSync(localFile, 'utf8')) as { notification: { body: string } };
    expect(local.notification.body).toBe(message);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon } from '../../../src/daemon/lifecycle/daemon.js';
import { handOff } from '../../../src/link/client.js';
import type { Channel } from '../../../src/channels/channel.js';
import type { RenderedNotification } from '../../../src/notify/notification.js';
import { fixture, handoffOf, loopbackServer, tempEnv, waitFor } from '../daemon/helpers.js';
import { writeConfig } from '../daemon/process-helpers.js';
import { loadConfig } from '../../../src/config/load.js';
import { validator } from '../../../src/config/resolve.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A desktop channel that records what it is asked to show (the real one needs a notification server). */
function recordingDesktop(): { channel: Channel; shown: RenderedNotification[] } {
  const shown: RenderedNotification[] = [];
  return {
    shown,
    channel: {
      name: 'desktop',
      type: 'desktop',
      describe: () => 'recording desktop',
      send: async (notification) => {
        shown.push(notification);
        return { ok: true };
      },
      health: () => ({ ok: true, problems: [] }),
    },
  };
}

describe("the daemon shows hookd's own notices from a hand-off", () => {
  it('delivers each notice of an event to the desktop channel, even with no rule for the event', async () => {
    const temp = tempEnv();
    cleanups.push(temp.cleanup);
    const desktop = recordingDesktop();
    const daemon = await startDaemon({
      env: temp.env,
      config: { notify: { rules: [] } },
      channels: { desktop: desktop.channel },
    });
    cleanups.push(() => daemon.close());
    const message = handoffOf(fixture('01-SessionStart-startup.json'));
    message.notices = [
      {
        key: 'untrusted:/r/.hookd/config.json:abc',
        title: 'hookd: project config not trusted',
        body: 'run hookd trust /r',
      },
    ];
    expect(await handOff(message, { env: temp.env, timeoutMs: 2000 })).toEqual({ outcome: 'acked' });
    const shown = await waitFor(() => desktop.shown[0], 10_000, 'the desktop notice');
    expect(shown).toMatchObject({ title: 'hookd: project config not trusted', body: 'run hookd trust /r' });
  });
});

describe('a daemon started while the user file is broken', () => {
  it('runs the last config that validated, not the defaults', async () => {
    const temp = tempEnv();
    cleanups.push(temp.cleanup);
    const server = await loopbackServer();
    cleanups.push(server.close);
    const good = {
      notify: {
        waitingDelayMs: 0, // this file is not about the waiting delay (waiting-delay.test.ts is)
        channels: { ops: { type: 'webhook', url: `${server.url}/in` } },
        rules: [{ on: 'Notification', channels: ['ops'], title: 'from the last good config' }],
      },
    };
    writeConfig(temp.env, good);
    // A hook run records the last good config.
    loadConfig({ env: temp.env, validator: () => validator });
    writeConfig(temp.env, { ...good, tiemout: 5 });
    const daemon = await startDaemon({ env: temp.env });
    cleanups.push(() => daemon.close());
    expect(daemon.stats().config.ok).toBe(false);
    await handOff(handoffOf(fixture('04-Notification.json')), { env: temp.env, timeoutMs: 5000 });
    const got = await waitFor(() => server.received[0], 10_000, 'webhook POST');
    expect((got.json as { notification: { title: string } }).notification.title).toBe(
      'from the last good config',
    );
  });
});

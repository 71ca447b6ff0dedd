import { afterAll, beforeAll, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { handOff, requestDaemon } from '../../src/link/client.js';
import { fixture, handoffOf, tempEnv, waitFor } from '../integration/daemon/helpers.js';
import { ensureBuilt, writeConfig } from '../integration/daemon/process-helpers.js';
import { describeWithDesktop, startDesktopSession, type DesktopSession } from '../helpers/desktop-session.js';

/**
 * A real desktop notification: Xvfb, a private D-Bus session and dunst as the notification server
 * (test/helpers/desktop-session.ts). The hookd daemon (the built CLI) runs inside that session with its
 * default rules and the desktop channel. A "waiting" notification is sent at once (waitingDelayMs 0):
 * one held first, then shown and closed, is droid-waiting-desktop.test.ts's.
 */

describeWithDesktop('desktop notification through a real notification server', () => {
  let session: DesktopSession | undefined;
  let temp: ReturnType<typeof tempEnv>;

  beforeAll(async () => {
    ensureBuilt();
    temp = tempEnv();
    writeConfig(temp.env, { notify: { waitingDelayMs: 0 } });
    session = await startDesktopSession(temp.root, temp.env);
  }, 120_000);

  afterAll(async () => {
    await session?.stop();
    temp?.cleanup();
  }, 30_000);

  it('the default rules put "finished" and "needs your permission" on the desktop, and dunst shows them', async () => {
    const status = await requestDaemon({ v: 1, type: 'status' }, { env: temp.env });
    const channels =
      (status.ok && (status.reply.status as { channels: { name: string; healthy: boolean }[] }).channels) ||
      [];
    expect(channels.find((c) => c.name === 'desktop')).toMatchObject({ healthy: true });

    await handOff(handoffOf(fixture('04-Notification.json')), { env: temp.env, timeoutMs: 5000 });
    // Another session finishes: a Stop of the asking one would end its held permission ask (the turn
    // ended; docs/sessions.md, "What answers a waiting notification").
    await handOff(handoffOf({ ...fixture('16-Stop.json'), session_id: 'another-session' }), {
      env: temp.env,
      timeoutMs: 5000,
    });
    const shown = await waitFor(
      () => {
        const all = session!.shown();
        return all.length >= 2 ? all : undefined;
      },
      30_000,
      'two notifications shown by dunst',
    );
    // Two deliveries side by side, in no set order: find each by its summary.
    const permission = shown.find((n) => /permission/i.test(n.summary));
    const finished = shown.find((n) => /finished/i.test(n.summary));
    // appname | summary | body | urgency, as dunst passed them to its script.
    expect(permission!.app).toBe('hookd');
    expect(permission!.summary).toMatch(/permission/i);
    expect(permission!.body).toContain('demo');
    expect(permission!.body).toContain('Factory CLI needs permission to execute 1 tool(s)');
    expect(permission!.urgency).toBe('NORMAL');
    expect(finished!.app).toBe('hookd');
    expect(finished!.summary).toMatch(/finished/i);
    expect(finished!.summary).toContain('demo');
  });

  it('a "waiting" notification shown is closed when the session moves on (dunst moves it to its history)', async () => {
    const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: session!.busAddress() };
    const history = () => execFileSync('dunstctl', ['history'], { env, encoding: 'utf8' });
    const sid = 'resolve-on-answer';
    const ask = handoffOf({
      ...fixture('04-Notification.json'),
      session_id: sid,
      message: 'Answer me soon',
    });
    await handOff(ask, { env: temp.env, timeoutMs: 5000 });
    await waitFor(
      () => session!.shown().some((n) => `${n.summary}|${n.body}`.includes('Answer me soon')),
      30_000,
      'the waiting notification shown by dunst',
    );
    // Shown and never expiring: not in the history of closed notifications.
    expect(history()).not.toContain('Answer me soon');
    const answer = handoffOf({ ...fixture('05-PostToolUse-Execute.json'), session_id: sid });
    await handOff(answer, { env: temp.env, timeoutMs: 5000 });
    await waitFor(() => history().includes('Answer me soon'), 30_000, 'the notification closed');
  });
});

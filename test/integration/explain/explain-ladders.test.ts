import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handOff } from '../../../src/link/client.js';
import { startDaemon, type DaemonHandle } from '../../../src/daemon/lifecycle/daemon.js';
import { explainEvent } from '../../../src/explain/explain-event.js';
import { formatExplanation } from '../../../src/explain/format-explain.js';
import { makeDoctorHome, writeJson, type DoctorHome } from '../doctor/doctor-env.js';

let h: DoctorHome;
let daemon: DaemonHandle | undefined;
beforeEach(() => {
  h = makeDoctorHome();
});
afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
  h.cleanup();
});

const notify = {
  channels: { slack: { type: 'webhook', url: 'http://127.0.0.1:9/never' } },
  rules: [
    {
      name: 'needs you',
      on: 'Notification',
      channels: ['desktop'],
      escalate: [
        { after: '5m', channels: ['slack'] },
        { after: '15m', channels: ['slack'], repeat: '10m', maxRepeats: 2 },
      ],
    },
    { name: 'failed', on: 'StopFailure', channels: ['slack'], breakthrough: true },
  ],
  quietHours: { windows: [{ start: '00:00', end: '23:59' }] },
  presence: { source: 'off' },
};
const payload = (name: string) => ({
  hook_event_name: name,
  session_id: 'sess-1',
  cwd: h.project,
  message: 'needs you',
});

describe('explain: escalation ladders, presence, breakthrough', () => {
  it("shows a rule's ladder and presence from the config, and the session's live ladders from the daemon or its journal", async () => {
    writeJson(h.env.HOOKD_CONFIG!, { notify });
    const before = await explainEvent(payload('Notification'), { env: h.env });
    expect(before.notifications.fire[0]).toMatchObject({
      rule: 'needs you',
      ladder: 'slack after 5m00s; slack after 15m00s, then every 10m00s up to 2 times',
      presence: expect.stringContaining('auto: while you are active here only local channels now'),
    });
    expect(before.notifications.ladders).toBeUndefined();
    const text = formatExplanation(before, { color: false });
    expect(text).toContain('then, while the session is not answered: slack after 5m00s');
    const failure = await explainEvent(payload('StopFailure'), { env: h.env });
    expect(failure.notifications.fire[0]).toMatchObject({ rule: 'failed', breakthrough: true });
    expect(failure.notifications.fire[0]!.heldUntil).toBeUndefined();

    daemon = await startDaemon({
      env: h.env,
      config: { notify: { ...notify, quietHours: undefined } },
      watchConfig: false,
    });
    const event = {
      id: 'e-1',
      receivedAt: Date.now(),
      agent: 'droid' as const,
      name: 'Notification',
      sessionId: 'sess-1',
      cwd: h.project,
      payload: payload('Notification'),
    };
    const ack = await handOff(
      { v: 1, type: 'event', event, results: [] },
      { env: h.env, autoStart: false, timeoutMs: 5000 },
    );
    expect(ack.outcome).toBe('acked');
    for (let i = 0; i < 500 && daemon.stats().events.pending > 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    const live = await explainEvent(payload('Notification'), { env: h.env });
    expect(live.notifications.ladders).toEqual({
      via: 'daemon',
      lines: [expect.stringMatching(/^needs you: slack after 5m00s; .* — 0 of 4 sent, next in \d+m\d+s$/)],
    });
    await daemon.close();
    daemon = undefined;
    const down = await explainEvent(payload('Notification'), { env: h.env });
    expect(down.notifications.ladders?.via).toBe('journal');
    expect(formatExplanation(down, { color: false })).toContain(
      'escalation ladders of this session (the journal: the daemon is not running)',
    );
  });
});

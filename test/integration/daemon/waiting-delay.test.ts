import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon } from '../../../src/daemon/lifecycle/daemon.js';
import { outboxAction } from '../../../src/daemon/admin.js';
import { runCli } from '../../helpers/cli-run.js';
import { eventSender, loopbackServer, tempEnv, waitFor } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const DELAY = 5000;

/** The real pipeline, outbox and journal in this process, with a clock the test moves. */
async function setup(noise: Record<string, unknown> = { dedupeWindowMs: 0 }) {
  const temp = tempEnv();
  cleanups.push(temp.cleanup);
  const server = await loopbackServer();
  cleanups.push(server.close);
  let clock = 1_800_000_000_000;
  const config = {
    notify: {
      channels: { ops: { type: 'webhook', url: `${server.url}/in` } },
      rules: [
        {
          name: 'needs you',
          on: ['Notification', 'PermissionRequest'],
          channels: ['ops'],
          title: '{{message}}',
        },
        { name: 'marker', on: ['SessionEnd'], channels: ['ops'], title: 'marker' },
      ],
      noise,
      waitingDelayMs: DELAY,
    },
  };
  const open = () =>
    startDaemon({ env: temp.env, config, housekeepingIntervalMs: 20, now: () => clock, watchConfig: false });
  let daemon = await open();
  cleanups.push(() => daemon.close());
  const send = eventSender(temp.env, () => daemon);
  const ask = (session: string) =>
    send('04-Notification.json', { session_id: session, message: `${session} needs you` });
  /** Sends a notification that is never held and waits for it: everything queued before it went first. */
  const marker = async (session: string) => {
    const before = server.received.length;
    await send('13-SessionEnd.json', { session_id: session });
    await waitFor(() => server.received.length > before, 10_000, `marker ${session}`);
  };
  /** What the webhook received: each notification's title, or `resolved` for a resolved event. */
  const titles = () =>
    server.received.map((r) => {
      const body = r.json as { type?: string; notification?: { title: string } };
      return body.type === 'resolved' ? 'resolved' : body.notification!.title;
    });
  const held = () => daemon.stats().outbox.held;
  return {
    env: temp.env,
    ask,
    send,
    marker,
    titles,
    held,
    advance: (ms: number) => (clock += ms),
    restart: async () => {
      await daemon.close();
      daemon = await open();
    },
  };
}

describe('delay-then-cancel of "waiting" notifications', () => {
  it('answered within the delay: nothing sent; not answered: sent once', async () => {
    const t = await setup();
    await t.ask('answered');
    expect(t.held()).toBe(1);
    t.advance(2000);
    // The user answers in the terminal: the tool runs.
    await t.send('05-PostToolUse-Execute.json', { session_id: 'answered' });
    expect(t.held()).toBe(0);
    // Nothing in the outbox but the cancelled one, which says why: `hookd outbox list --state cancelled`.
    const all = await outboxAction(t.env, { action: 'list', state: 'all' });
    expect(all.items?.map((d) => d.state)).toEqual(['cancelled']);
    expect(all.items?.[0]).toMatchObject({
      notification: { title: 'answered needs you' },
      waiting: { session: 'answered' },
      cancelledBy: expect.stringMatching(/^PostToolUse /),
    });
    const cli = await runCli(['outbox', 'list', '--state', 'cancelled'], {
      env: t.env as Record<string, string>,
    });
    expect(cli.stdout).toContain('not sent: the session moved on (PostToolUse');

    await t.ask('late');
    t.advance(DELAY);
    await waitFor(() => t.titles().length === 1, 10_000, 'the unanswered notification');
    expect(t.titles()).toEqual(['late needs you']);
    // The late answer marks the shown one resolved (docs/sessions.md); it was sent once.
    await t.send('05-PostToolUse-Execute.json', { session_id: 'late' });
    await waitFor(() => t.titles().length === 2, 10_000, 'the resolved event');
    t.advance(DELAY * 10);
    await t.marker('late');
    expect(t.titles()).toEqual(['late needs you', 'resolved', 'marker']);
  });

  it('a <task-notification> prompt, a sub-agent event or a Stop-hook continuation is not an answer', async () => {
    const t = await setup();
    await t.ask('s');
    await t.send('11-UserPromptSubmit.json', {
      session_id: 's',
      prompt: '<task-notification>\n<task-id>a1</task-id>\n<status>completed</status>\n</task-notification>',
    });
    await t.send('03-PreToolUse-Execute.json', { session_id: 's', agent_id: 'a705158c88d3ccfa8' });
    await t.send('03-PreToolUse-Execute.json', { session_id: 's', stop_hook_active: true });
    expect(t.held()).toBe(1);
    t.advance(DELAY);
    await waitFor(() => t.titles().length === 1, 10_000, 'the notification');
    expect(t.titles()).toEqual(['s needs you']);
  });

  it('a held notification survives a daemon restart: cancelled after it if answered, else sent once', async () => {
    const t = await setup();
    await t.ask('kept');
    await t.ask('answered-later');
    await t.restart();
    expect(t.held()).toBe(2);
    await t.send('02-UserPromptSubmit.json', { session_id: 'answered-later', prompt: 'yes, go on' });
    expect(t.held()).toBe(1);
    // The cancel is in the journal too: it does not come back after another restart.
    await t.restart();
    expect(t.held()).toBe(1);
    t.advance(DELAY);
    await waitFor(() => t.titles().length === 1, 10_000, 'the kept notification');
    await t.marker('kept');
    expect(t.titles()).toEqual(['kept needs you', 'marker']);
  });

  it('a cancelled ask leaves no dedupe or cooldown behind: the same ask again, unanswered, is sent', async () => {
    const t = await setup({ dedupeWindowMs: 600_000, cooldownMs: 600_000 });
    await t.ask('same');
    await t.send('05-PostToolUse-Execute.json', { session_id: 'same' });
    expect(t.held()).toBe(0);
    t.advance(1000);
    await t.ask('same');
    expect(t.held()).toBe(1);
    t.advance(DELAY);
    await waitFor(() => t.titles().length === 1, 10_000, 'the second ask');
    // Once sent, dedupe applies as before: the same ask again is not sent (nor held).
    await t.ask('same');
    expect(t.held()).toBe(0);
    await t.marker('same');
    expect(t.titles()).toEqual(['same needs you', 'marker']);
  });
});

describe('held notifications on the real clock', () => {
  it('each goes out when its delay ends, through one timer, with no housekeeping to help', async () => {
    const temp = tempEnv();
    cleanups.push(temp.cleanup);
    const server = await loopbackServer();
    cleanups.push(server.close);
    const config = {
      notify: {
        channels: { ops: { type: 'webhook', url: `${server.url}/in` } },
        rules: [{ name: 'needs you', on: ['Notification'], channels: ['ops'], title: '{{message}}' }],
        noise: { dedupeWindowMs: 0 },
        waitingDelayMs: 50,
      },
    };
    // Housekeeping once an hour: only the release timer can send these.
    const daemon = await startDaemon({ env: temp.env, config, housekeepingIntervalMs: 3_600_000 });
    cleanups.push(() => daemon.close());
    const send = eventSender(temp.env, () => daemon);
    for (const session of ['first', 'second', 'third'])
      await send('04-Notification.json', { session_id: session, message: `${session} needs you` });
    await waitFor(() => server.received.length === 3, 10_000, 'the three notifications');
    expect(daemon.stats().outbox.held).toBe(0);
  });
});

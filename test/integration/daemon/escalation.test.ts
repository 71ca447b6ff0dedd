import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon } from '../../../src/daemon/lifecycle/daemon.js';
import { outboxAction } from '../../../src/daemon/admin.js';
import { daemonLogPath } from '../../../src/daemon/lifecycle/logger.js';
import type { Answered } from '../../../src/journal/escalator.js';
import { runCli } from '../../helpers/cli-run.js';
import { jsonLines } from '../../helpers/json-lines.js';
import { eventSender, loopbackServer, tempEnv, waitFor } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const MIN = 60_000;
const DELAY = 5000;

interface Options {
  presence?: () => 'active' | 'idle' | 'unknown';
  /** notify.presence instead of `off` (a real probe), and variables added to the daemon's env. */
  presenceConfig?: Record<string, unknown>;
  env?: (root: string) => Record<string, string>;
  rule?: Record<string, unknown>;
  extraRules?: Record<string, unknown>[];
  quietHours?: Record<string, unknown>;
  start?: number;
}

/**
 * The real daemon in this process with a clock the test moves: "desk" is a local command channel
 * (the desktop stand-in, writing one JSON line per notification), "slack" an incoming webhook and
 * "phone" an ntfy server, both loopback HTTP servers.
 */
async function setup(options: Options = {}) {
  const temp = tempEnv();
  cleanups.push(temp.cleanup);
  const slack = await loopbackServer();
  cleanups.push(slack.close);
  const ntfy = await loopbackServer();
  cleanups.push(ntfy.close);
  const hook = await loopbackServer();
  cleanups.push(hook.close);
  const deskFile = join(temp.root, 'desk.jsonl');
  let clock = options.start ?? 1_800_000_000_000;
  const answered: Answered[] = [];
  const config = {
    notify: {
      channels: {
        desk: { type: 'command', command: ['sh', '-c', 'cat >> "$0"; echo >> "$0"', deskFile] },
        slack: { type: 'slack', webhookUrl: `${slack.url}/hook` },
        phone: { type: 'ntfy', server: ntfy.url, topic: 'phone' },
        hook: { type: 'webhook', url: `${hook.url}/in` },
      },
      rules: [
        {
          name: 'needs you',
          on: ['Notification', 'PermissionRequest'],
          channels: ['desk'],
          title: '{{message}}{{tool}}',
          body: '',
          escalate: [
            { after: '5m', channels: ['slack'] },
            { after: '15m', channels: ['phone'], repeat: '10m', maxRepeats: 3 },
          ],
          ...options.rule,
        },
        { name: 'marker', on: ['SessionEnd'], channels: ['desk'], title: 'marker {{sessionId}}', body: '' },
        ...(options.extraRules ?? []),
      ],
      noise: { dedupeWindowMs: 0 },
      waitingDelayMs: DELAY,
      // No idle source read here: presence is unknown unless a test injects a reading.
      presence: options.presenceConfig ?? { source: 'off' },
      ...(options.quietHours ? { quietHours: options.quietHours } : {}),
    },
  };
  const daemon = await startDaemon({
    env: { ...temp.env, ...options.env?.(temp.root) },
    config,
    housekeepingIntervalMs: 20,
    now: () => clock,
    watchConfig: false,
    onAnswered: (a) => answered.push(a),
    ...(options.presence ? { presence: async () => ({ state: options.presence!() }) } : {}),
  });
  cleanups.push(() => daemon.close());
  const send = eventSender(temp.env, () => daemon);
  const ask = (session: string) =>
    send('04-Notification.json', { session_id: session, message: `${session} needs you` });
  const titlesOf = (server: { received: { json: unknown }[] }) =>
    server.received.map((r) => {
      const j = r.json as { title?: string; text?: string };
      return j.title ?? j.text ?? '';
    });
  const desk = () =>
    existsSync(deskFile)
      ? readFileSync(deskFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { notification: { title: string } }).notification.title)
      : [];
  return {
    env: temp.env,
    send,
    ask,
    desk,
    slack: () => titlesOf(slack),
    /** The webhook's bodies: a notification's title, or `resolved by <what> <delivery id>`. */
    hook: () =>
      hook.received.map((r) => {
        const b = r.json as {
          type?: string;
          resolves?: string;
          by?: string;
          notification?: { title: string };
        };
        return b.type === 'resolved' ? `resolved by ${b.by} ${b.resolves}` : b.notification!.title;
      }),
    phone: () => titlesOf(ntfy),
    answered,
    daemon,
    /** Moves the clock to `ms` after the start. */
    at: (ms: number) => (clock = (options.start ?? 1_800_000_000_000) + ms),
    log: () => jsonLines<{ msg: string; [k: string]: unknown }>(daemonLogPath(temp.env)),
  };
}

const count = (list: string[], part: string) => list.filter((t) => t.includes(part)).length;

describe('escalation ladders', () => {
  it('desk now, slack after 5 min, phone after 15 and every 10 min up to 3 reminders, then it stops', async () => {
    const t = await setup();
    await t.ask('s');
    t.at(DELAY);
    await waitFor(() => t.desk().length === 1, 10_000, 'the desk notification after the hold');
    expect(t.slack()).toEqual([]);
    t.at(5 * MIN);
    await waitFor(() => t.slack().length === 1, 10_000, 'the slack step');
    expect(t.slack()[0]).toContain('Still waiting (5m00s)');
    expect(t.slack()[0]).toContain('s needs you');
    expect(t.phone()).toEqual([]);
    for (const [minute, sent] of [
      [15, 1],
      [25, 2],
      [35, 3],
      [45, 4],
    ] as const) {
      t.at(minute * MIN);
      await waitFor(() => t.phone().length === sent, 10_000, `phone sending ${sent}`);
    }
    expect(t.phone()[0]).toContain('Still waiting (15m00s): s needs you');
    // Every step sent: the ladder is done, nothing more however long nobody answers.
    t.at(3 * 60 * MIN);
    await waitFor(
      () => t.log().find((r) => r.msg.startsWith('escalation stopped') && r.end === 'done'),
      10_000,
      'the ladder done',
    );
    expect([t.desk().length, t.slack().length, t.phone().length]).toEqual([1, 1, 4]);
    const list = await runCli(['outbox', 'list'], { env: t.env as Record<string, string> });
    expect(list.stdout).toContain('escalation step 2, reminder 3');
    expect(list.stdout).toMatch(
      /escalation ladders:\n {2}stopped {2}s {2}needs you: slack after 5m00s; .* — stopped \(done: every step sent\)/,
    );
    const outbox = await outboxAction(t.env, { action: 'list', state: 'delivered' });
    expect(outbox.items?.filter((d) => d.escalation).map((d) => d.id.split('/').slice(-2).join('/'))).toEqual(
      ['esc0.0/slack', 'esc1.0/phone', 'esc1.1/phone', 'esc1.2/phone', 'esc1.3/phone'],
    );
  });

  it('stopped by an answer in the terminal: nothing after it; an unanswered session goes on', async () => {
    const t = await setup();
    await t.ask('answered');
    await t.ask('control');
    t.at(5 * MIN);
    await waitFor(() => t.slack().length === 2, 10_000, 'both slack steps');
    // A sub-agent's tool and a <task-notification> prompt are not the user answering.
    await t.send('03-PreToolUse-Execute.json', { session_id: 'answered', agent_id: 'a70515' });
    await t.send('11-UserPromptSubmit.json', {
      session_id: 'answered',
      prompt: '<task-notification>\n<task-id>a1</task-id>\n</task-notification>',
    });
    t.at(15 * MIN);
    await waitFor(() => t.phone().length === 2, 10_000, 'both phone steps');
    await t.send('02-UserPromptSubmit.json', { session_id: 'answered', prompt: 'yes, go on' });
    t.at(25 * MIN);
    await waitFor(() => count(t.phone(), 'control') === 2, 10_000, "control's reminder");
    expect(count(t.phone(), 'answered')).toBe(1);
    expect(t.answered).toMatchObject([
      { session: 'answered', how: 'answered', by: expect.stringMatching(/^UserPromptSubmit /) },
    ]);
    const stopped = t.log().find((r) => r.msg.startsWith('escalation stopped') && r.sessionId === 'answered');
    expect(stopped).toMatchObject({ end: 'answered', by: expect.stringMatching(/^UserPromptSubmit /) });
  });

  it("a permission ask for one tool is answered by that tool's events only", async () => {
    const t = await setup();
    await t.send('04-Notification.json', {
      session_id: 'perm',
      hook_event_name: 'PermissionRequest',
      tool_name: 'Write',
    });
    await t.send('04-Notification.json', {
      session_id: 'control',
      hook_event_name: 'PermissionRequest',
      tool_name: 'Write',
    });
    // Another tool of the session (a parallel call) is no answer to the Write permission.
    await t.send('05-PostToolUse-Execute.json', { session_id: 'perm', tool_name: 'Execute' });
    t.at(5 * MIN);
    await waitFor(() => t.slack().length === 2, 10_000, 'both slack steps');
    await t.send('05-PostToolUse-Execute.json', { session_id: 'perm', tool_name: 'Write' });
    t.at(15 * MIN);
    await waitFor(() => t.phone().length === 1, 10_000, "control's phone step");
    expect(t.phone()[0]).toContain('Write');
    await waitFor(() => t.answered.length === 1, 10_000, 'the answer');
    expect(t.answered[0]).toMatchObject({ session: 'perm', how: 'answered' });
  });

  it('the end of the turn ends a permission ask; the end of the session ends any', async () => {
    const t = await setup();
    await t.send('04-Notification.json', {
      session_id: 'turn',
      hook_event_name: 'PermissionRequest',
      tool_name: 'Write',
    });
    await t.ask('quit');
    await t.ask('control');
    await t.send('12-Stop.json', { session_id: 'turn' });
    await t.send('13-SessionEnd.json', { session_id: 'quit', reason: 'other' });
    t.at(5 * MIN);
    await waitFor(() => t.slack().length === 1, 10_000, "control's slack step");
    // The ended sessions' held notifications went with their ladders; the marker of quit's end is sent.
    await waitFor(() => t.desk().includes('control needs you'), 10_000, "control's desk notification");
    expect(t.slack()).toEqual([expect.stringContaining('control needs you')]);
    expect(t.desk()).toEqual(['marker quit', 'control needs you']);
    const ended = t.log().filter((r) => r.msg.startsWith('escalation stopped: ended ('));
    expect(ended.map((r) => r.sessionId).sort()).toEqual(['quit', 'turn']);
  });

  it('`hookd ack` stops the most recent waiting session, a named one, or all', async () => {
    const t = await setup();
    await t.ask('first-session');
    t.at(1000);
    await t.ask('second-session');
    t.at(2000);
    await t.ask('third-session');
    const env = t.env as Record<string, string>;
    // The most recent: its held notification is cancelled and its ladder stopped.
    const recent = await runCli(['ack'], { env });
    expect(recent.code).toBe(0);
    expect(recent.stdout).toContain('acknowledged third-session');
    expect(recent.stdout).toContain('the most recent waiting session');
    expect(recent.stdout).toContain('still waiting: 2 sessions');
    const named = await runCli(['ack', 'first', '--json'], { env });
    expect(JSON.parse(named.stdout)).toMatchObject({
      acked: [{ session: 'first-session', ladders: [expect.any(String)] }],
      stillWaiting: [{ session: 'second-session' }],
    });
    const unknown = await runCli(['ack', 'nope'], { env });
    expect(unknown.code).toBe(5);
    expect(unknown.stderr).toContain('nothing waits for an answer in session nope');
    t.at(6 * MIN);
    await waitFor(() => t.slack().length === 1, 10_000, "second-session's slack step");
    expect(t.slack()[0]).toContain('second-session');
    const all = await runCli(['ack', '--all'], { env });
    expect(all.stdout).toContain('acknowledged second-session');
    const none = await runCli(['ack'], { env });
    expect(none.stdout).toContain('nothing waits for an answer');
    t.at(60 * MIN);
    await t.ask('later');
    t.at(65 * MIN);
    await waitFor(() => t.slack().length === 2, 10_000, "later's slack step");
    expect(t.phone()).toEqual([]);
    // The desk channel delivers in order: once later's notification is there, any before it is too. Only
    // second-session's went of the first three: the acked ones were cancelled before their hold ended.
    await waitFor(() => t.desk().includes('later needs you'), 10_000, "later's desk notification");
    expect(t.desk()).toEqual(['second-session needs you', 'later needs you']);
    expect(t.answered.map((a) => [a.session, a.how])).toEqual([
      ['third-session', 'acked'],
      ['first-session', 'acked'],
      ['second-session', 'acked'],
    ]);
    const cancelled = await runCli(['outbox', 'list', '--state', 'cancelled'], { env });
    expect(cancelled.stdout).toContain('not sent: acknowledged (hookd ack)');
  });

  it('`hookd ack` marks what was shown resolved, the first notification and the escalated one', async () => {
    const t = await setup({
      rule: { channels: ['hook'], escalate: [{ after: '5m', channels: ['hook'], repeat: '10m' }] },
    });
    await t.ask('s');
    t.at(DELAY);
    await waitFor(() => t.hook().length === 1, 10_000, 'the first notification');
    t.at(5 * MIN);
    await waitFor(() => t.hook().length === 2, 10_000, 'the escalation step');
    const acked = await runCli(['ack', 's'], { env: t.env as Record<string, string> });
    expect(acked.code).toBe(0);
    await waitFor(() => t.hook().length === 4, 10_000, 'both resolved');
    expect(t.hook().slice(2).sort()).toEqual([
      expect.stringMatching(/^resolved by hookd ack .*\/0\/esc0\.0\/hook$/),
      expect.stringMatching(/^resolved by hookd ack .*\/0\/hook$/),
    ]);
  });

  it('presence: active sends local channels only, remote by the ladder; idle fires the first remote step at once', async () => {
    let state: 'active' | 'idle' | 'unknown' = 'active';
    const t = await setup({
      presence: () => state,
      rule: { channels: ['desk', 'slack'], escalate: [{ after: '15m', channels: ['phone'] }] },
    });
    await t.ask('here');
    state = 'idle';
    await t.ask('away');
    state = 'unknown';
    await t.ask('unknown');
    t.at(DELAY);
    await waitFor(
      () => t.desk().length === 3 && t.slack().length === 2 && t.phone().length === 1,
      10_000,
      'the first sendings',
    );
    // Active: desk only (slack left out); idle: desk, slack and the phone step at once; unknown: as written.
    expect(count(t.slack(), 'here')).toBe(0);
    expect(count(t.phone(), 'away')).toBe(1);
    expect(count(t.slack(), 'unknown')).toBe(1);
    t.at(15 * MIN);
    await waitFor(() => t.phone().length === 3, 10_000, 'the phone steps of here and unknown');
    expect(count(t.phone(), 'away')).toBe(1);
    const applied = t.log().filter((r) => r.msg === 'presence applied');
    expect(applied.map((r) => [r.sessionId, r.presence])).toEqual([
      ['here', 'active'],
      ['away', 'idle'],
      ['unknown', 'unknown'],
    ]);
    expect(String((applied[0]!.applied as string[])[0])).toContain('slack not now');
  });

  it('presence from the configured probe: a working idle source that says active keeps remote channels back', async () => {
    const t = await setup({
      presenceConfig: { source: 'xprintidle', idleAfterMs: 60_000 },
      // An X11 idle source answering 1.5 s of idle time: the probe the daemon builds from the config runs it.
      env: (root) => {
        const bin = join(root, 'bin');
        mkdirSync(bin);
        writeFileSync(join(bin, 'xprintidle'), '#!/bin/sh\necho 1500\n', { mode: 0o755 });
        return { PATH: `${bin}:${process.env.PATH ?? ''}`, DISPLAY: ':77' };
      },
      rule: { channels: ['desk', 'slack'], escalate: [{ after: '15m', channels: ['phone'] }] },
    });
    await t.ask('here');
    t.at(DELAY);
    await waitFor(() => t.desk().length === 1, 10_000, 'the desk notification');
    t.at(15 * MIN);
    await waitFor(() => t.phone().length === 1, 10_000, 'the ladder to the phone');
    expect(t.slack()).toEqual([]);
    expect(t.log().find((r) => r.msg === 'presence applied')).toMatchObject({
      sessionId: 'here',
      presence: 'active',
    });
  });

  it('quiet hours hold ladder steps and normal notifications; urgent ones break through', async () => {
    // 23:00 local time, in a 22:00-07:00 quiet window.
    const start = new Date(2027, 0, 5, 23, 0).getTime();
    const t = await setup({
      start,
      quietHours: { windows: [{ start: '22:00', end: '07:00' }] },
      extraRules: [
        { name: 'failed', on: ['StopFailure'], channels: ['phone'], title: 'failed {{sessionId}}', body: '' },
        {
          name: 'held anyway',
          on: ['StopFailure'],
          channels: ['slack'],
          breakthrough: false,
          title: 'held {{sessionId}}',
          body: '',
        },
        {
          name: 'finished',
          on: ['Stop'],
          channels: ['phone'],
          breakthrough: true,
          title: 'done {{sessionId}}',
          body: '',
        },
      ],
    });
    await t.ask('night');
    await t.send('12-Stop.json', {
      session_id: 'other',
      hook_event_name: 'StopFailure',
      error: 'rate_limit',
    });
    await t.send('12-Stop.json', { session_id: 'other2' });
    await waitFor(() => t.phone().length === 2, 10_000, 'the urgent and breakthrough notifications');
    expect(t.phone()).toEqual(['failed other', 'done other2']);
    t.at(60 * MIN);
    await waitFor(
      () => t.log().some((r) => r.msg === 'escalation held by quiet hours'),
      10_000,
      'the held step',
    );
    expect(t.slack()).toEqual([]);
    expect(t.desk()).toEqual([]);
    // 07:00: the held ones go, the ladder step once (not once per step missed).
    t.at(8 * 60 * MIN + 1000);
    await waitFor(() => t.slack().length === 2 && t.desk().length === 1, 10_000, 'the release at 07:00');
    expect(t.slack().sort()).toEqual(['Still waiting (8h00m): night needs you', 'held other'].sort());
    t.at(8 * 60 * MIN + 5000);
    await waitFor(() => count(t.phone(), 'night') === 1, 10_000, 'the phone step after quiet hours');
  });
});

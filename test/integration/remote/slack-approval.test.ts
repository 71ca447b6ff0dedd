import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { remoteSlackSchema } from '../../../src/config/schemas/remote-slack-schema.js';
import { MAX_OPEN_ASKS } from '../../../src/remote/broker.js';
import {
  MESSAGES_KEPT,
  createSlackApprovalChannel,
  type SlackApprovalChannel,
  type SlackApprovalOptions,
} from '../../../src/remote/slack-approval.js';
import { outcomeLine } from '../../../src/remote/slack-approval-message.js';
import type { SlackLog } from '../../../src/remote/slack-socket.js';
import type { Timers } from '../../../src/util/timers.js';
import { ManualTimers } from '../../helpers/manual-timers.js';
import type { PermissionAsk, RemoteAnswer } from '../../../src/remote/types.js';
import { waitFor } from '../../helpers/wait.js';
import {
  FAKE_APP_TOKEN,
  FAKE_BOT_TOKEN,
  FAKE_CHANNEL_ID,
  startFakeSlack,
  type FakeMessage,
  type FakeSlack,
} from '../../harness/slack/fake-slack.js';

const APPROVER = 'U0APPROVER1';

interface Record_ {
  level: 'debug' | 'info' | 'warn';
  fields: Record<string, unknown>;
  msg: string;
}

function memoryLog(): SlackLog & { records: Record_[]; has(level: Record_['level'], text: string): boolean } {
  const records: Record_[] = [];
  const at = (level: Record_['level']) => (fields: Record<string, unknown>, msg: string) =>
    void records.push({ level, fields, msg });
  return {
    records,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    has: (level, text) => records.some((r) => r.level === level && r.msg.includes(text)),
  };
}

const HEARTBEAT_MS = 777_777;

/** The socket's waits on timers the test fires, with a fixed jitter (the longest wait). */
function byHand(timers: Timers) {
  return { timers, random: () => 0.999, initialBackoffMs: 1000, heartbeatMs: HEARTBEAT_MS };
}

/** Runs the one pending timer that `which` picks (the heartbeat, or a retry), and returns its delay. */
function fire(timers: ManualTimers, which: 'beat' | 'retry'): number {
  const due = [...timers.pending].filter(([, t]) => (t.ms === HEARTBEAT_MS) === (which === 'beat'));
  expect(due).toHaveLength(1);
  return timers.fire(due[0]![0]);
}

function ask(id = 'ask1', overrides: Partial<PermissionAsk['summary']> = {}): PermissionAsk {
  return {
    id,
    agent: 'claude',
    session: 'sess-1',
    project: '/home/ann/src/app',
    summary: {
      title: 'Claude Code wants to run Bash in ~/src/app',
      tool: 'Bash',
      command: 'npm test',
      ...overrides,
    },
    expiresAt: Date.UTC(2026, 10, 27, 5, 0, 0),
    tokens: { allow: `allow-${id}-Zq3vX8kP2mN7`, deny: `deny-${id}-Lw9rT4yB6cD1` },
  };
}

describe('the Slack answer channel against a fake Slack (Socket Mode)', () => {
  let slack: FakeSlack;
  let channel: SlackApprovalChannel | undefined;
  let log: ReturnType<typeof memoryLog>;
  let answers: RemoteAnswer[];

  beforeEach(async () => {
    slack = await startFakeSlack();
    log = memoryLog();
    answers = [];
  });
  afterEach(async () => {
    await channel?.close();
    channel = undefined;
    await slack.close();
  });

  async function started(socket: SlackApprovalOptions['socket'] = {}): Promise<SlackApprovalChannel> {
    const config = remoteSlackSchema.parse({
      appToken: FAKE_APP_TOKEN,
      botToken: FAKE_BOT_TOKEN,
      channel: FAKE_CHANNEL_ID,
      approvers: [APPROVER],
      apiBaseUrl: slack.apiBaseUrl,
    });
    channel = createSlackApprovalChannel(config, { log, socket });
    await channel.start((answer) => answers.push(answer));
    return channel;
  }

  async function asked(c: SlackApprovalChannel, a: PermissionAsk): Promise<FakeMessage> {
    const before = slack.messages.length;
    await c.ask(a);
    expect(slack.messages.length).toBe(before + 1);
    return slack.messages.at(-1)!;
  }

  it('posts the ask with the bot token, showing what would run, with Allow and Deny buttons', async () => {
    const c = await started();
    const message = await asked(c, ask());
    const post = slack.calls.find((call) => call.method === 'chat.postMessage')!;
    expect(post.token).toBe(FAKE_BOT_TOKEN);
    expect(post.body.channel).toBe(FAKE_CHANNEL_ID);
    const shown = JSON.stringify(message.versions[0]);
    expect(shown).toContain('npm test');
    expect(shown).toContain('Claude Code wants to run Bash');
    const actions = (message.versions[0]!.blocks as { type: string; elements?: unknown[] }[]).find(
      (b) => b.type === 'actions',
    )!;
    expect(actions.elements).toEqual([
      expect.objectContaining({ action_id: 'hookd_allow', value: 'allow-ask1-Zq3vX8kP2mN7' }),
      expect.objectContaining({ action_id: 'hookd_deny', value: 'deny-ask1-Lw9rT4yB6cD1' }),
    ]);
    expect(slack.calls.find((call) => call.method === 'apps.connections.open')!.token).toBe(FAKE_APP_TOKEN);
  });

  it('shows hostile event text as text: no mention, link or broken-out code block', async () => {
    const c = await started();
    const message = await asked(
      c,
      ask('ask2', {
        title: 'run <!channel> <https://evil.example|docs> & more',
        command: 'echo ```*bold* <@U0OTHER1>``` done',
      }),
    );
    const shown = JSON.stringify(message.versions[0]);
    expect(shown).not.toMatch(/<!channel>|<https:|<@U0OTHER1>/);
    expect(shown).toContain('&lt;!channel&gt; &lt;https://evil.example|docs&gt; &amp; more');
    const blocks = message.versions[0]!.blocks as { text?: { text: string } }[];
    const command = blocks.find((b) => b.text?.text.startsWith('*Command*'))!.text!.text;
    // The code block opens once and closes once: the command's own fences are broken.
    expect(command.match(/```/g)).toHaveLength(2);
  });

  it('turns a click into an answer carrying the token and the clicking user, and acks the envelope', async () => {
    const c = await started();
    const message = await asked(c, ask());
    const envelope = slack.click(message, APPROVER, 'hookd_deny');
    await waitFor(() => answers.length === 1, 10_000, 'the answer');
    expect(answers[0]).toEqual({ token: 'deny-ask1-Lw9rT4yB6cD1', channel: 'slack', approver: APPROVER });
    await waitFor(() => slack.acks.includes(envelope), 10_000, 'the ack');
    // Someone else's click is reported as theirs: the broker, not the channel, checks the allowlist.
    slack.click(message, 'U0STRANGER', 'hookd_allow');
    await waitFor(() => answers.length === 2, 10_000, 'the second answer');
    expect(answers[1]).toEqual({
      token: 'allow-ask1-Zq3vX8kP2mN7',
      channel: 'slack',
      approver: 'U0STRANGER',
    });
    // Tokens are never written to the log.
    expect(JSON.stringify(log.records)).not.toMatch(/allow-ask1|deny-ask1|xapp-|xoxb-|ticket/);
  });

  it('reconnects with a fresh URL when Slack asks for a refresh, and still delivers clicks', async () => {
    const c = await started();
    const message = await asked(c, ask());
    expect(slack.linksOpened()).toBe(1);
    slack.sendDisconnect('refresh_requested');
    await waitFor(() => slack.linksOpened() === 2 && slack.linksOpen() === 1, 10_000, 'the new link');
    expect(slack.calls.filter((call) => call.method === 'apps.connections.open')).toHaveLength(2);
    await waitFor(() => c.socket?.state === 'open', 10_000, 'hello on the new link');
    slack.click(message, APPROVER, 'hookd_allow');
    await waitFor(() => answers.length === 1, 10_000, 'the answer');
    expect(answers[0]!.token).toBe('allow-ask1-Zq3vX8kP2mN7');
    expect(log.has('info', 'asked to reconnect')).toBe(true);
  });

  it('edits the message when the ask ends: buttons gone, the outcome said', async () => {
    const c = await started();
    const cases = [
      [{ result: 'allow', by: APPROVER, via: 'slack' }, `Allowed by <@${APPROVER}> from Slack`],
      [{ result: 'deny', by: 'ntfy', via: 'ntfy' }, 'Denied from ntfy'],
      [{ result: 'answered-at-terminal' }, 'Answered at the terminal'],
      [{ result: 'expired' }, "Expired: the agent's own prompt took over"],
    ] as const;
    for (const [index, [outcome, line]] of cases.entries()) {
      const a = ask(`settle${index}`);
      const message = await asked(c, a);
      await c.settle(a, outcome);
      expect(message.versions).toHaveLength(2);
      const edited = message.versions[1]!;
      const update = slack.calls.filter((call) => call.method === 'chat.update').at(-1)!;
      expect(update.token).toBe(FAKE_BOT_TOKEN);
      expect(JSON.stringify(edited.blocks)).toContain(line);
      expect((edited.blocks as { type: string }[]).some((b) => b.type === 'actions')).toBe(false);
      expect(JSON.stringify(edited)).not.toContain(a.tokens.allow);
      // Settled once: a second settle has no message left to edit.
      await c.settle(a, outcome);
      expect(message.versions).toHaveLength(2);
    }
  });

  it('an ask that ends while its message is being posted has the message edited once it is', async () => {
    const c = await started();
    const a = ask('early');
    const posting = c.ask(a);
    // Answered elsewhere before Slack replied to the post: there is no message to edit yet.
    await c.settle(a, { result: 'answered-at-terminal' });
    await posting;
    const message = slack.messages.at(-1)!;
    expect(message.versions).toHaveLength(2);
    expect((message.versions[1]!.blocks as { type: string }[]).some((b) => b.type === 'actions')).toBe(false);
    expect(JSON.stringify(message.versions[1])).toContain(outcomeLine({ result: 'answered-at-terminal' }));
  });

  it('remembers a bounded number of messages: the oldest is left as it is', async () => {
    // More than the broker ever has open, so the message of an open ask is never the one forgotten.
    expect(MESSAGES_KEPT).toBeGreaterThan(MAX_OPEN_ASKS);
    const c = await started();
    const asks = Array.from({ length: MESSAGES_KEPT + 1 }, (_, i) => ask(`many${i}`));
    for (const a of asks) await c.ask(a);
    await c.settle(asks[0]!, { result: 'expired' });
    expect(slack.calls.filter((call) => call.method === 'chat.update')).toHaveLength(0);
    await c.settle(asks[1]!, { result: 'expired' });
    expect(slack.messages[1]!.versions).toHaveLength(2);
  });

  it('never follows a redirect with the bot token', async () => {
    const c = await started();
    const elsewhere = await startFakeSlack();
    try {
      slack.setRedirect(elsewhere.apiBaseUrl);
      await expect(c.ask(ask())).rejects.toThrow(/chat\.postMessage/);
      expect(elsewhere.calls).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it('rejects an ask Slack would not post, with Slack’s error and without a token', async () => {
    const config = remoteSlackSchema.parse({
      appToken: FAKE_APP_TOKEN,
      botToken: FAKE_BOT_TOKEN,
      channel: 'C0NOWHERE',
      approvers: [APPROVER],
      apiBaseUrl: slack.apiBaseUrl,
    });
    channel = createSlackApprovalChannel(config, { log });
    await channel.start(() => {});
    const error = await channel.ask(ask()).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toBe(
      'slack chat.postMessage at 127.0.0.1:' + new URL(slack.apiBaseUrl).port + ' failed: channel_not_found',
    );
  });

  it('drops hostile frames and payloads, logs them, and keeps working', async () => {
    const c = await started({ maxMessageBytes: 64 * 1024 });
    const message = await asked(c, ask());
    slack.sendRaw('{not json');
    slack.sendRaw(Buffer.from([0, 1, 2, 3]), true);
    slack.sendRaw(JSON.stringify([1, 2]));
    slack.sendRaw(JSON.stringify({ type: 'interactive', payload: {} }));
    const unknown = slack.sendEnvelope('some_future_type', { anything: 1 });
    slack.sendEnvelope('interactive', { type: 'view_submission', user: { id: APPROVER } });
    slack.sendEnvelope('interactive', {
      type: 'block_actions',
      user: { id: 'not a user <@U1>' },
      actions: [{ action_id: 'hookd_allow', value: 'allow-ask1-Zq3vX8kP2mN7' }],
    });
    slack.sendEnvelope('interactive', {
      type: 'block_actions',
      user: { id: APPROVER },
      actions: [
        { action_id: 'other_app_button', value: 'allow-ask1-Zq3vX8kP2mN7' },
        { action_id: 'hookd_allow', value: '$(touch /tmp/x); rm -rf ~' },
        { action_id: 'hookd_allow', value: 'x'.repeat(1000) },
      ],
    });
    await waitFor(() => slack.acks.length === 4, 10_000, 'the acks of the envelopes');
    expect(slack.acks[0]).toBe(unknown);
    await waitFor(() => log.records.filter((r) => r.level === 'warn').length >= 7, 10_000, 'the warnings');
    for (const why of ['not JSON', 'binary', 'not an object', 'no valid envelope_id']) {
      expect(log.has('warn', `dropped a Socket Mode message: ${why}`)).toBe(true);
    }
    for (const why of ['another type', 'no valid user id', 'no hookd button']) {
      expect(log.has('warn', `ignored an interaction: ${why}`)).toBe(true);
    }
    expect(answers).toEqual([]);
    expect(slack.linksOpened()).toBe(1);

    // A frame over the bound closes that link; the client opens a fresh one and goes on.
    slack.sendRaw(JSON.stringify({ type: 'interactive', envelope_id: 'big', payload: 'x'.repeat(200_000) }));
    await waitFor(() => slack.linksOpened() === 2 && c.socket?.state === 'open', 20_000, 'a fresh link');
    expect(slack.acks).not.toContain('big');
    expect(log.has('warn', 'Max payload size exceeded')).toBe(true);
    slack.click(message, APPROVER, 'hookd_allow');
    await waitFor(() => answers.length === 1, 10_000, 'the answer after all that');
    expect(answers[0]!.approver).toBe(APPROVER);
  });

  it('waits longer after each failed attempt while Slack is down, one attempt at a time', async () => {
    const timers = new ManualTimers();
    const c = await started({ ...byHand(timers), maxBackoffMs: 8000 });
    const retries = () => [...timers.pending].filter(([, t]) => t.ms !== HEARTBEAT_MS);
    expect(c.socket?.state).toBe('open');
    const opens = () => slack.calls.filter((call) => call.method === 'apps.connections.open').length;

    slack.setDown(true);
    await waitFor(() => retries().length === 1, 10_000, 'a retry after the cut');
    const delays: number[] = [];
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const before = opens();
      delays.push(fire(timers, 'retry'));
      await waitFor(() => retries().length === 1, 10_000, 'the next retry');
      // One attempt per wait, never a pile of timers or sockets.
      expect(opens()).toBe(before + 1);
      expect(retries()).toHaveLength(1);
      expect(slack.linksOpen()).toBe(0);
    }
    expect(delays).toEqual(
      [1000, 2000, 4000, 8000, 8000, 8000, 8000, 8000].map((d) => Math.round(d / 2 + (0.999 * d) / 2)),
    );
    expect(log.has('warn', 'HTTP 503')).toBe(true);

    slack.setDown(false);
    fire(timers, 'retry');
    await waitFor(() => c.socket?.state === 'open', 10_000, 'the link back');
    expect(retries()).toHaveLength(0);
    const message = await asked(c, ask());
    slack.click(message, APPROVER, 'hookd_deny');
    await waitFor(() => answers.length === 1, 10_000, 'the answer');
  });

  it('slows down when Slack asks for a refresh again and again', async () => {
    const timers = new ManualTimers();
    const c = await started(byHand(timers));
    const retries = () => [...timers.pending].filter(([, t]) => t.ms !== HEARTBEAT_MS);
    slack.sendDisconnect('refresh_requested');
    await waitFor(
      () => slack.linksOpened() === 2 && c.socket?.state === 'open',
      10_000,
      'the refreshed link',
    );
    expect(retries()).toHaveLength(0);
    // Asked again before the new link stayed up for a heartbeat: it waits, like after a failure.
    slack.sendDisconnect('warning');
    await waitFor(() => retries().length === 1, 10_000, 'a wait before the next link');
    expect(slack.linksOpened()).toBe(2);
    expect(fire(timers, 'retry')).toBe(Math.round(1000 + 0.999 * 1000));
    await waitFor(() => slack.linksOpened() === 3 && c.socket?.state === 'open', 10_000, 'the next link');
    // A link that answered a whole heartbeat is stable: the next refresh is immediate again.
    fire(timers, 'beat');
    slack.sendDisconnect('refresh_requested');
    await waitFor(
      () => slack.linksOpened() === 4 && c.socket?.state === 'open',
      10_000,
      'an immediate refresh',
    );
  });

  it('drops a link that stops answering pings and opens a fresh one', async () => {
    const timers = new ManualTimers();
    const c = await started({ timers, heartbeatMs: HEARTBEAT_MS });
    slack.setPongs(false);
    fire(timers, 'beat');
    await waitFor(() => slack.pingsSeen() === 1, 10_000, 'the ping');
    fire(timers, 'beat'); // no pong came back: the link is dropped
    await waitFor(() => slack.linksOpen() === 0, 10_000, 'the dead link closed');
    await waitFor(() => timers.pending.size === 1, 10_000, 'a retry');
    expect(log.has('warn', 'stopped answering pings')).toBe(true);
    slack.setPongs(true);
    fire(timers, 'retry');
    await waitFor(() => slack.linksOpened() === 2 && c.socket?.state === 'open', 10_000, 'a fresh link');
  });

  it('starts without Slack reachable at all: no throw, it keeps trying', async () => {
    const gone = await startFakeSlack();
    const dead = gone.apiBaseUrl;
    await gone.close();
    const timers = new ManualTimers();
    const config = remoteSlackSchema.parse({
      appToken: FAKE_APP_TOKEN,
      botToken: FAKE_BOT_TOKEN,
      channel: FAKE_CHANNEL_ID,
      approvers: [APPROVER],
      apiBaseUrl: dead,
    });
    channel = createSlackApprovalChannel(config, { log, socket: { timers } });
    await channel.start(() => {});
    expect(channel.socket?.state).toBe('waiting');
    expect(timers.pending.size).toBe(1);
    expect(log.has('warn', 'apps.connections.open')).toBe(true);
    await channel.close();
    expect(timers.pending.size).toBe(0);
  });
});

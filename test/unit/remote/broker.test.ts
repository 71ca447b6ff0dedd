import { describe, expect, it } from 'vitest';
import { Broker, type AskRequest, type BrokerRecord } from '../../../src/remote/broker.js';
import { canonicalJson, inputHash } from '../../../src/remote/canonical.js';
import type { AskOutcome, PermissionAsk, RemoteAnswer, RemoteChannel } from '../../../src/remote/types.js';

/** A channel that keeps what it was told; `reply` plays an answer coming back through it. */
class FakeChannel implements RemoteChannel {
  asks: PermissionAsk[] = [];
  settled: { ask: string; outcome: AskOutcome }[] = [];
  private onAnswer: ((answer: RemoteAnswer) => void) | undefined;
  constructor(readonly name: RemoteChannel['name']) {}
  start(onAnswer: (answer: RemoteAnswer) => void): Promise<void> {
    this.onAnswer = onAnswer;
    return Promise.resolve();
  }
  ask(ask: PermissionAsk): Promise<void> {
    this.asks.push(ask);
    return Promise.resolve();
  }
  settle(ask: PermissionAsk, outcome: AskOutcome): Promise<void> {
    this.settled.push({ ask: ask.id, outcome });
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
  reply(token: string, approver: string): void {
    this.onAnswer!({ token, channel: this.name, approver });
  }
}

function setup(options: { maxPending?: number } = {}) {
  let clock = 1_000_000;
  let seed = 0;
  const timers: { at: number; fn: () => void; live: boolean }[] = [];
  const records: BrokerRecord[] = [];
  const ntfy = new FakeChannel('ntfy');
  const slack = new FakeChannel('slack');
  const broker = new Broker({
    channels: [ntfy, slack],
    approvers: { slack: ['UALICE'], ntfy: true, desktop: false },
    maxPendingPerSession: options.maxPending ?? 2,
    now: () => clock,
    random: (bytes) => Buffer.alloc(bytes, ++seed),
    schedule: (ms, fn) => {
      const timer = { at: clock + ms, fn, live: true };
      timers.push(timer);
      return () => (timer.live = false);
    },
    record: (record) => records.push(record),
  });
  const advance = (ms: number) => {
    clock += ms;
    for (const t of timers)
      if (t.live && t.at <= clock) {
        t.live = false;
        t.fn();
      }
  };
  const refusals = () =>
    records.filter((r) => r.kind === 'refused').map((r) => r.kind === 'refused' && r.reason);
  return { broker, ntfy, slack, records, advance, refusals, now: () => clock };
}

const call = (over: Partial<AskRequest> = {}): AskRequest => ({
  agent: 'claude',
  session: 's1',
  project: '/p',
  tool: 'Bash',
  inputSha256: inputHash({ command: 'touch a' }),
  summary: { title: 'Claude Code wants to use Bash in p', tool: 'Bash', command: 'touch a' },
  waitMs: 30_000,
  ...over,
});

describe('the broker of remote answers', () => {
  it('gives every channel the same ask with two distinct random tokens of at least 128 bits', async () => {
    const { broker, ntfy, slack } = setup();
    await broker.start();
    void broker.request(call());
    expect(ntfy.asks).toHaveLength(1);
    expect(slack.asks[0]).toBe(ntfy.asks[0]);
    const { tokens } = ntfy.asks[0]!;
    expect(tokens.allow).not.toBe(tokens.deny);
    expect(Buffer.from(tokens.allow, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
  });

  it('takes the first valid answer, settles every channel at once, and refuses a replay', async () => {
    const { broker, ntfy, slack, refusals, records } = setup();
    await broker.start();
    const result = broker.request(call());
    const ask = ntfy.asks[0]!;
    slack.reply(ask.tokens.deny, 'UALICE');
    await expect(result).resolves.toEqual({ decision: 'deny', by: 'UALICE', via: 'slack', ask: ask.id });
    expect(ntfy.settled).toEqual([{ ask: ask.id, outcome: { result: 'deny', by: 'UALICE', via: 'slack' } }]);
    expect(slack.settled).toHaveLength(1);
    slack.reply(ask.tokens.deny, 'UALICE');
    ntfy.reply(ask.tokens.allow, 'ntfy');
    expect(refusals()).toEqual(['replayed', 'settled']);
    expect(records.find((r) => r.kind === 'decided')).toMatchObject({
      result: 'deny',
      by: 'UALICE',
      via: 'slack',
    });
  });

  it('refuses an answer from someone not in the allowlist, and the ask stays open', async () => {
    const { broker, ntfy, slack, refusals } = setup();
    await broker.start();
    const result = broker.request(call());
    const ask = ntfy.asks[0]!;
    slack.reply(ask.tokens.allow, 'UMALLORY');
    expect(refusals()).toEqual(['not-approver']);
    expect(broker.openAsks()).toHaveLength(1);
    ntfy.reply(ask.tokens.allow, 'ntfy');
    await expect(result).resolves.toMatchObject({ decision: 'allow', via: 'ntfy' });
  });

  it('refuses unknown tokens and the token of another call', async () => {
    const { broker, ntfy, refusals } = setup();
    await broker.start();
    const first = broker.request(call());
    const second = broker.request(call({ inputSha256: inputHash({ command: 'touch b' }) }));
    const [a, b] = ntfy.asks;
    ntfy.reply('not-a-token', 'ntfy');
    ntfy.reply(a!.tokens.deny, 'ntfy');
    await expect(first).resolves.toMatchObject({ decision: 'deny' });
    // The second call is still open: the first one's tokens never count for it.
    ntfy.reply(a!.tokens.allow, 'ntfy');
    expect(broker.openAsks().map((x) => x.id)).toEqual([b!.id]);
    expect(refusals()).toEqual(['unknown-token', 'settled']);
    ntfy.reply(b!.tokens.allow, 'ntfy');
    await expect(second).resolves.toMatchObject({ decision: 'allow' });
  });

  it('expires at its time: no decision, and a later answer is refused as expired', async () => {
    const { broker, ntfy, advance, refusals } = setup();
    await broker.start();
    const result = broker.request(call({ waitMs: 5000 }));
    const ask = ntfy.asks[0]!;
    expect(ask.expiresAt).toBe(1_000_000 + 5000);
    advance(5000);
    await expect(result).resolves.toEqual({ reason: 'expired', ask: ask.id });
    expect(ntfy.settled[0]!.outcome).toEqual({ result: 'expired' });
    ntfy.reply(ask.tokens.allow, 'ntfy');
    expect(refusals()).toEqual(['expired']);
  });

  it('refuses an answer past the expiry even before the timer ran', async () => {
    const { broker, ntfy, refusals } = setup();
    await broker.start();
    const result = broker.request(call({ waitMs: 0 }));
    ntfy.reply(ntfy.asks[0]!.tokens.allow, 'ntfy');
    expect(refusals()).toEqual(['expired']);
    await expect(result).resolves.toMatchObject({ reason: 'expired' });
  });

  it('ends as answered at the terminal when the session moves on, and refuses later answers', async () => {
    const { broker, ntfy, slack, advance, refusals, now } = setup();
    await broker.start();
    const result = broker.request(call());
    const ask = ntfy.asks[0]!;
    // An event of the session received before the ask (the PreToolUse of this call) changes nothing.
    broker.sessionMoved('s1', now() - 1);
    broker.sessionMoved('other', now() + 1);
    expect(broker.openAsks()).toHaveLength(1);
    advance(10);
    broker.sessionMoved('s1', now());
    await expect(result).resolves.toEqual({ reason: 'answered-at-terminal', ask: ask.id });
    expect(slack.settled[0]!.outcome).toEqual({ result: 'answered-at-terminal' });
    slack.reply(ask.tokens.allow, 'UALICE');
    expect(refusals()).toEqual(['after-terminal']);
  });

  it('sends at most N asks per session at once; more get no push', async () => {
    const { broker, ntfy, records } = setup({ maxPending: 2 });
    await broker.start();
    void broker.request(call());
    void broker.request(call());
    await expect(broker.request(call())).resolves.toEqual({ reason: 'limit' });
    void broker.request(call({ session: 's2' }));
    expect(ntfy.asks).toHaveLength(3);
    expect(records.filter((r) => r.kind === 'not-asked')).toHaveLength(1);
  });

  it('keeps at most 50 asks open over all sessions', async () => {
    const { broker, ntfy } = setup();
    await broker.start();
    for (let i = 0; i < 60; i++) void broker.request(call({ session: `s${i}` }));
    expect(ntfy.asks).toHaveLength(50);
    expect(broker.openAsks()).toHaveLength(50);
  });

  it('never takes an allow for a deny-only ask (an ask rule), but takes its deny', async () => {
    const { broker, ntfy, refusals } = setup();
    await broker.start();
    const result = broker.request(call({ denyOnly: true }));
    const ask = ntfy.asks[0]!;
    ntfy.reply(ask.tokens.allow, 'ntfy');
    expect(refusals()).toEqual(['allow-not-allowed']);
    ntfy.reply(ask.tokens.deny, 'ntfy');
    await expect(result).resolves.toMatchObject({ decision: 'deny' });
  });

  it('counts ntfy and desktop answers only for the channels configured to carry them', async () => {
    const records: BrokerRecord[] = [];
    const desktop = new FakeChannel('desktop');
    const broker = new Broker({
      channels: [desktop],
      approvers: { slack: [], ntfy: false, desktop: false },
      maxPendingPerSession: 2,
      now: () => 0,
      random: (bytes) => Buffer.alloc(bytes, 7 + records.length),
      schedule: () => () => {},
      record: (record) => records.push(record),
    });
    await broker.start();
    void broker.request(call());
    desktop.reply(desktop.asks[0]!.tokens.allow, 'desktop');
    expect(records.at(-1)).toMatchObject({ kind: 'refused', reason: 'not-approver', via: 'desktop' });
  });
});

describe('the canonical input hash', () => {
  it('is the same for the same input whatever the key order, and differs for other input', () => {
    expect(canonicalJson({ b: 1, a: [{ y: 2, x: 1 }] })).toBe('{"a":[{"x":1,"y":2}],"b":1}');
    expect(inputHash({ command: 'ls', description: 'd' })).toBe(
      inputHash({ description: 'd', command: 'ls' }),
    );
    expect(inputHash({ command: 'ls' })).not.toBe(inputHash({ command: 'ls ' }));
  });
});

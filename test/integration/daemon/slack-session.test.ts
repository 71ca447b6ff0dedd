import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon } from '../../../src/daemon/lifecycle/daemon.js';
import { handOff } from '../../../src/link/client.js';
import {
  fixture,
  handoffOf,
  loopbackServer,
  outboxSettled,
  tempEnv,
  waitFor,
  type Answer,
  type Received,
} from './helpers.js';

/**
 * Slack `mode: session-message` (docs/sessions.md): one message per session, updated in place through
 * its life, the summary in its thread; a loopback server stands in for the Slack Web API.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Call {
  method: string;
  channel: string;
  ts?: string;
  thread_ts?: string;
  text: string;
  state?: string;
}

function callOf(r: Received): Call {
  const body = r.json as {
    channel: string;
    ts?: string;
    thread_ts?: string;
    text: string;
    blocks: { type: string; elements?: { text: string }[] }[];
  };
  const context = body.blocks.find((b) => b.type === 'context');
  return {
    method: r.url.slice(1),
    channel: body.channel,
    ...(body.ts ? { ts: body.ts } : {}),
    ...(body.thread_ts ? { thread_ts: body.thread_ts } : {}),
    text: body.text,
    ...(context ? { state: context.elements![0]!.text } : {}),
  };
}

/** Slack's answers: each post gets a new ts; `script` may answer a call otherwise (by its index). */
async function slackStandIn(script: (r: Received, i: number) => Answer | undefined = () => undefined) {
  let ts = 1000;
  const server = await loopbackServer((r, i) => {
    const scripted = script(r, i);
    if (scripted) return scripted;
    const body = r.json as { channel: string; ts?: string };
    const reply =
      r.url === '/chat.postMessage'
        ? { ok: true, channel: 'C0SLACK', ts: `${++ts}.000100` }
        : { ok: true, channel: body.channel, ts: body.ts };
    return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(reply) };
  });
  cleanups.push(server.close);
  return server;
}

const SESSION = 'sess-one-message';
const GITHUB_TOKEN = `ghp_${'a1B2c3D4e5'.repeat(4).slice(0, 36)}`;

async function setup(
  slack: Record<string, unknown>,
  server: { url: string },
  extra: { transcript?: string } = {},
) {
  const temp = tempEnv();
  cleanups.push(temp.cleanup);
  const env = {
    ...temp.env,
    SLACK_BOT_TOKEN: 'xoxb-test-token-000000',
    SLACK_API: server.url,
    SLACK_WEBHOOK_URL: `${server.url}/services/T000/B000/XXXX`,
  };
  const clock = { now: 1_800_000_000_000 };
  const config = {
    notify: {
      waitingDelayMs: 0,
      channels: { team: { type: 'slack', ...slack } },
      rules: [
        { name: 'waiting', on: ['Notification'], channels: ['team'], title: '{{project}}: {{message}}' },
        { name: 'finished', on: ['Stop'], channels: ['team'], title: '{{project}}: finished' },
      ],
      noise: { dedupeWindowMs: 0 },
    },
    daemon: { retryBaseMs: 20, retryMaxMs: 200 },
  };
  const open = () =>
    startDaemon({
      env,
      config,
      now: () => clock.now,
      watchConfig: false,
      transcriptPollMs: 50,
      // The enrichment's facts, as the enricher gives them for a Droid session.
      enrich: async () => ({
        session: { tokens: { total: 12_345 }, credits: 3.25, durationMs: 95_000 },
        lastMessage: `Created hook-demo.txt. Used ${GITHUB_TOKEN}.`,
      }),
    });
  const state = { daemon: await open() };
  cleanups.push(() => state.daemon.close());
  const send = async (file: string) => {
    const payload = { ...fixture(file), session_id: SESSION };
    const h = handoffOf(extra.transcript ? { ...payload, transcript_path: extra.transcript } : payload);
    expect((await handOff(h, { env, timeoutMs: 5000 })).outcome).toBe('acked');
    await waitFor(() => state.daemon.stats().events.pending === 0, 10_000, `${file} processed`);
    clock.now += 10_000;
  };
  // Retries and held notifications wait on the injected clock: it moves while the test waits.
  const settled = () => outboxSettled(state, clock, 100);
  const restart = async () => {
    await state.daemon.close();
    state.daemon = await open();
  };
  return { send, settled, restart, state, temp };
}

/** A session's life: asks for permission, is answered, finishes, ends. */
const LIFE = [
  '01-SessionStart-startup.json',
  '02-UserPromptSubmit.json',
  '04-Notification.json',
  '05-PostToolUse-Execute.json',
  '12-Stop.json',
  '13-SessionEnd.json',
];

const BOT = {
  botToken: '${SLACK_BOT_TOKEN}',
  channel: '#agents',
  apiBaseUrl: '${SLACK_API}',
  mode: 'session-message',
};

describe('slack, one message per session', () => {
  it('posts once, updates the same message through the life, and posts one summary in its thread', async () => {
    const server = await slackStandIn();
    const { send, settled } = await setup(BOT, server);
    for (const file of LIFE) {
      await send(file);
      await settled();
    }
    const calls = server.received.map(callOf);
    expect(calls.map((c) => [c.method, c.channel, c.ts ?? c.thread_ts ?? null])).toEqual([
      ['chat.postMessage', '#agents', null],
      ['chat.update', 'C0SLACK', '1001.000100'],
      ['chat.update', 'C0SLACK', '1001.000100'],
      ['chat.postMessage', 'C0SLACK', '1001.000100'],
      ['chat.update', 'C0SLACK', '1001.000100'],
    ]);
    expect(calls[3]!.thread_ts).toBe('1001.000100');
    // The message says where the session is: waiting (why), answered and working, done, ended.
    expect(calls.map((c) => c.state ?? null)).toEqual([
      ':raised_hand: *waiting for you (permission)*',
      ':gear: *working*',
      ':white_check_mark: *done*',
      null,
      ':checkered_flag: *ended*',
    ]);
    expect(calls[0]!.text).toContain('demo: Factory CLI needs permission');
    expect(calls[1]!.text).toContain('Answered (PostToolUse)');
    // The summary: duration, tokens, credits and the last message from the enrichment.
    const summary = server.received[3]!.json as { blocks: { fields?: { text: string }[] }[] };
    expect(calls[3]!.text).toContain('Created hook-demo.txt.');
    // Redacted like everything a remote channel sends.
    expect(server.received.some((r) => r.body.includes(GITHUB_TOKEN.slice(0, 12)))).toBe(false);
    expect(summary.blocks.at(-1)!.fields!.map((f) => f.text)).toEqual([
      '*State*\ndone',
      '*Duration*\n1m35s',
      '*Tokens*\n12.3k tokens',
      '*Credits*\n3.25 credits',
    ]);
  });

  it('a move read from the transcript (an Esc no hook reports) updates the same message', async () => {
    const server = await slackStandIn();
    const dir = mkdtempSync(join(tmpdir(), 'hks-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const transcript = join(dir, `${SESSION}.jsonl`);
    writeFileSync(transcript, '{"type":"session_start"}\n');
    const { send, settled } = await setup(BOT, server, { transcript });
    for (const file of LIFE.slice(0, 3)) await send(file);
    await settled();
    expect(server.received.map(callOf).map((c) => c.state)).toEqual([
      ':raised_hand: *waiting for you (permission)*',
    ]);
    // Droid writes the turn's outcome when the user presses Esc at the prompt; no hook fires.
    appendFileSync(transcript, '{"type":"agent_turn_outcome","reason":"cancelled"}\n');
    await waitFor(() => server.received.length >= 2, 10_000, 'the update after the transcript interrupt');
    await settled();
    const calls = server.received.map(callOf);
    expect(calls.map((c) => [c.method, c.ts ?? null])).toEqual([
      ['chat.postMessage', null],
      ['chat.update', '1001.000100'],
    ]);
    expect(calls[1]!.state).toMatch(/interrupted/);
  });

  it('a daemon restart in the middle of the session keeps updating the same message', async () => {
    const server = await slackStandIn();
    const { send, settled, restart } = await setup(BOT, server);
    for (const file of LIFE.slice(0, 3)) await send(file);
    await settled();
    await restart();
    for (const file of LIFE.slice(3)) await send(file);
    await settled();
    const calls = server.received.map(callOf);
    expect(calls.filter((c) => c.method === 'chat.postMessage' && !c.thread_ts)).toHaveLength(1);
    expect(calls.slice(1).map((c) => c.ts ?? c.thread_ts)).toEqual(Array(4).fill('1001.000100'));
  });

  it('rate limited, then the message gone from Slack: retried, then posted anew and updated there', async () => {
    let updates = 0;
    const server = await slackStandIn((r) => {
      if (r.url !== '/chat.update') return undefined;
      updates++;
      const error = updates === 1 ? 'ratelimited' : updates === 2 ? 'message_not_found' : undefined;
      return error
        ? { status: 200, headers: { 'retry-after': '0' }, body: JSON.stringify({ ok: false, error }) }
        : undefined;
    });
    const { send, settled } = await setup(BOT, server);
    for (const file of LIFE.slice(0, 5)) {
      await send(file);
      await settled();
    }
    const calls = server.received.map(callOf);
    expect(calls.map((c) => [c.method, c.ts ?? c.thread_ts ?? null])).toEqual([
      ['chat.postMessage', null],
      ['chat.update', '1001.000100'], // ratelimited: retried
      ['chat.update', '1001.000100'], // message_not_found: a new message
      ['chat.postMessage', null],
      ['chat.update', '1002.000100'],
      ['chat.postMessage', '1002.000100'],
    ]);
    expect(calls[3]!.state).toBe(':gear: *working*');
  });

  it('an incoming webhook only: one message per notification, no updates, no summary', async () => {
    const server = await loopbackServer(() => ({ status: 200, body: 'ok' }));
    cleanups.push(server.close);
    const { send, settled } = await setup({ webhookUrl: '${SLACK_WEBHOOK_URL}' }, server);
    for (const file of LIFE) {
      await send(file);
      await settled();
    }
    const headers = server.received.map((r) => [
      r.url,
      (r.json as { blocks: { text: { text: string } }[] }).blocks[0]!.text.text,
    ]);
    expect(headers).toEqual([
      ['/services/T000/B000/XXXX', 'demo: Factory CLI needs permission to execute 1 tool(s)'],
      ['/services/T000/B000/XXXX', 'demo: finished'],
    ]);
  });
});

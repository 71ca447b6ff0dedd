import { readFileSync } from 'node:fs';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentUsageLink } from '../../../src/ledger/agent-usage.js';
import { createLedger } from '../../../src/ledger/ledger.js';
import { receiverToken } from '../../../src/telemetry/receiver-token.js';
import { startAgentReceiver } from '../../../src/telemetry/start-receiver.js';
import { AMEND_FIRST_WAIT_MS, MAX_AMENDMENTS } from '../../../src/telemetry/amend-gate.js';
import { metricsProtobuf } from '../../helpers/otlp-collector.js';
import { ManualTimers } from '../../helpers/manual-timers.js';
import { tempEnv } from '../daemon/helpers.js';
import { sampleRecord } from '../ledger/records.js';

// Whoever holds the receiver's token can send usage for a recorded session as often as they like: the
// ledger gets an amendment line only when the usage changed, at most MAX_AMENDMENTS per session, each
// waiting twice as long as the one before (docs/telemetry.md). The clock and timers are the test's.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const SESSION = 'aaaa1111-0000-4000-8000-00000000000a';

/** Claude Code's cumulative input-token counter of the session at `value`. */
const cumulative = (value: number) =>
  metricsProtobuf({
    resourceMetrics: [
      {
        scopeMetrics: [
          {
            metrics: [
              {
                name: 'claude_code.token.usage',
                sum: {
                  aggregationTemporality: 2,
                  isMonotonic: true,
                  dataPoints: [
                    {
                      attributes: [
                        { key: 'session.id', value: { stringValue: SESSION } },
                        { key: 'model', value: { stringValue: 'claude-opus' } },
                        { key: 'type', value: { stringValue: 'input' } },
                      ],
                      startTimeUnixNano: '1',
                      asDouble: value,
                    },
                  ],
                },
              },
            ],
          },
        ],
      },
    ],
  });

async function setup() {
  const temp = tempEnv();
  cleanups.push(temp.cleanup);
  const env = temp.env;
  const token = receiverToken(env, { create: true });
  if (!token.ok) throw new Error(token.problem);
  const ledger = createLedger({ dataDir: env.HOOKD_DATA_DIR! });
  await ledger.record(sampleRecord({ sessionId: SESSION, agent: 'claude' }));
  const clock = { now: 1_000_000 };
  const timers = new ManualTimers(clock);
  const started = (await startAgentReceiver({
    env,
    config: { enabled: true, port: 0, maxBodyBytes: 1024 * 1024 },
    logger: pino({ level: 'silent' }),
    now: () => clock.now,
    timers,
    ledger: { link: new AgentUsageLink(), amend: (...args) => ledger.amend(...args) },
  }))!;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await started.close();
  };
  cleanups.push(close);
  const url = `http://127.0.0.1:${started.receiver!.port}/v1/metrics`;
  const post = async (body: Uint8Array) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${token.token}` },
      body,
    });
    expect(res.status).toBe(200);
  };
  /** Moves the clock, runs the timers due, and waits for the ledger work they started. */
  const advance = async (ms: number) => {
    timers.advance(ms);
    await started.settled();
  };
  const amendments = () =>
    readFileSync(ledger.path, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"amend"'))
      .map((line) => JSON.parse(line) as { agentUsage: { inputTokens: number }; recordedAtMs: number });
  return { post, advance, amendments, close, clock, ledger };
}

describe('amendment lines of the ledger, bounded', () => {
  it('appends nothing when the usage did not change', async () => {
    const t = await setup();
    await t.post(cumulative(10));
    await t.advance(AMEND_FIRST_WAIT_MS);
    expect(t.amendments().map((a) => a.agentUsage.inputTokens)).toEqual([10]);
    // The same cumulative value again and again: the usage is what the ledger has.
    for (let i = 0; i < 20; i++) {
      await t.post(cumulative(10));
      await t.advance(AMEND_FIRST_WAIT_MS * 60);
    }
    await t.close();
    expect(t.amendments()).toHaveLength(1);
  });

  it('gives a session at most MAX_AMENDMENTS lines, each waiting twice as long as the one before', async () => {
    const t = await setup();
    // A new value every 20 s for more than an hour of the test's clock.
    for (let value = 1; value <= 200; value++) {
      await t.post(cumulative(value));
      await t.advance(AMEND_FIRST_WAIT_MS * 10);
    }
    await t.close();
    const lines = t.amendments();
    expect(lines).toHaveLength(MAX_AMENDMENTS);
    const gaps = lines.slice(1).map((line, i) => line.recordedAtMs - lines[i]!.recordedAtMs);
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(AMEND_FIRST_WAIT_MS * 2 ** (i + 1)));
    // The record reads as its last amendment.
    expect((await t.ledger.get(SESSION))!.agentUsage!.inputTokens).toBe(lines.at(-1)!.agentUsage.inputTokens);
  });

  it('a change that must wait is written with the latest usage once its wait is over', async () => {
    const t = await setup();
    await t.post(cumulative(1));
    await t.advance(AMEND_FIRST_WAIT_MS);
    // The agent's last exports, close together: the second line waits 4 s after the first, then
    // carries them all.
    await t.post(cumulative(2));
    await t.advance(AMEND_FIRST_WAIT_MS);
    await t.post(cumulative(3));
    await t.advance(AMEND_FIRST_WAIT_MS / 2);
    expect(t.amendments().map((a) => a.agentUsage.inputTokens)).toEqual([1]);
    await t.advance(AMEND_FIRST_WAIT_MS / 2);
    expect(t.amendments().map((a) => a.agentUsage.inputTokens)).toEqual([1, 3]);
  });

  it('writes a waiting change when the daemon stops', async () => {
    const t = await setup();
    await t.post(cumulative(1));
    await t.advance(AMEND_FIRST_WAIT_MS);
    await t.post(cumulative(5));
    await t.advance(AMEND_FIRST_WAIT_MS);
    expect(t.amendments()).toHaveLength(1);
    await t.close();
    expect(t.amendments().map((a) => a.agentUsage.inputTokens)).toEqual([1, 5]);
  });
});

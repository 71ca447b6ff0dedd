import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createDaemonLogger } from '../../../src/daemon/lifecycle/logger.js';
import { startDaemon, type Daemon } from '../../../src/daemon/lifecycle/daemon.js';
import { createDaemonWiring } from '../../../src/daemon/lifecycle/run-foreground.js';
import { createLedger } from '../../../src/ledger/ledger.js';
import { handOff } from '../../../src/link/client.js';
import { receiverTokenPath } from '../../../src/telemetry/receiver-token.js';
import { handoffOf, tempEnv } from '../daemon/helpers.js';
import { waitFor } from '../../helpers/wait.js';
import { metricsProtobuf } from '../../helpers/otlp-collector.js';
import { RECORDED_RUNS, recordedOtlp, recordedSessionId } from '../../helpers/otlp-fixtures.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const kv = (attributes: Record<string, string>) =>
  Object.entries(attributes).map(([key, value]) => ({ key, value: { stringValue: value } }));

/** Claude Code's token and cost metrics of one model, as delta sums. */
function usage(sessionId: string, model: string, input: number, cost: number): Uint8Array {
  const point = (attributes: Record<string, string>, value: number) => ({
    attributes: kv({ 'session.id': sessionId, model, ...attributes }),
    asDouble: value,
  });
  const sum = (name: string, points: object[]) => ({
    name,
    sum: { aggregationTemporality: 1, isMonotonic: true, dataPoints: points },
  });
  const request = {
    resourceMetrics: [
      {
        scopeMetrics: [
          {
            metrics: [
              sum('claude_code.token.usage', [point({ type: 'input' }, input)]),
              sum('claude_code.cost.usage', [point({}, cost)]),
            ],
          },
        ],
      },
    ],
  };
  return metricsProtobuf(request);
}

async function setup() {
  const temp = tempEnv();
  cleanups.push(temp.cleanup);
  const env = temp.env;
  const wiring = await createDaemonWiring(
    env,
    { ledger: { enabled: true } as never },
    { logger: createDaemonLogger(env) },
  );
  const daemon = (await startDaemon({
    env,
    config: { notify: { channels: {}, rules: [] } },
    telemetry: { receiver: { enabled: true, port: 0, maxBodyBytes: 1024 * 1024 } },
    ...wiring.startOptions,
  })) as Daemon;
  cleanups.push(async () => {
    await daemon.close();
    await wiring.close();
  });
  const base = `http://127.0.0.1:${daemon.agentTelemetry!.receiver!.port}`;
  const token = readFileSync(receiverTokenPath(env), 'utf8').trim();
  const post = (
    body: Uint8Array,
    authorization = `Bearer ${token}`,
    { path, contentType }: { path: string; contentType: string } = {
      path: '/v1/metrics',
      contentType: 'application/x-protobuf',
    },
  ) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization },
      body,
    });
  const event = (sessionId: string, name: string) =>
    handOff(handoffOf({ session_id: sessionId, hook_event_name: name }, { agent: 'claude' }), {
      env,
      timeoutMs: 5000,
    });
  const ledger = createLedger({ dataDir: env.HOOKD_DATA_DIR! });
  return { env, daemon, post, event, ledger };
}

describe("the ledger record completed from the agent's telemetry", () => {
  it('carries the usage that arrived before the end, and is completed by what arrives after', async () => {
    const t = await setup();
    await t.event('s-L', 'SessionStart');
    expect((await t.post(usage('s-L', 'claude-opus', 100, 0.5))).status).toBe(200);
    await t.event('s-L', 'SessionEnd');
    const first = await waitFor(() => t.ledger.get('s-L'), 10_000, 'the record');
    expect(first.agentUsage).toMatchObject({
      source: 'agent-telemetry',
      inputTokens: 100,
      costUsd: 0.5,
      models: { 'claude-opus': { inputTokens: 100, costUsd: 0.5 } },
    });
    // Claude Code's last export comes after SessionEnd: the record is completed.
    expect((await t.post(usage('s-L', 'claude-haiku', 20, 0.125))).status).toBe(200);
    const done = await waitFor(
      async () => {
        const r = await t.ledger.get('s-L');
        return r?.agentUsage?.inputTokens === 120 ? r : undefined;
      },
      10_000,
      'the completed record',
    );
    expect(done.agentUsage).toMatchObject({
      costUsd: 0.625,
      models: {
        'claude-opus': { inputTokens: 100, costUsd: 0.5 },
        'claude-haiku': { inputTokens: 20, costUsd: 0.125 },
      },
    });
    expect(await t.ledger.list()).toHaveLength(1);
  });

  it('records nothing from a request without the token', async () => {
    const t = await setup();
    await t.event('s-N', 'SessionStart');
    await t.event('s-N', 'SessionEnd');
    await waitFor(() => t.ledger.get('s-N'), 10_000, 'the record');
    expect((await t.post(usage('s-N', 'm', 5, 1), '')).status).toBe(401);
    await t.daemon.close();
    expect((await t.ledger.get('s-N'))!.agentUsage).toBeUndefined();
  });
});

/** The recorded requests of the real agents (test/fixtures/otlp/), each posted as the agent sent it. */
describe("a real agent's recorded telemetry, posted to a daemon's receiver", () => {
  /** Posts a recording's requests one after another, in order; their statuses. */
  const send = async (t: Awaited<ReturnType<typeof setup>>, run: string, authorization?: string) => {
    const statuses: number[] = [];
    for (const r of recordedOtlp(run)) statuses.push((await t.post(r.body, authorization, r)).status);
    return statuses;
  };
  it.each([
    ['Claude Code over http/protobuf', RECORDED_RUNS.claudeProtobuf, 0.000488],
    ['Claude Code over http/json', RECORDED_RUNS.claudeJson, 0.000488],
  ])('%s: the ledger record carries its tokens and cost per model', async (_name, run, cost) => {
    const t = await setup();
    const id = recordedSessionId(run);
    await t.event(id, 'SessionStart');
    expect(await send(t, run)).toEqual(recordedOtlp(run).map(() => 200));
    await t.event(id, 'SessionEnd');
    const record = await waitFor(() => t.ledger.get(id), 10_000, 'the record');
    expect(record.agentUsage).toMatchObject({
      source: 'agent-telemetry',
      inputTokens: 42,
      outputTokens: 16,
      models: { 'claude-opus-5-5': { inputTokens: 42, outputTokens: 16 } },
    });
    expect(record.agentUsage!.costUsd).toBeCloseTo(cost, 9);
  });

  it('Droid (OTLP/JSON): its tokens complete the record written before they arrived', async () => {
    const t = await setup();
    const run = RECORDED_RUNS.droidJson;
    const id = recordedSessionId(run);
    await t.event(id, 'SessionStart');
    await t.event(id, 'SessionEnd');
    await waitFor(() => t.ledger.get(id), 10_000, 'the record');
    // Droid exports its metrics as it exits: after SessionEnd.
    expect(await send(t, run)).toEqual([200, 200]);
    const done = await waitFor(
      async () => {
        const r = await t.ledger.get(id);
        return r?.agentUsage ? r : undefined;
      },
      10_000,
      'the completed record',
    );
    expect(done.agentUsage).toMatchObject({
      inputTokens: 20,
      outputTokens: 10,
      costUsd: null,
      models: { 'custom:fake-chat': { inputTokens: 20, outputTokens: 10 } },
    });
  });

  it('refuses them without the token and with a wrong one: nothing reaches the record', async () => {
    const t = await setup();
    const run = RECORDED_RUNS.claudeProtobuf;
    const id = recordedSessionId(run);
    await t.event(id, 'SessionStart');
    const refused = recordedOtlp(run).map(() => 401);
    expect(await send(t, run, '')).toEqual(refused);
    expect(await send(t, run, 'Bearer not-the-token')).toEqual(refused);
    expect(await send(t, run, `Basic ${readFileSync(receiverTokenPath(t.env), 'utf8').trim()}`)).toEqual(
      refused,
    );
    await t.event(id, 'SessionEnd');
    const record = await waitFor(() => t.ledger.get(id), 10_000, 'the record');
    expect(record.agentUsage).toBeUndefined();
    expect(t.daemon.agentTelemetry!.receiver!.counts).toMatchObject({
      accepted: 0,
      unauthorized: 3 * refused.length,
    });
  });
});

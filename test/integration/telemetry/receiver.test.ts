import { chmodSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../../src/daemon/lifecycle/daemon.js';
import { handOff } from '../../../src/link/client.js';
import { receiverToken, receiverTokenPath } from '../../../src/telemetry/receiver-token.js';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { agentUsagePath } from '../../../src/telemetry/start-receiver.js';
import type { TelemetryConfig } from '../../../src/config/schemas/telemetry-schema.js';
import { handoffOf, tempEnv } from '../daemon/helpers.js';
import { waitFor } from '../../helpers/wait.js';
import { jsonLines } from '../../helpers/json-lines.js';
import { dirname, join } from 'node:path';
import { attrs, metricsProtobuf, spansOf, startCollector } from '../../helpers/otlp-collector.js';
import { formatTelemetry } from '../../../src/cli/commands/data/status.js';
import type { DaemonState } from '../../../src/daemon/admin.js';
import { checkTelemetry } from '../../../src/doctor/checks/telemetry/check-telemetry.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const kv = (attributes: Record<string, string>) =>
  Object.entries(attributes).map(([key, value]) => ({ key, value: { stringValue: value } }));

/** A metrics request shaped like Claude Code's (delta sums, session.id and model on each point). */
function claudeMetrics(sessionId: string, points: { type?: string; cost?: number; value?: number }[]) {
  const point = (attributes: Record<string, string>, value: number) => ({
    attributes: kv({
      'session.id': sessionId,
      'user.email': 'someone@example.com',
      model: 'claude-sonnet-4',
      ...attributes,
    }),
    startTimeUnixNano: '1700000000000000000',
    timeUnixNano: '1700000005000000000',
    asDouble: value,
  });
  return {
    resourceMetrics: [
      {
        resource: { attributes: kv({ 'service.name': 'claude-code' }) },
        scopeMetrics: [
          {
            scope: { name: 'com.anthropic.claude_code' },
            metrics: [
              {
                name: 'claude_code.token.usage',
                sum: {
                  aggregationTemporality: 1,
                  isMonotonic: true,
                  dataPoints: points.filter((p) => p.type).map((p) => point({ type: p.type! }, p.value!)),
                },
              },
              {
                name: 'claude_code.cost.usage',
                sum: {
                  aggregationTemporality: 1,
                  isMonotonic: true,
                  dataPoints: points.filter((p) => p.cost !== undefined).map((p) => point({}, p.cost!)),
                },
              },
            ],
          },
        ],
      },
    ],
  };
}

async function setup(receiver: Partial<NonNullable<TelemetryConfig['receiver']>> = {}, exportTo?: string) {
  const temp = tempEnv();
  cleanups.push(temp.cleanup);
  const env = { ...temp.env, ...(exportTo ? { OTEL_EXPORTER_OTLP_ENDPOINT: exportTo } : {}) };
  const daemon = (await startDaemon({
    env,
    config: { notify: { channels: {}, rules: [] } },
    telemetry: { receiver: { enabled: true, port: 0, maxBodyBytes: 64 * 1024, ...receiver } },
    telemetryTuning: { flushIntervalMs: 10 },
  })) as Daemon;
  cleanups.push(() => daemon.close());
  const started = daemon.agentTelemetry!;
  const url = `http://127.0.0.1:${started.receiver?.port ?? 0}`;
  const token = readFileSync(receiverTokenPath(env), 'utf8').trim();
  const post = (path: string, body: Uint8Array | string, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${token}`, ...headers },
      body,
    });
  return { env, daemon, started, url, token, post };
}

const protobuf = metricsProtobuf;

describe('the local OTLP receiver', () => {
  it('keeps its token private and refuses a request without it (401), never reading it', async () => {
    const t = await setup();
    expect(statSync(receiverTokenPath(t.env)).mode & 0o777).toBe(0o600);
    expect(t.token).toMatch(/^[0-9a-f]{64}$/);
    const body = protobuf(claudeMetrics('s-1', [{ type: 'input', value: 10 }]));
    expect((await t.post('/v1/metrics', body, { authorization: '' })).status).toBe(401);
    expect((await t.post('/v1/metrics', body, { authorization: `Bearer ${'0'.repeat(64)}` })).status).toBe(
      401,
    );
    expect((await t.post('/v1/metrics', body, { authorization: `Basic ${t.token}` })).status).toBe(401);
    expect(t.started.receiver!.counts).toMatchObject({ unauthorized: 3, accepted: 0 });
    expect(t.started.book.get('s-1')).toBeUndefined();
    // Anyone on this machine can knock: one log line for the three, not one each.
    const refusals = () =>
      jsonLines<{ msg: string }>(
        join((t.env as Record<string, string>).HOOKD_STATE_DIR!, 'logs', 'daemon.log'),
      ).filter((r) => r.msg.startsWith('OTLP request without the receiver token'));
    await waitFor(() => refusals().length > 0, 10_000, 'the refusal in the daemon log');
    await t.daemon.close();
    expect(refusals()).toHaveLength(1);
  });

  it('joins Claude Code token and cost metrics (protobuf, JSON, gzip) to the session', async () => {
    const t = await setup();
    const first = claudeMetrics('s-2', [
      { type: 'input', value: 100 },
      { type: 'output', value: 40 },
      { cost: 0.25 },
    ]);
    expect((await t.post('/v1/metrics', protobuf(first))).status).toBe(200);
    const second = claudeMetrics('s-2', [
      { type: 'cacheRead', value: 7 },
      { type: 'input', value: 5 },
      { cost: 0.5 },
    ]);
    expect(
      (await t.post('/v1/metrics', JSON.stringify(second), { 'content-type': 'application/json' })).status,
    ).toBe(200);
    const third = claudeMetrics('s-2', [{ type: 'cacheCreation', value: 3 }]);
    expect(
      (await t.post('/v1/metrics', gzipSync(protobuf(third)), { 'content-encoding': 'gzip' })).status,
    ).toBe(200);
    expect(t.started.book.get('s-2')).toMatchObject({
      inputTokens: 105,
      outputTokens: 40,
      cacheReadTokens: 7,
      cacheCreationTokens: 3,
      costUsd: 0.75,
      models: ['claude-sonnet-4'],
    });
    // Saved privately for `hookd sessions` and after a restart.
    await waitFor(
      () => {
        try {
          return statSync(agentUsagePath(t.env)).mode;
        } catch {
          return undefined;
        }
      },
      10_000,
      'the usage file',
    );
    expect(statSync(agentUsagePath(t.env)).mode & 0o777).toBe(0o600);
  });

  it('keeps the totals across a daemon restart mid-session; a bad saved book is moved aside', async () => {
    const t = await setup();
    const post = (url: string, body: object) =>
      fetch(`${url}/v1/metrics`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${t.token}` },
        body: protobuf(body),
      });
    expect(
      (await post(t.url, claudeMetrics('s-r', [{ type: 'input', value: 10 }, { cost: 1 }]))).status,
    ).toBe(200);
    await t.daemon.close();
    const restart = async () => {
      const daemon = (await startDaemon({
        env: t.env,
        config: { notify: { channels: {}, rules: [] } },
        telemetry: { receiver: { enabled: true, port: 0, maxBodyBytes: 1024 * 1024 } },
      })) as Daemon;
      cleanups.push(() => daemon.close());
      return daemon;
    };
    const again = await restart();
    const url = `http://127.0.0.1:${again.agentTelemetry!.receiver!.port}`;
    expect((await post(url, claudeMetrics('s-r', [{ type: 'input', value: 5 }, { cost: 0.5 }]))).status).toBe(
      200,
    );
    expect(again.agentTelemetry!.book.get('s-r')).toMatchObject({ inputTokens: 15, costUsd: 1.5 });
    await again.close();
    writeFileSync(agentUsagePath(t.env), '{"v":2,"sessions":[{"sessionId":7}]}\n', { mode: 0o600 });
    const third = await restart();
    expect(third.agentTelemetry!.book.all()).toEqual([]);
    const aside = readdirSync(dirname(agentUsagePath(t.env))).filter((n) =>
      n.startsWith('sessions.json.bad-'),
    );
    expect(aside).toHaveLength(1);
    const logged = jsonLines<{ msg: string; problem?: string }>(
      join((t.env as Record<string, string>).HOOKD_STATE_DIR!, 'logs', 'daemon.log'),
    ).filter((r) => r.msg.startsWith('the saved usage of the agents is not valid'));
    expect(logged[0]?.problem).toMatch(/not a saved usage book/);
  });

  it('refuses a body over the limit (413), a body that does not decode (400) and other types (415)', async () => {
    const t = await setup({ maxBodyBytes: 1024 });
    expect((await t.post('/v1/metrics', Buffer.alloc(4096, 1))).status).toBe(413);
    expect((await t.post('/v1/metrics', Buffer.from([0xff, 0xff, 0xff, 0xff]))).status).toBe(400);
    expect((await t.post('/v1/metrics', 'x', { 'content-type': 'text/plain' })).status).toBe(415);
    // A small gzip body that inflates past the bound is as large as a plain one.
    expect(
      (await t.post('/v1/metrics', gzipSync(Buffer.alloc(10_000)), { 'content-encoding': 'gzip' })).status,
    ).toBe(413);
    expect(t.started.receiver!.counts.accepted).toBe(0);
  });

  it('gives the session span the tokens and cost the agent reported', async () => {
    const collector = await startCollector();
    cleanups.push(() => collector.close());
    const t = await setup({}, collector.url);
    await t.post(
      '/v1/metrics',
      protobuf(
        claudeMetrics('s-3', [{ type: 'input', value: 11 }, { type: 'output', value: 22 }, { cost: 0.01 }]),
      ),
    );
    for (const name of ['SessionStart', 'SessionEnd'])
      await handOff(handoffOf({ session_id: 's-3', hook_event_name: name }, { agent: 'claude' }), {
        env: t.env,
        timeoutMs: 2000,
      });
    const span = await waitFor(
      () => spansOf(collector.requests).find((s) => s.name === 'invoke_agent claude'),
      10_000,
      'the session span',
    );
    expect(attrs(span.attributes)).toMatchObject({
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 22,
      'hookd.session.cost_usd': 0.01,
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4',
    });
    expect(JSON.stringify(collector.requests.map((r) => r.body))).not.toContain('someone@example.com');
  });

  it('says so when its port is held by another process, and the daemon runs on', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => holder.close(() => resolve())));
    const port = (holder.address() as { port: number }).port;
    const temp = tempEnv();
    cleanups.push(temp.cleanup);
    const daemon = (await startDaemon({
      env: temp.env,
      config: { notify: { channels: {}, rules: [] } },
      telemetry: { receiver: { enabled: true, port, maxBodyBytes: 1024 } },
    })) as Daemon;
    cleanups.push(() => daemon.close());
    expect(daemon.agentTelemetry!.problem).toBe(
      `port ${port} on 127.0.0.1 is held by another process (set telemetry.receiver.port)`,
    );
    expect(daemon.startedParts()).toContain('pid file');
    // `hookd status` shows it, as a problem.
    const status = daemon.stats().telemetry;
    expect(status?.receiver).toMatchObject({
      problem: expect.stringContaining(`port ${port} on 127.0.0.1 is held by another process`),
      tokenFile: receiverTokenPath(temp.env),
    });
    expect(status?.receiver?.port).toBeUndefined();
    const problems: string[] = [];
    expect(formatTelemetry(status, problems)).toEqual(['receiver: not listening']);
    expect(problems[0]).toContain(`OTLP receiver: port ${port} on 127.0.0.1 is held by another process`);
  });

  it('shows its port, token file and requests in the daemon status', async () => {
    const t = await setup();
    await t.post('/v1/metrics', protobuf(claudeMetrics('s-st', [{ type: 'input', value: 1 }])));
    await t.post('/v1/metrics', 'x', { authorization: '' });
    const status = t.daemon.stats().telemetry;
    expect(status?.receiver).toEqual({
      port: t.started.receiver!.port,
      tokenFile: receiverTokenPath(t.env),
      counts: { accepted: 1, unauthorized: 1, refused: 0 },
    });
    expect(formatTelemetry(status, [])).toEqual([
      `receiver: 127.0.0.1:${t.started.receiver!.port} (token ${receiverTokenPath(t.env)}), 1 accepted, 1 without the token, 0 refused`,
    ]);
  });
});

describe('doctor on telemetry', () => {
  it('asks the running daemon which port its receiver holds, never what answers there', async () => {
    const t = await setup();
    const port = t.started.receiver!.port;
    const telemetry = { receiver: { enabled: true, port, maxBodyBytes: 1024 } };
    const daemon = async () => ({ running: true as const, stats: t.daemon.stats() });
    const ours = await checkTelemetry({}, telemetry, { daemon });
    expect(ours.map((r) => [r.id, r.status])).toEqual([
      ['telemetry-export', 'skip'],
      ['telemetry-receiver', 'ok'],
    ]);
    // A program on the configured port that answers exactly like hookd's receiver is not taken for it:
    // the daemon says its receiver is elsewhere.
    const squatter = await startCollector();
    cleanups.push(() => squatter.close());
    const held = await checkTelemetry(
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.example:4318' },
      { receiver: { ...telemetry.receiver, port: squatter.port } },
      { daemon },
    );
    expect(held[0]).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('traces -> http://collector.example:4318/v1/traces (protobuf)'),
    });
    expect(held[1]).toMatchObject({
      status: 'warn',
      detail: `the daemon listens on 127.0.0.1:${port}, the config says ${squatter.port}`,
    });
  });

  it('reports the port held by another process as the daemon found it, and a daemon not running', async () => {
    const stats = (receiver: object) =>
      ({ running: true, stats: { telemetry: { receiver } } }) as unknown as DaemonState;
    const telemetry = { receiver: { enabled: true, port: 4319, maxBodyBytes: 1024 } };
    const problem = 'port 4319 on 127.0.0.1 is held by another process (set telemetry.receiver.port)';
    const [, held] = await checkTelemetry({}, telemetry, {
      daemon: async () => stats({ problem, tokenFile: '/t', counts: {} }),
    });
    expect(held).toMatchObject({ status: 'fail', detail: problem });
    const [, down] = await checkTelemetry({}, telemetry, {
      daemon: async () => ({ running: false, spooled: 0, pendingEvents: 0 }) as unknown as DaemonState,
    });
    expect(down).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('the daemon is not running'),
    });
  });
});

describe('the receiver token file', () => {
  it('is refused when others could have read it', () => {
    const temp = tempEnv();
    try {
      const made = receiverToken(temp.env);
      expect(made.ok).toBe(true);
      expect(receiverToken(temp.env)).toEqual(made);
      chmodSync(receiverTokenPath(temp.env), 0o644);
      const refused = receiverToken(temp.env);
      expect(refused.ok).toBe(false);
      expect(!refused.ok && refused.problem).toContain('others could have read the token');
    } finally {
      temp.cleanup();
    }
  });
});

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SessionRecord } from '../../src/ledger/types.js';
import { receiverToken } from '../../src/telemetry/receiver-token.js';
import { describeWithAgent } from '../harness/availability.js';
import { runRealDroid, type DroidRun } from '../helpers/droid.js';
import { HOOKD_BIN } from '../helpers/fixtures.js';
import { jsonLines } from '../helpers/json-lines.js';
import { writeReceiverConfig } from '../helpers/receiver-config.js';
import { isolatedEnv, makeTempDir } from '../helpers/temp.js';

// The REAL Droid 0.225.2 exporting its OpenTelemetry to hookd's receiver, switched on the way
// docs/telemetry.md ("Droid") says: OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_EXPORTER_OTLP_HEADERS in its
// environment, OTEL_CUSTOMER_ENABLED left unset. The daemon runs beside Droid inside its network
// namespace (the receiver is on 127.0.0.1 there). Droid sends its token counters only under Factory's
// "sensitive_customer_otel" flag, off for a Droid that cannot reach Factory: the test turns it on with
// Droid's flag snapshot file (FACTORY_FEATURE_FLAGS_SNAPSHOT_PATH).

const PORT = 4319;

describeWithAgent('droid', 'the real Droid 0.225.2 exporting its telemetry to hookd', () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let env: Record<string, string>;
  let run: DroidRun;
  const ledger = () =>
    jsonLines<SessionRecord & { amend?: string }>(join(env.HOOKD_DATA_DIR!, 'ledger', 'sessions.jsonl'));
  const log = () =>
    jsonLines<{ msg: string }>(join(env.HOOKD_STATE_DIR!, 'logs', 'daemon.log')).map((l) => l.msg);

  beforeAll(async () => {
    tmp = makeTempDir('hkdo-');
    const { HOOKD_DAEMON: _daemon, ...base } = isolatedEnv(tmp.dir);
    env = {
      ...base,
      HOOKD_RUNTIME_DIR: join(tmp.dir, 'run'),
      HOOKD_STATE_DIR: join(tmp.dir, 'state'),
      HOOKD_DATA_DIR: join(tmp.dir, 'data'),
    };
    writeReceiverConfig(env.HOOKD_CONFIG!, PORT);
    const token = receiverToken(env, { create: true });
    if (!token.ok) throw new Error(token.problem);
    const flags = join(tmp.dir, 'droid-flags.json');
    writeFileSync(flags, JSON.stringify({ flags: { sensitive_customer_otel: true }, configs: {} }));
    run = await runRealDroid({
      outDir: join(tmp.dir, 'exec'),
      env: {
        ...env,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${PORT}`,
        OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${token.token}`,
        FACTORY_FEATURE_FLAGS_SNAPSHOT_PATH: flags,
      },
      hookCmd: `node ${HOOKD_BIN} hook`,
      script: [{ tool: 'shell', input: { command: 'echo hi' } }, { text: 'Done.' }],
      sidecar: {
        argv: [process.execPath, HOOKD_BIN, 'daemon', 'run'],
        env,
        readyFile: join(env.HOOKD_RUNTIME_DIR!, 'hookd.pid'),
      },
    });
  }, 300_000);

  afterAll(() => tmp?.cleanup());

  it("the receiver took Droid's metrics, keyed by its session.id", () => {
    expect(run.rc, run.stderr).toBe(0);
    const record = ledger().find((r) => r.agent === 'droid' && !r.amend);
    expect(record, JSON.stringify(ledger())).toBeDefined();
    const book = JSON.parse(
      readFileSync(join(env.HOOKD_DATA_DIR!, 'telemetry', 'sessions.json'), 'utf8'),
    ) as { sessions: { sessionId: string; series: { metric: string; model: string }[] }[] };
    const session = book.sessions.find((s) => s.sessionId === record!.sessionId);
    expect(session, `daemon log: ${JSON.stringify(log())}`).toBeDefined();
    expect(session!.series.map((s) => s.metric)).toEqual(
      expect.arrayContaining(['droid.token.input', 'droid.token.output']),
    );
    expect(session!.series.every((s) => s.model === 'custom:fake-chat')).toBe(true);
  });

  it('the ledger record carries the tokens Droid reported, and no cost', () => {
    const lines = ledger();
    const record = lines.find((r) => r.agent === 'droid' && !r.amend)!;
    const usage = [...lines]
      .reverse()
      .find((l) => l.sessionId === record.sessionId && l.agentUsage)?.agentUsage;
    expect(usage, `daemon log: ${JSON.stringify(log())}`).toBeDefined();
    expect(usage!.source).toBe('agent-telemetry');
    expect(usage!.inputTokens).toBeGreaterThan(0);
    expect(usage!.outputTokens).toBeGreaterThan(0);
    expect(Object.keys(usage!.models)).toEqual(['custom:fake-chat']);
    expect(usage!.costUsd).toBeNull();
  });
});

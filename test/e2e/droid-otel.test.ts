import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SessionRecord } from '../../src/ledger/types.js';
import { receiverToken } from '../../src/telemetry/receiver-token.js';
import { describeWithAgent } from '../harness/availability.js';
import { runRealDroid, type DroidRun } from '../helpers/droid.js';
import { HOOKD_BIN } from '../helpers/fixtures.js';
import { jsonLines } from '../helpers/json-lines.js';
import { attributeSets, recordedOtlp } from '../helpers/otlp-fixtures.js';
import { otlpSidecar } from '../harness/otlp-sidecar.js';
import { writeReceiverConfig } from '../helpers/receiver-config.js';
import { isolatedEnv, makeTempDir } from '../helpers/temp.js';

// The REAL Droid 0.225.2 exporting its OpenTelemetry to hookd's receiver, switched on the way
// docs/telemetry.md ("Droid") says: OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_EXPORTER_OTLP_HEADERS in its
// environment, OTEL_CUSTOMER_ENABLED left unset. The daemon runs beside Droid inside its network
// namespace (the receiver is on 127.0.0.1 there). Droid sends its token counters only under Factory's
// "sensitive_customer_otel" flag, off for a Droid that cannot reach Factory: the test turns it on with
// Droid's flag snapshot file (FACTORY_FEATURE_FLAGS_SNAPSHOT_PATH). What the receiver takes goes on,
// redacted (the default), to a loopback stand-in for the team's collector.

// Ports of its own, not claude-otel.test.ts's: the two files may run at the same time, and a run
// without a network namespace of its own (not root) shares this machine's loopback.
const PORT = 4321;
const COLLECTOR_PORT = 4322;

describeWithAgent('droid', 'the real Droid 0.225.2 exporting its telemetry to hookd', () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let env: Record<string, string>;
  let run: DroidRun;
  const ledger = () =>
    jsonLines<SessionRecord & { amend?: string }>(join(env.HOOKD_DATA_DIR!, 'ledger', 'sessions.jsonl'));
  const collectorDir = () => join(tmp.dir, 'collector');
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
      // The daemon runs under a stand-in for the team's collector, which it forwards Droid's data to.
      sidecar: otlpSidecar(join(tmp.dir, 'sidecar'), {
        port: COLLECTOR_PORT,
        dir: collectorDir(),
        readyFile: join(tmp.dir, 'sidecar', 'ready'),
        child: {
          argv: [process.execPath, HOOKD_BIN, 'daemon', 'run'],
          env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${COLLECTOR_PORT}` },
          readyFile: join(env.HOOKD_RUNTIME_DIR!, 'hookd.pid'),
        },
      }),
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

  it("the team's collector got Droid's metrics and spans without who the user is or what it ran", async () => {
    const sets = await attributeSets(recordedOtlp('.', collectorDir()), 'cli');
    expect(sets.length, `daemon log: ${JSON.stringify(log())}`).toBeGreaterThan(0);
    const keys = new Set(sets.flatMap((a) => Object.keys(a)));
    for (const gone of [
      'user.email',
      'user.id',
      'organization.id',
      'message.content',
      'tool.input',
      'tool.result',
    ])
      expect(keys).not.toContain(gone);
    const record = ledger().find((r) => r.agent === 'droid' && !r.amend)!;
    expect(
      sets.some((a) => a['session.id'] === record.sessionId && a['model.id'] === 'custom:fake-chat'),
    ).toBe(true);
    expect(sets.some((a) => a['tool.name'] === 'Execute')).toBe(true);
    // Its spans too (prompt.id is only on them), their text left out.
    expect(sets.some((a) => typeof a['prompt.id'] === 'string')).toBe(true);
  });
});

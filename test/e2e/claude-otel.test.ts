import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SessionRecord } from '../../src/ledger/types.js';
import { describeWithAgent } from '../harness/availability.js';
import { runClaude, type ClaudeRun } from '../harness/claude/run-claude.js';
import { claudeTestbed, type ClaudeTestbed } from '../harness/claude/testbed.js';
import { HOOKD_BIN } from '../helpers/fixtures.js';
import { jsonLines } from '../helpers/json-lines.js';
import { writeReceiverConfig } from '../helpers/receiver-config.js';
import { runHookd } from '../helpers/run-hookd.js';

// The REAL Claude Code 2.1.330 exporting its OpenTelemetry to hookd's receiver, set up by
// `hookd install --agent claude --otel`. The daemon runs beside Claude inside its network namespace (the
// receiver is on 127.0.0.1 there). The test shortens Claude's export intervals with
// OTEL_METRIC_EXPORT_INTERVAL=1000 and OTEL_LOGS_EXPORT_INTERVAL=1000 (ms) in Claude's environment.

const PORT = 4319;

describeWithAgent('claude', 'the real Claude Code 2.1.330 exporting its telemetry to hookd', (bin) => {
  let bed: ClaudeTestbed;
  let env: Record<string, string>;
  let run: ClaudeRun;
  let installed: { env: Record<string, string> };
  const ledger = () =>
    jsonLines<SessionRecord & { amend?: string }>(join(env.HOOKD_DATA_DIR!, 'ledger', 'sessions.jsonl'));
  const log = () =>
    jsonLines<{ msg: string; signal?: string }>(join(env.HOOKD_STATE_DIR!, 'logs', 'daemon.log'));

  beforeAll(async () => {
    bed = claudeTestbed('hko-');
    env = bed.daemonEnv();
    writeReceiverConfig(env.HOOKD_CONFIG!, PORT);
    const ran = await runHookd(['install', '--agent', 'claude', '--otel', '--transport', 'node'], {
      env,
      cwd: bed.tmp.dir,
    });
    if (ran.code !== 0) throw new Error(`hookd install --otel failed: ${ran.stderr}`);
    installed = JSON.parse(readFileSync(join(bed.home, '.claude', 'settings.json'), 'utf8')) as {
      env: Record<string, string>;
    };
    run = await runClaude({
      bin,
      home: bed.home,
      work: bed.work,
      outDir: join(bed.tmp.dir, 'run-out'),
      mode: 'print',
      env,
      extraEnv: { OTEL_METRIC_EXPORT_INTERVAL: '1000', OTEL_LOGS_EXPORT_INTERVAL: '1000' },
      prompt: 'Say hello.',
      script: [{ bash: 'echo hello' }, { text: 'Hello.' }],
      sidecar: {
        argv: [process.execPath, HOOKD_BIN, 'daemon', 'run'],
        env,
        readyFile: join(env.HOOKD_RUNTIME_DIR!, 'hookd.pid'),
      },
    });
  }, 300_000);

  afterAll(() => bed?.tmp.cleanup());

  it('install --otel pointed Claude Code at the receiver with the token, privately', () => {
    expect(installed.env.OTEL_EXPORTER_OTLP_ENDPOINT).toBe(`http://127.0.0.1:${PORT}`);
    const token = readFileSync(join(env.HOOKD_STATE_DIR!, 'telemetry', 'receiver-token'), 'utf8').trim();
    expect(installed.env.OTEL_EXPORTER_OTLP_HEADERS).toBe(`Authorization=Bearer ${token}`);
    expect(run.result).toMatchObject({ code: 0, timedOut: false });
  });

  it('the ledger record carries the tokens and cost Claude Code reported', () => {
    const lines = ledger();
    const record = lines.find((r) => r.agent === 'claude' && !r.amend);
    expect(record, JSON.stringify(lines)).toBeDefined();
    const usage = [...lines]
      .reverse()
      .find((l) => l.sessionId === record!.sessionId && l.agentUsage)?.agentUsage;
    expect(usage, `daemon log: ${JSON.stringify(log().map((l) => l.msg))}`).toBeDefined();
    expect(usage!.source).toBe('agent-telemetry');
    expect(usage!.inputTokens).toBeGreaterThan(0);
    expect(usage!.outputTokens).toBeGreaterThan(0);
    expect(Object.keys(usage!.models).length).toBeGreaterThan(0);
    expect(usage!.costUsd).toBeGreaterThan(0);
    // The receiver's book: metrics (token and cost series) and log events (a tool decision for the Bash call).
    const book = JSON.parse(
      readFileSync(join(env.HOOKD_DATA_DIR!, 'telemetry', 'sessions.json'), 'utf8'),
    ) as { sessions: { sessionId: string; toolDecisions: Record<string, number>; series: unknown[] }[] };
    const session = book.sessions.find((s) => s.sessionId === record!.sessionId)!;
    expect(session.series.length).toBeGreaterThan(0);
    expect(session.toolDecisions).toEqual({ accept: 1 });
  });
});

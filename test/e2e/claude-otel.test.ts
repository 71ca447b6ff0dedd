import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionRecord } from '../../src/ledger/types.js';
import { describeWithAgent } from '../harness/availability.js';
import type { ClaudeRun } from '../harness/claude/run-claude.js';
import { claudeTestbed, type ClaudeTestbed } from '../harness/claude/testbed.js';
import { otlpSidecar } from '../harness/otlp-sidecar.js';
import { HOOKD_BIN } from '../helpers/fixtures.js';
import { jsonLines } from '../helpers/json-lines.js';
import { attributeSets, recordedOtlp } from '../helpers/otlp-fixtures.js';
import { writeReceiverConfig } from '../helpers/receiver-config.js';
import { runHookd } from '../helpers/run-hookd.js';

// The REAL Claude Code 2.1.330 exporting its OpenTelemetry to hookd's receiver, set up by
// `hookd install --agent claude --otel`. The daemon runs beside Claude inside its network namespace (the
// receiver is on 127.0.0.1 there), under a stand-in for the team's collector (test/harness/otlp-sidecar.ts,
// on COLLECTOR_PORT) that the daemon exports and forwards to. The test shortens Claude's export
// intervals with OTEL_METRIC_EXPORT_INTERVAL=1000 and OTEL_LOGS_EXPORT_INTERVAL=1000 (ms) and gives it
// the user's e-mail and organization the way a company often does, in OTEL_RESOURCE_ATTRIBUTES
// (offline, signed in with an API key, Claude Code has no account of its own to report).

const PORT = 4319;
const COLLECTOR_PORT = 4320;
const WHO = 'user.email=dev@example.com,organization.id=org-0000-fake,department=platform';

interface Session {
  bed: ClaudeTestbed;
  env: Record<string, string>;
  run: ClaudeRun;
  installed: { env: Record<string, string> };
  collectorDir: string;
}

async function claudeSession(bin: string, forward: 'redacted' | 'raw'): Promise<Session> {
  const bed = claudeTestbed('hko-');
  const env = bed.daemonEnv();
  writeReceiverConfig(env.HOOKD_CONFIG!, PORT, { forward });
  const ran = await runHookd(['install', '--agent', 'claude', '--otel', '--transport', 'node'], {
    env,
    cwd: bed.tmp.dir,
  });
  if (ran.code !== 0) throw new Error(`hookd install --otel failed: ${ran.stderr}`);
  const installed = JSON.parse(readFileSync(join(bed.home, '.claude', 'settings.json'), 'utf8')) as {
    env: Record<string, string>;
  };
  const collectorDir = join(bed.tmp.dir, 'collector');
  const run = await bed.run(bin, {
    mode: 'print',
    env,
    extraEnv: {
      OTEL_METRIC_EXPORT_INTERVAL: '1000',
      OTEL_LOGS_EXPORT_INTERVAL: '1000',
      OTEL_RESOURCE_ATTRIBUTES: WHO,
    },
    prompt: 'Say hello.',
    script: [{ bash: 'echo hello' }, { text: 'Hello.' }],
    sidecar: otlpSidecar(join(bed.tmp.dir, 'sidecar'), {
      port: COLLECTOR_PORT,
      dir: collectorDir,
      readyFile: join(bed.tmp.dir, 'sidecar', 'ready'),
      child: {
        argv: [process.execPath, HOOKD_BIN, 'daemon', 'run'],
        env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${COLLECTOR_PORT}` },
        readyFile: join(env.HOOKD_RUNTIME_DIR!, 'hookd.pid'),
      },
    }),
  });
  return { bed, env, run, installed, collectorDir };
}

/** Every attribute set of what the collector got from Claude Code (resource, points, log records). */
const forwardedFromClaude = (dir: string) => attributeSets(recordedOtlp('.', dir), 'claude-code');

describeWithAgent('claude', 'the real Claude Code 2.1.330 exporting its telemetry to hookd', (bin) => {
  describe('forwarded redacted (the default)', () => {
    let s: Session;
    const ledger = () =>
      jsonLines<SessionRecord & { amend?: string }>(join(s.env.HOOKD_DATA_DIR!, 'ledger', 'sessions.jsonl'));
    const log = () =>
      jsonLines<{ msg: string; signal?: string }>(join(s.env.HOOKD_STATE_DIR!, 'logs', 'daemon.log'));

    beforeAll(async () => {
      s = await claudeSession(bin, 'redacted');
    }, 300_000);
    afterAll(() => s?.bed.tmp.cleanup());

    it('install --otel pointed Claude Code at the receiver with the token, privately', () => {
      expect(s.installed.env.OTEL_EXPORTER_OTLP_ENDPOINT).toBe(`http://127.0.0.1:${PORT}`);
      const token = readFileSync(join(s.env.HOOKD_STATE_DIR!, 'telemetry', 'receiver-token'), 'utf8').trim();
      expect(s.installed.env.OTEL_EXPORTER_OTLP_HEADERS).toBe(`Authorization=Bearer ${token}`);
      expect(s.run.result).toMatchObject({ code: 0, timedOut: false });
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
        readFileSync(join(s.env.HOOKD_DATA_DIR!, 'telemetry', 'sessions.json'), 'utf8'),
      ) as { sessions: { sessionId: string; toolDecisions: Record<string, number>; series: unknown[] }[] };
      const session = book.sessions.find((x) => x.sessionId === record!.sessionId)!;
      expect(session.series.length).toBeGreaterThan(0);
      expect(session.toolDecisions).toEqual({ accept: 1 });
    });

    it("the team's collector got Claude Code's telemetry without who the user is", async () => {
      const sets = await forwardedFromClaude(s.collectorDir);
      expect(sets.length, `daemon log: ${JSON.stringify(log().map((l) => l.msg))}`).toBeGreaterThan(0);
      const keys = new Set(sets.flatMap((a) => Object.keys(a)));
      for (const gone of ['user.email', 'organization.id', 'user.id']) expect(keys).not.toContain(gone);
      // What the team's dashboards count by is kept.
      const record = ledger().find((r) => r.agent === 'claude' && !r.amend)!;
      expect(sets.some((a) => a['session.id'] === record.sessionId)).toBe(true);
      expect(sets.some((a) => a.department === 'platform')).toBe(true);
      expect(sets.some((a) => a.type === 'input' && typeof a.model === 'string')).toBe(true);
    });
  });

  describe('forwarded raw', () => {
    let s: Session;
    beforeAll(async () => {
      s = await claudeSession(bin, 'raw');
    }, 300_000);
    afterAll(() => s?.bed.tmp.cleanup());

    it("the team's collector got it as Claude Code sent it, who the user is included", async () => {
      expect(s.run.result).toMatchObject({ code: 0, timedOut: false });
      const sets = await forwardedFromClaude(s.collectorDir);
      expect(sets.some((a) => a['user.email'] === 'dev@example.com')).toBe(true);
      expect(sets.some((a) => a['organization.id'] === 'org-0000-fake')).toBe(true);
      expect(sets.some((a) => typeof a['user.id'] === 'string')).toBe(true);
    });
  });
});

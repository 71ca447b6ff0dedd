import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentBinary } from './agents.js';
import { runClaude } from './claude/run-claude.js';
import { claudeTestbed } from './claude/testbed.js';
import { runRealDroid } from './droid/run.js';
import { otlpSidecar } from './otlp-sidecar.js';

/**
 * Records what the real agents send over OTLP/HTTP (test/fixtures/otlp/README.md says how to run it):
 * Claude Code in http/protobuf and http/json (metrics and logs), Droid in its JSON (metrics, with its
 * token counters switched on). Each run's requests land in `<out>/<run>/` as the agent sent them.
 */

const PORT = 4319;
const TOKEN = 'hookd-fixture-token';
const out = process.argv[2];
if (!out) throw new Error('usage: record-otlp <out dir>');

async function claude(protocol: 'http/protobuf' | 'http/json', name: string): Promise<void> {
  const bin = agentBinary('claude');
  if (!bin) throw new Error('Claude Code is not in the agents cache');
  const bed = claudeTestbed('hkrec-');
  try {
    const dir = join(out!, name);
    const run = await runClaude({
      bin,
      home: bed.home,
      work: bed.work,
      outDir: join(bed.tmp.dir, 'run-out'),
      mode: 'print',
      env: bed.env,
      extraEnv: {
        CLAUDE_CODE_ENABLE_TELEMETRY: '1',
        OTEL_METRICS_EXPORTER: 'otlp',
        OTEL_LOGS_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${PORT}`,
        OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${TOKEN}`,
        OTEL_METRIC_EXPORT_INTERVAL: '1000',
        OTEL_LOGS_EXPORT_INTERVAL: '1000',
      },
      prompt: 'Say hello.',
      script: [{ bash: 'echo hello' }, { text: 'Hello.' }],
      sidecar: otlpSidecar(join(bed.tmp.dir, 'sidecar'), {
        port: PORT,
        dir,
        readyFile: join(bed.tmp.dir, 'sidecar', 'ready'),
      }),
    });
    writeFileSync(join(dir, 'run.json'), JSON.stringify(run.result));
  } finally {
    bed.tmp.cleanup();
  }
}

async function droid(outDir: string, name: string): Promise<void> {
  const dir = join(out!, name);
  const flags = join(outDir, 'droid-flags.json');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(flags, JSON.stringify({ flags: { sensitive_customer_otel: true }, configs: {} }));
  const run = await runRealDroid({
    outDir: join(outDir, 'exec'),
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${PORT}`,
      OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${TOKEN}`,
      FACTORY_FEATURE_FLAGS_SNAPSHOT_PATH: flags,
    },
    hookCmd: 'true',
    script: [{ tool: 'shell', input: { command: 'echo hi' } }, { text: 'Done.' }],
    sidecar: otlpSidecar(join(outDir, 'sidecar'), {
      port: PORT,
      dir,
      readyFile: join(outDir, 'sidecar', 'ready'),
    }),
  });
  writeFileSync(join(dir, 'run.json'), JSON.stringify({ rc: run.rc, stderr: run.stderr }));
}

/** Claude Code's `user.id` is a hash of the device it runs on: the fixtures carry this one instead. */
export const FAKE_DEVICE_ID = 'f'.repeat(64);

/**
 * Copies one recorded run into `fixtures`: every body as it came, except each Claude Code device id
 * (`user.id`, 64 hex digits) replaced by FAKE_DEVICE_ID. The replacement has the same length, so a
 * protobuf body stays valid byte for byte. The requests' list loses their Authorization header.
 */
function toFixtures(run: string, fixtures: string): void {
  const from = join(out!, run);
  mkdirSync(fixtures, { recursive: true });
  const requests = readFileSync(join(from, 'requests.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const devices = new Set<string>();
  for (const name of readdirSync(from).filter((n) => /^\d{3}-/.test(n))) {
    const text = readFileSync(join(from, name)).toString('latin1');
    for (const m of text.matchAll(/user\.id[^]{1,40}?([0-9a-f]{64})/g)) devices.add(m[1]!);
  }
  for (const name of readdirSync(from).filter((n) => /^\d{3}-/.test(n))) {
    let text = readFileSync(join(from, name)).toString('latin1');
    for (const id of devices) text = text.replaceAll(id, FAKE_DEVICE_ID);
    writeFileSync(join(fixtures, name), Buffer.from(text, 'latin1'));
  }
  const list = requests.map(({ authorization: _auth, ...rest }) => JSON.stringify(rest)).join('\n');
  writeFileSync(join(fixtures, 'requests.jsonl'), `${list}\n`);
}

const which = process.argv.slice(3);
const all = which.length === 0;
if (all || which.includes('claude-protobuf')) await claude('http/protobuf', 'claude-protobuf');
if (all || which.includes('claude-json')) await claude('http/json', 'claude-json');
if (all || which.includes('droid')) await droid(join(out, 'droid-run'), 'droid-json');

const fixtures = process.env.HOOKD_OTLP_FIXTURES;
if (fixtures) {
  if (all || which.includes('claude-protobuf'))
    toFixtures('claude-protobuf', join(fixtures, 'claude-code-2.1.330', 'protobuf'));
  if (all || which.includes('claude-json'))
    toFixtures('claude-json', join(fixtures, 'claude-code-2.1.330', 'json'));
  if (all || which.includes('droid')) toFixtures('droid-json', join(fixtures, 'droid-0.225.2', 'json'));
}

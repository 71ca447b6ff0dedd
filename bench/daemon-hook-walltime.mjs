#!/usr/bin/env node
// `hookd hook` wall time with the daemon up (the event is handed off and acknowledged) against `node -e 0`,
// and against the same hook with the hand-off off (HOOKD_DAEMON=0), interleaved in one run (compare the ratio; absolute times move with the machine's load).
// Usage: npm run build && node bench/daemon-hook-walltime.mjs [rounds=40]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BIN,
  FIXTURES,
  benchEnv,
  connect,
  quantiles,
  save,
  startDaemon,
  stopDaemon,
} from './daemon-common.mjs';

const ROUNDS = Number(process.argv[2] ?? 40);
const payload = readFileSync(join(FIXTURES, '16-Stop.json'));
const FSYNC = process.env.BENCH_FSYNC !== '0';
const t = benchEnv({
  notify: { rules: [{ on: 'Notification', channels: ['desktop'] }] },
  daemon: { fsync: FSYNC },
});

function timed(args, input, extraEnv = {}) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, args, {
      env: { ...t.env, ...extraEnv },
      stdio: [input ? 'pipe' : 'ignore', 'ignore', 'ignore'],
    });
    if (input) child.stdin.end(input);
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(Number(process.hrtime.bigint() - start) / 1e6) : reject(new Error(`exit ${code}`)),
    );
  });
}

const daemon = await startDaemon(t.env, t.socket);
try {
  const baseline = [];
  const hook = [];
  const hookNoHandoff = [];
  for (let i = 0; i < 3; i++) await timed([BIN, 'hook'], payload); // warm the config cache
  for (let i = 0; i < ROUNDS; i++) {
    baseline.push(await timed(['-e', '0']));
    hook.push(await timed([BIN, 'hook'], payload));
    hookNoHandoff.push(await timed([BIN, 'hook'], payload, { HOOKD_DAEMON: '0' }));
  }
  const c = await connect(t.socket);
  const status = (await c.request({ v: 1, type: 'status' })).status;
  c.close();
  const b = quantiles(baseline);
  const h = quantiles(hook);
  const n = quantiles(hookNoHandoff);
  const round = (x) => Number(x.toFixed(1));
  save('daemon-hook-walltime', {
    target: 'median within 1.15x of node -e 0',
    rounds: ROUNDS,
    fsync: FSYNC,
    nodeE0Ms: { p50: round(b.p50), p90: round(b.p90) },
    hookWithDaemonMs: { p50: round(h.p50), p90: round(h.p90) },
    ratio: Number((h.p50 / b.p50).toFixed(3)),
    hookWithoutHandoffMs: { p50: round(n.p50), p90: round(n.p90) },
    handoffCostMs: round(h.p50 - n.p50),
    handedOffToDaemon: status.events.received,
  });
} finally {
  await stopDaemon(daemon);
  t.cleanup();
}

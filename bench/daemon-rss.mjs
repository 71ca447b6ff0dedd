#!/usr/bin/env node
// Daemon memory over real events: RSS of `hookd daemon run` idle, then after every 5,000 of 50,000 events
// (the recorded Droid session replayed over 2,500 sessions: SessionStart to SessionEnd, notifications,
// sub-agents), with a webhook on loopback and the default desktop channel (which dead-letters where
// notify-send is missing). Each sample waits until the daemon has processed and delivered everything.
// Then idle again, and after a restart over the same journal.
// Target: at most 100 MB after 50,000 events; RSS flat after warm-up (the second half of the run).
// Each sample also has the daemon's CPU seconds so far, to weigh what a flag costs whatever the load.
// Usage: npm run build && node bench/daemon-rss.mjs [events]
import { readFileSync } from 'node:fs';
import {
  benchEnv,
  connect,
  fixture,
  handoff,
  loopback,
  save,
  startDaemon,
  stopDaemon,
} from './daemon-common.mjs';

const total = Number(process.argv[2] ?? 50_000);
const rssMb = (pid) =>
  Number((Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024).toFixed(1));
/** CPU seconds the process has used (user + system), from /proc: what a flag costs, whatever the load. */
const cpuS = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(((Number(fields[11]) + Number(fields[12])) / 100).toFixed(2));
};
const names = [
  '01-SessionStart-startup.json',
  '02-UserPromptSubmit.json',
  '03-PreToolUse-Execute.json',
  '04-Notification.json',
  '05-PostToolUse-Execute.json',
  '06-PreToolUse-Create.json',
  '08-PostToolUse-Create.json',
  '09-PreToolUse-Task.json',
  '14-SubagentStop.json',
  '15-PostToolUse-Task.json',
  '11-UserPromptSubmit.json',
  '07-Notification.json',
  '18-PreCompact.json',
  '03-PreToolUse-Execute.json',
  '05-PostToolUse-Execute.json',
  '02-UserPromptSubmit.json',
  '03-PreToolUse-Execute.json',
  '05-PostToolUse-Execute.json',
  '16-Stop.json',
  '13-SessionEnd.json',
];
const payloads = names.map(fixture);
let delivered = 0;
const hook = await loopback(() => delivered++);
const t = benchEnv({
  notify: {
    channels: { ops: { type: 'webhook', url: `${hook.url}/hook` } },
    rules: [
      { on: ['Stop', 'Notification', 'SessionEnd'], channels: ['ops', 'desktop'] },
      { on: 'SubagentStop', channels: ['ops'] },
    ],
    noise: { dedupeWindowMs: 0 },
  },
});
const daemonEnv = {
  ...t.env,
  ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
  // BENCH_MALLOC_ARENA_MAX=2 measures glibc's arena limit (not set by hookd: see docs/daemon.md).
  ...(process.env.BENCH_MALLOC_ARENA_MAX ? { MALLOC_ARENA_MAX: process.env.BENCH_MALLOC_ARENA_MAX } : {}),
};
// The V8 flags every hookd start gives the daemon (DAEMON_NODE_FLAGS in src/link/client.ts);
// BENCH_DAEMON_FLAGS='' measures without them.
const daemonFlags = (process.env.BENCH_DAEMON_FLAGS ?? '--max-semi-space-size=1 --heap-growing-percent=20')
  .split(' ')
  .filter(Boolean);
let daemon = await startDaemon(daemonEnv, t.socket, undefined, daemonFlags);
const status = async (c) => (await c.request({ v: 1, type: 'status' })).status;
try {
  await new Promise((r) => setTimeout(r, 3000));
  const idle = rssMb(daemon.pid);
  console.error(JSON.stringify({ idleRssMb: idle }));
  const c = await connect(t.socket);
  const samples = [];
  let sent = 0;
  for (let mark = 5000; mark <= total; mark += 5000) {
    const clients = await Promise.all(Array.from({ length: 8 }, () => connect(t.socket)));
    await Promise.all(
      clients.map(async (k) => {
        while (sent < mark) {
          const n = sent++;
          const session = `bench-session-${Math.floor(n / payloads.length)}`;
          const payload = { ...payloads[n % payloads.length], session_id: session };
          await k.request(handoff(payload));
        }
        k.close();
      }),
    );
    // Wait until everything is processed and no delivery is pending (a condition, not a sleep).
    for (;;) {
      const s = await status(c);
      if (s.events.pending === 0 && s.outbox.pending === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const s = await status(c);
    samples.push({
      events: mark,
      rssMb: rssMb(daemon.pid),
      cpuS: cpuS(daemon.pid),
      heapUsedMb: Number((s.memory.heapUsedBytes / 1e6).toFixed(1)),
      dead: s.outbox.dead,
      delivered,
    });
    console.error(JSON.stringify(samples.at(-1)));
  }
  c.close();
  // Idle again after the run, then after a restart over the same journal.
  await new Promise((r) => setTimeout(r, 3000));
  const idleAfter = rssMb(daemon.pid);
  await stopDaemon(daemon);
  daemon = await startDaemon(daemonEnv, t.socket, undefined, daemonFlags);
  await new Promise((r) => setTimeout(r, 3000));
  const afterRestart = rssMb(daemon.pid);
  console.error(JSON.stringify({ idleAfter, afterRestart }));
  const warm = samples.filter((x) => x.events >= total / 2).map((x) => x.rssMb);
  save('daemon-rss', {
    target: 'at most 100 MB after 50,000 events; flat after warm-up',
    command: `node bench/daemon-rss.mjs ${total}`,
    daemonFlags,
    idleRssMb: idle,
    idleAfterRunRssMb: idleAfter,
    afterRestartRssMb: afterRestart,
    samples,
    afterWarmUp: { minRssMb: Math.min(...warm), maxRssMb: Math.max(...warm) },
  });
} finally {
  await stopDaemon(daemon);
  await hook.close();
  t.cleanup();
}

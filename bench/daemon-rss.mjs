#!/usr/bin/env node
// Idle daemon memory: RSS of `hookd daemon run` (default config, every channel built) after it has been
// idle for a few seconds; then heap and RSS after 40,000 and after 200,000 events. Target: idle < 60 MB.
// Usage: npm run build && node bench/daemon-rss.mjs
import { readFileSync } from 'node:fs';
import { benchEnv, connect, fixture, handoff, save, startDaemon, stopDaemon } from './daemon-common.mjs';

const rssMb = (pid) =>
  Number((Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024).toFixed(1));
const t = benchEnv({});
const daemon = await startDaemon(t.env, t.socket);
try {
  await new Promise((r) => setTimeout(r, 3000));
  const idle = rssMb(daemon.pid);
  const c = await connect(t.socket);
  const payload = fixture('05-PostToolUse-Execute.json');
  // Memory must stay flat as events pass: the heap after 40k and after 200k events should be alike.
  const heapAfter = {};
  let sent = 0;
  for (const mark of [40_000, 200_000]) {
    const clients = await Promise.all(Array.from({ length: 16 }, () => connect(t.socket)));
    await Promise.all(
      clients.map(async (k) => {
        while (sent < mark) {
          sent++;
          await k.request(handoff(payload));
        }
        k.close();
      }),
    );
    await new Promise((r) => setTimeout(r, 3000));
    const status = (await c.request({ v: 1, type: 'status' })).status;
    heapAfter[mark] = {
      heapUsedMb: Number((status.memory.heapUsedBytes / 1e6).toFixed(1)),
      rssMb: rssMb(daemon.pid),
    };
  }
  c.close();
  save('daemon-rss', {
    target: 'idle < 60 MB; flat over many events',
    idleRssMb: idle,
    afterEvents: heapAfter,
  });
} finally {
  await stopDaemon(daemon);
  t.cleanup();
}

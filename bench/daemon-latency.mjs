#!/usr/bin/env node
// Event to Slack POST received on loopback: from the moment a client sends the event to the daemon until
// a loopback "Slack" webhook has the whole request. No enrichment. Events are sent at a steady pace
// (one every 20 ms) so the figure is per-event latency, not queueing. Target: p50 < 20 ms, p99 < 100 ms.
// Usage: npm run build && node bench/daemon-latency.mjs [events=500]
import {
  benchEnv,
  connect,
  fixture,
  handoff,
  loopback,
  quantiles,
  save,
  startDaemon,
  stopDaemon,
} from './daemon-common.mjs';

const EVENTS = Number(process.argv[2] ?? 500);
const sentAt = new Map();
const latencies = [];
const slack = await loopback((body) => {
  const at = performance.now();
  const title = JSON.parse(body).blocks[0].text.text;
  const start = sentAt.get(title);
  if (start !== undefined) latencies.push(at - start);
});
const t = benchEnv({
  notify: {
    channels: { team: { type: 'slack', webhookUrl: `${slack.url}/services/T/B/X` } },
    rules: [{ on: 'Notification', channels: ['team'], title: '{{message}}' }],
    noise: { dedupeWindowMs: 0 },
  },
});
const daemon = await startDaemon(t.env, t.socket);
try {
  const c = await connect(t.socket);
  const payload = fixture('04-Notification.json');
  for (let i = 0; i < EVENTS; i++) {
    const message = `latency ${i}`;
    sentAt.set(message, performance.now());
    await c.request(handoff({ ...payload, message }));
    await new Promise((r) => setTimeout(r, 20));
  }
  for (let i = 0; i < 200 && latencies.length < EVENTS; i++) await new Promise((r) => setTimeout(r, 50));
  c.close();
  const q = quantiles(latencies);
  const round = (x) => Number(x.toFixed(2));
  save('daemon-latency', {
    target: 'p50 < 20 ms, p99 < 100 ms',
    events: EVENTS,
    received: latencies.length,
    p50Ms: round(q.p50),
    p90Ms: round(q.p90),
    p99Ms: round(q.p99),
    maxMs: round(q.max),
  });
} finally {
  await stopDaemon(daemon);
  await slack.close();
  t.cleanup();
}

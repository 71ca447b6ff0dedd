#!/usr/bin/env node
// Daemon ingest: events/s acknowledged (durable: journaled + fsync'd before each ack) from concurrent
// clients, and 0 lost (every acked id is counted by the daemon). Target: 5,000 events/s sustained.
// Usage: npm run build && node bench/daemon-ingest.mjs [events=50000] [clients=32]
import { benchEnv, connect, fixture, handoff, save, startDaemon, stopDaemon } from './daemon-common.mjs';

const EVENTS = Number(process.argv[2] ?? 50_000);
const CLIENTS = Number(process.argv[3] ?? 32);

async function run(fsync) {
  // A rule exists, but not for this event: ingest + rule evaluation, no delivery.
  const t = benchEnv({
    notify: { rules: [{ on: 'Stop', channels: ['desktop'] }] },
    daemon: { fsync },
  });
  const daemon = await startDaemon(t.env, t.socket);
  try {
    const payload = fixture('05-PostToolUse-Execute.json');
    let next = 0;
    let acked = 0;
    const start = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        const c = await connect(t.socket);
        while (next < EVENTS) {
          next++;
          const reply = await c.request(handoff(payload));
          if (reply.ok) acked++;
        }
        c.close();
      }),
    );
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const c = await connect(t.socket);
    let status;
    for (;;) {
      status = (await c.request({ v: 1, type: 'status' })).status;
      if (status.events.processed >= acked) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    c.close();
    return {
      fsync,
      events: EVENTS,
      clients: CLIENTS,
      acked,
      receivedByDaemon: status.events.received,
      lost: acked - status.events.received,
      seconds: Number(seconds.toFixed(2)),
      eventsPerSecond: Math.round(acked / seconds),
      daemonRssMb: Number((status.memory.rssBytes / 1e6).toFixed(1)),
    };
  } finally {
    await stopDaemon(daemon);
    t.cleanup();
  }
}

const withFsync = await run(true);
const withoutFsync = await run(false);
save('daemon-ingest', { target: '5000 events/s, 0 lost', withFsync, withoutFsync });

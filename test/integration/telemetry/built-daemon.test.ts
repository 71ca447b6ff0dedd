import { describe, expect, it } from 'vitest';
import { handOff } from '../../../src/link/client.js';
import { spansOf, startCollector } from '../../helpers/otlp-collector.js';
import { fixture, handoffOf, tempEnv, waitFor } from '../daemon/helpers.js';
import { spawnDaemon, stopDaemon, useProcessCleanup, writeConfig } from '../daemon/process-helpers.js';

// The built daemon loads the OpenTelemetry protobuf code from its own chunk (dist/otlp-proto.cjs) at
// the first export: the bundle as users get it, not the sources the other telemetry tests run.
const { pids, cleanups } = useProcessCleanup();

describe('the built daemon exports OTLP protobuf', () => {
  it('sends an event span that a collector decodes', async () => {
    const collector = await startCollector();
    cleanups.push(() => collector.close());
    const temp = tempEnv();
    cleanups.push(temp.cleanup);
    const env = {
      ...temp.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    };
    writeConfig(env, {});
    const daemon = await spawnDaemon(env);
    pids.push(daemon.pid!);
    cleanups.push(() => stopDaemon(daemon));
    const sent = await handOff(handoffOf(fixture('16-Stop.json')), { env, timeoutMs: 2000 });
    expect(sent).toEqual({ outcome: 'acked' });
    // Stopped, the daemon finishes the event and sends what its exporter holds: no wait for the export
    // interval (the interval itself: daemon-export.test.ts).
    await stopDaemon(daemon);
    const traces = await waitFor(
      () => {
        const list = collector.requests.filter((r) => r.path === '/v1/traces');
        return list.length > 0 && list;
      },
      15_000,
      'a trace export',
    );
    expect(traces[0]!.contentType).toBe('application/x-protobuf');
    expect(spansOf(traces).length).toBeGreaterThan(0);
  });
});

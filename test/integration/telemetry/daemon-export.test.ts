import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon, type DaemonHandle } from '../../../src/daemon/lifecycle/daemon.js';
import { handOff } from '../../../src/link/client.js';
import { sessionTraceId } from '../../../src/telemetry/daemon-telemetry.js';
import { fixture, handoffOf, loopbackServer, tempEnv } from '../daemon/helpers.js';
import { waitFor } from '../../helpers/wait.js';
import { attrs, logsOf, metricsOf, spansOf, startCollector } from '../../helpers/otlp-collector.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(
  extraEnv: Record<string, string> = {},
  telemetry?: object,
  defer?: (work: () => void) => void,
) {
  const temp = tempEnv();
  cleanups.push(temp.cleanup);
  const collector = await startCollector();
  cleanups.push(() => collector.close());
  const hook = await loopbackServer();
  cleanups.push(hook.close);
  const env = { ...temp.env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, ...extraEnv };
  const daemon: DaemonHandle = await startDaemon({
    env,
    config: {
      notify: {
        waitingDelayMs: 0,
        channels: { ops: { type: 'webhook', url: `${hook.url}/hook` } },
        rules: [{ on: ['Stop'], channels: ['ops'] }],
        noise: { dedupeWindowMs: 0 },
      },
    },
    ...(telemetry ? { telemetry } : {}),
    telemetryTuning: { flushIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50, ...(defer ? { defer } : {}) },
  });
  cleanups.push(() => daemon.close());
  return { env, collector, daemon, hook };
}

const session = 'sess-otel-1';
const guard = {
  name: 'no-rm',
  command: 'secret-guard --token abc rm -rf /',
  exitCode: 2,
  signal: null,
  timedOut: false,
  durationMs: 37,
  blocking: true,
};

describe('the daemon exports what it sees over OTLP', () => {
  it('never makes an event or its notification wait for the telemetry work', async () => {
    // The building of spans, logs and metrics is held until released: the event is still answered
    // and its notification delivered.
    const held: (() => void)[] = [];
    let released = false;
    const t = await setup({}, undefined, (work) => (released ? work() : held.push(work)));
    const stop = handoffOf({ ...fixture('16-Stop.json'), session_id: 'sess-held' });
    expect(await handOff(stop, { env: t.env, timeoutMs: 2000 })).toEqual({ outcome: 'acked' });
    await waitFor(() => t.hook.received.length === 1, 10_000, 'the webhook delivery');
    expect(held.length).toBeGreaterThan(0);
    expect(spansOf(t.collector.requests)).toEqual([]);
    released = true;
    for (const work of held.splice(0)) work();
    const spans = await waitFor(
      () => {
        const list = spansOf(t.collector.requests).map((s) => s.name);
        return list.includes('hookd Stop') && list.includes('hookd.notify ops') && list;
      },
      10_000,
      'the event and delivery spans once released',
    );
    expect(spans).toContain('hookd Stop');
  });

  it('an event, its command runs, its notification delivery and the session, as spans, logs and metrics', async () => {
    const t = await setup();
    const base = { session_id: session, cwd: '/home/someone/project' };
    const sends = [
      handoffOf({ ...base, hook_event_name: 'SessionStart', source: 'startup' }),
      {
        ...handoffOf({
          ...base,
          hook_event_name: 'PreToolUse',
          tool_name: 'Execute',
          tool_input: { command: 'rm -rf /' },
        }),
        results: [guard],
      },
      handoffOf({ ...fixture('16-Stop.json'), ...base }),
      handoffOf({ ...base, hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' }),
    ];
    for (const message of sends)
      expect(await handOff(message, { env: t.env, timeoutMs: 2000 })).toEqual({ outcome: 'acked' });
    await waitFor(() => t.hook.received.length === 1, 10_000, 'the webhook delivery');
    const spans = await waitFor(
      () => {
        const list = spansOf(t.collector.requests);
        return (
          list.some((s) => String(s.name).startsWith('hookd.notify')) &&
          list.some((s) => String(s.name).startsWith('invoke_agent')) &&
          list
        );
      },
      10_000,
      'the delivery and session spans',
    );
    const byName = (name: string) => spans.find((s) => s.name === name)!;
    const trace = sessionTraceId(session);
    const pre = byName('hookd PreToolUse');
    expect(pre.traceId).toBe(trace);
    expect(attrs(pre.attributes)).toMatchObject({
      'hookd.event.name': 'PreToolUse',
      'gen_ai.agent.name': 'droid',
      'gen_ai.conversation.id': session,
      'gen_ai.tool.name': 'Execute',
      'gen_ai.operation.name': 'execute_tool',
      'hookd.project.name': 'project',
      'hookd.blocked': true,
      'hookd.commands': 1,
    });
    const command = byName('hookd.command no-rm');
    expect(command.parentSpanId).toBe(pre.spanId);
    expect(attrs(command.attributes)).toMatchObject({
      'hookd.command.outcome': 'blocked',
      'hookd.command.blocked': true,
      'hookd.command.exit_code': 2,
    });
    // No command line and no tool input leave the machine unless the config asks.
    expect(JSON.stringify(t.collector.requests.map((r) => r.body))).not.toMatch(
      /secret-guard|rm -rf|\/home\/someone/,
    );
    const notify = byName('hookd.notify ops');
    expect(notify.parentSpanId).toBe(byName('hookd Stop').spanId);
    expect(attrs(notify.attributes)).toMatchObject({
      'hookd.channel': 'ops',
      'hookd.delivery.outcome': 'delivered',
    });
    const sessionSpan = byName('invoke_agent droid');
    expect(sessionSpan.traceId).toBe(trace);
    expect(byName('hookd SessionStart').parentSpanId).toBe(sessionSpan.spanId);
    expect(attrs(sessionSpan.attributes)).toMatchObject({
      'hookd.session.outcome': 'prompt_input_exit',
      'hookd.session.events': 4,
    });
    await waitFor(() => logsOf(t.collector.requests).length === 4, 10_000, 'four event log records');
    const names = await waitFor(
      () => {
        const found = new Set(metricsOf(t.collector.requests).map((m) => String(m.name)));
        return (
          [
            'hookd.events',
            'hookd.command.runs',
            'hookd.command.duration',
            'hookd.notifications',
            'hookd.deliveries',
            'hookd.session.duration',
          ].every((n) => found.has(n)) && found
        );
      },
      10_000,
      'every metric',
    );
    expect(names.size).toBeGreaterThanOrEqual(6);
    const resource = attrs(
      (
        t.collector.requests[0]!.body as {
          resourceSpans?: { resource: { attributes: unknown } }[];
          resourceLogs?: { resource: { attributes: unknown } }[];
          resourceMetrics?: { resource: { attributes: unknown } }[];
        }
      ).resourceSpans?.[0]?.resource.attributes ??
        (t.collector.requests[0]!.body as { resourceLogs?: { resource: { attributes: unknown } }[] })
          .resourceLogs?.[0]?.resource.attributes ??
        (t.collector.requests[0]!.body as { resourceMetrics?: { resource: { attributes: unknown } }[] })
          .resourceMetrics?.[0]?.resource.attributes,
    );
    expect(resource['service.name']).toBe('hookd');
  });

  it('sends the command line, redacted, only when the config asks', async () => {
    const t = await setup({}, { export: { includeCommandLines: true } });
    const message = {
      ...handoffOf({ session_id: session, hook_event_name: 'PreToolUse', tool_name: 'Execute' }),
      results: [{ ...guard, command: 'guard --password=hunter2 x' }],
    };
    await handOff(message, { env: t.env, timeoutMs: 2000 });
    const command = await waitFor(
      () => spansOf(t.collector.requests).find((s) => s.name === 'hookd.command no-rm'),
      10_000,
      'the command span',
    );
    const line = String(attrs(command.attributes)['hookd.command.line']);
    expect(line).toContain('guard');
    expect(line).not.toContain('hunter2');
  });

  it('sends nothing under OTEL_SDK_DISABLED=true', async () => {
    const t = await setup({ OTEL_SDK_DISABLED: 'true' });
    await handOff(handoffOf(fixture('16-Stop.json')), { env: t.env, timeoutMs: 2000 });
    await waitFor(() => t.hook.received.length === 1, 10_000, 'the webhook delivery');
    // The export queue would have flushed the delivery's records within its interval; the daemon had none.
    expect((t.daemon as unknown as { export?: unknown }).export).toBeUndefined();
    expect(t.collector.requests).toEqual([]);
  });
});

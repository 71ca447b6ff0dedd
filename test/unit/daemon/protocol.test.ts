import { describe, expect, it } from 'vitest';
import { parseRequest } from '../../../src/link/protocol.js';
import { backoffMs } from '../../../src/journal/outbox.js';
import { spoolFileName } from '../../../src/link/spool.js';
import { notifySchema } from '../../../src/config/schemas/notify-schema.js';
import { daemonConfigSchema } from '../../../src/config/schemas/daemon-schema.js';

const event = { id: 'e1', receivedAt: 1, agent: 'droid', name: 'Stop', payload: { session_id: 's' } };

describe('protocol v1', () => {
  it('accepts event, ping, status, shutdown and outbox requests', () => {
    expect(parseRequest(JSON.stringify({ v: 1, type: 'event', event }))).toMatchObject({
      ok: true,
      request: { type: 'event', results: [] },
    });
    for (const type of ['ping', 'status', 'shutdown'])
      expect(parseRequest(`{"v":1,"type":"${type}"}`).ok).toBe(true);
    expect(parseRequest('{"v":1,"type":"outbox","action":"list"}')).toMatchObject({
      ok: true,
      request: { state: 'all' },
    });
  });
  it('accepts the same-event requests with a sha256 key, and an answer of exit 0, 1 or 2 only', () => {
    const key = 'f'.repeat(64);
    for (const type of ['once', 'once-wait'])
      expect(parseRequest(JSON.stringify({ v: 1, type, key })).ok).toBe(true);
    expect(parseRequest(JSON.stringify({ v: 1, type: 'once-done', key, exitCode: 2 }))).toMatchObject({
      ok: true,
      request: { exitCode: 2, stdout: '', stderr: '' },
    });
    expect(parseRequest(JSON.stringify({ v: 1, type: 'once-done', key })).ok).toBe(true);
    expect(parseRequest(JSON.stringify({ v: 1, type: 'once', key: '../etc' })).ok).toBe(false);
    expect(parseRequest(JSON.stringify({ v: 1, type: 'once-done', key, exitCode: 7 })).ok).toBe(false);
    const huge = 'x'.repeat(1024 * 1024 + 1);
    expect(parseRequest(JSON.stringify({ v: 1, type: 'once-done', key, exitCode: 0, stdout: huge })).ok).toBe(
      false,
    );
  });

  it('answers a type that is an object which cannot become a string, instead of throwing', () => {
    // Found by the parser fuzzing (test/integration/fuzz/parsers.heavy.test.ts): String() of {"toString":1,"valueOf":1} throws a TypeError.
    expect(parseRequest('{"v":1,"type":{"toString":1,"valueOf":1}}')).toMatchObject({
      ok: false,
      code: 'unknown_type',
      error: expect.stringMatching(/^invalid request: /) as unknown,
    });
  });

  it('keeps unknown event and payload fields (the agent adds them over time)', () => {
    const parsed = parseRequest(
      JSON.stringify({ v: 1, type: 'event', event: { ...event, future: 1, payload: { new_field: true } } }),
    );
    expect(parsed.ok && parsed.request.type === 'event' && parsed.request.event).toMatchObject({
      future: 1,
      payload: { new_field: true },
    });
  });
  it('reads the agent as the hook types it: a known kind, else "unknown" (no cast in the daemon)', () => {
    const agentOf = (agent: unknown) => {
      const parsed = parseRequest(JSON.stringify({ v: 1, type: 'event', event: { ...event, agent } }));
      return parsed.ok && parsed.request.type === 'event' ? parsed.request.event.agent : 'rejected';
    };
    expect(agentOf('claude')).toBe('claude');
    expect(agentOf('droid')).toBe('droid');
    expect(agentOf('codex')).toBe('codex');
    expect(agentOf('cursor')).toBe('cursor'); // recognised without an adapter
    expect(agentOf('a-newer-agent')).toBe('unknown');
    expect(agentOf(undefined)).toBe('unknown');
  });
  it('nacks a wrong version, bad JSON, an unknown type and an invalid event clearly', () => {
    expect(parseRequest(JSON.stringify({ v: 2, type: 'event', event }))).toMatchObject({
      ok: false,
      code: 'bad_version',
      id: 'e1',
      error: expect.stringContaining('this daemon speaks v1'),
    });
    expect(parseRequest('{oops')).toMatchObject({ ok: false, code: 'bad_json' });
    expect(parseRequest('[1]')).toMatchObject({ ok: false, code: 'bad_request' });
    expect(parseRequest('{"v":1,"type":"dance"}')).toMatchObject({ ok: false, code: 'unknown_type' });
    expect(parseRequest('{"v":1,"type":"event","event":{"id":"x"}}')).toMatchObject({
      ok: false,
      code: 'invalid',
      error: expect.stringContaining('event.name'),
    });
  });
});

describe('outbox backoff', () => {
  it('doubles per attempt with jitter between half and all of the step, capped', () => {
    expect(backoffMs(1, 1000, 60_000, () => 0)).toBe(500);
    expect(backoffMs(1, 1000, 60_000, () => 1)).toBe(1000);
    expect(backoffMs(4, 1000, 60_000, () => 1)).toBe(8000);
    expect(backoffMs(20, 1000, 60_000, () => 1)).toBe(60_000);
  });
});

describe('spool file names', () => {
  it('sort by time, then id, and never carry path characters', () => {
    const names = [spoolFileName(20, 'b'), spoolFileName(3, 'z'), spoolFileName(20, 'a')].sort();
    expect(names).toEqual(['0000000000003-z.json', '0000000000020-a.json', '0000000000020-b.json']);
    expect(spoolFileName(1, '../../etc')).not.toContain('/');
  });
});

describe('config schemas', () => {
  it('accepts the documented example and rejects an unknown channel in a rule', () => {
    const ok = notifySchema.safeParse({
      channels: {
        desk: { type: 'desktop' },
        team: { type: 'slack', webhookUrl: '${SLACK_WEBHOOK_URL}' },
        ops: { type: 'webhook', url: 'https://example.invalid/h' },
      },
      rules: [{ on: ['Stop', 'Notification'], channels: ['desk', 'team'] }],
    });
    expect(ok.success).toBe(true);
    const bad = notifySchema.safeParse({ rules: [{ on: 'Stop', channels: ['nowhere'] }] });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]).toMatchObject({
      path: ['rules', 0, 'channels', 0],
      message: 'unknown channel "nowhere"',
    });
  });
  it('requires a slack webhook or a bot token with a channel, and bad times of day', () => {
    expect(notifySchema.safeParse({ channels: { s: { type: 'slack' } } }).success).toBe(false);
    expect(
      notifySchema.safeParse({ quietHours: { windows: [{ start: '25:00', end: '07:00' }] } }).success,
    ).toBe(false);
  });
  it('fills every daemon default', () => {
    expect(daemonConfigSchema.parse({})).toMatchObject({
      enabled: true,
      autoStart: true,
      handoffTimeoutMs: 250,
      fsync: false,
    });
  });
});

describe('rule templates in the config', () => {
  it('are checked when the config is validated', () => {
    const bad = notifySchema.safeParse({
      rules: [{ on: 'Stop', channels: ['desktop'], title: '{{ a + b }}', body: '{{x | shout}}' }],
    });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['rules.0.title', 'template: "a + b" is not a field path (use e.g. session.title)'],
      ['rules.0.body', expect.stringMatching(/^template: unknown filter "shout"/)],
    ]);
  });
});

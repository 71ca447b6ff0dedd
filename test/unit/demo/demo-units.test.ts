import { describe, expect, it } from 'vitest';
import { rewriteRecordedPaths, sessionSlug } from '../../../src/demo/demo-session.js';
import { eventDetail, formatDemoEvent, type DemoEventResult } from '../../../src/demo/format-demo.js';
import { platformSessionFromTranscript } from '../../../src/demo/seed-platform.js';
import { demoConfig } from '../../../src/demo/demo-env.js';
import { configSchema } from '../../../src/config/schemas/schema.js';
import { handOffsDone } from '../../../src/demo/run-demo.js';

const to = { home: '/tmp/hookd-demo-Ab12/home', cwd: '/tmp/hookd-demo-Ab12/home/projects/demo' };

describe('rewriting the recorded paths', () => {
  it('makes the sessions folder slug from the cwd', () => {
    expect(sessionSlug('/home/dev/projects/demo')).toBe('-home-dev-projects-demo');
    expect(sessionSlug(to.cwd)).toBe('-tmp-hookd-demo-Ab12-home-projects-demo');
  });

  it('rewrites the home, and the slug inside transcript paths, to the new place', () => {
    const recorded = JSON.stringify({
      transcript_path:
        '/home/dev/.factory/sessions/-home-dev-projects-demo/48e23316-6280-4a11-966d-13493854823f.jsonl',
      cwd: '/home/dev/projects/demo',
      out: 'pwd says /home/dev',
    });
    expect(JSON.parse(rewriteRecordedPaths(recorded, to))).toEqual({
      transcript_path: `${to.home}/.factory/sessions/-tmp-hookd-demo-Ab12-home-projects-demo/48e23316-6280-4a11-966d-13493854823f.jsonl`,
      cwd: to.cwd,
      out: `pwd says ${to.home}`,
    });
  });

  it('leaves other homes that only start alike alone', () => {
    expect(rewriteRecordedPaths('/home/devon/x /home/dev.old /home/dev', to)).toBe(
      `/home/devon/x /home/dev.old ${to.home}`,
    );
  });

  it('writes a new home that needs JSON escaping as valid JSON', () => {
    const odd = { home: '/tmp/a "quoted" \\ home', cwd: '/tmp/a "quoted" \\ home/projects/demo' };
    const text = rewriteRecordedPaths('{"cwd": "/home/dev/projects/demo"}', odd);
    expect(JSON.parse(text)).toEqual({ cwd: odd.cwd });
  });
});

describe('the platform session made from a local transcript', () => {
  const transcript = [
    { type: 'session_start', id: 's1', title: 'Fix the parser', cwd: '/x' },
    {
      type: 'message',
      id: 'h1',
      timestamp: '2026-11-22T11:32:36.699Z',
      message: { role: 'user', content: [], visibility: 'user_only', hookEventName: 'SessionStart' },
    },
    {
      type: 'message',
      id: 'context-u1',
      timestamp: '2026-11-22T11:32:36.800Z',
      message: { role: 'user', content: [{ type: 'text', text: '<system-reminder>...' }] },
    },
    {
      type: 'message',
      id: 'u1',
      timestamp: '2026-11-22T11:32:36.815Z',
      message: { role: 'user', content: [{ type: 'text', text: 'Fix it' }] },
    },
    {
      type: 'message',
      id: 'a1',
      timestamp: '2026-11-22T11:32:37.000Z',
      message: { role: 'assistant', content: [{ type: 'tool_use', name: 'Execute', input: {} }] },
    },
    {
      type: 'message',
      id: 'a2',
      timestamp: '2026-11-22T11:32:38.619Z',
      message: { role: 'assistant', content: [{ type: 'text', text: 'Fixed.' }] },
    },
  ]
    .map((line) => JSON.stringify(line))
    .join('\n');

  it('keeps the title, the times, and the messages people see (not hook records, context or tool calls)', () => {
    const session = platformSessionFromTranscript('s1', transcript, {
      model: 'custom:fake-chat',
      tokenUsage: { inputTokens: 60, outputTokens: 30, factoryCredits: 2 },
      tags: [{ name: 'subagent', metadata: {} }],
    });
    expect(session).toMatchObject({
      sessionId: 's1',
      status: 'idle',
      title: 'Fix the parser',
      createdAt: Date.parse('2026-11-22T11:32:36.699Z'),
      completedAt: Date.parse('2026-11-22T11:32:38.619Z'),
      sessionSettings: {
        model: 'custom:fake-chat',
        tokenUsage: { inputTokens: 60, outputTokens: 30, serviceCredits: 2 },
        tags: [{ name: 'subagent', metadata: {} }],
      },
    });
    expect(session.messages.map((m) => [m.id, m.role, m.content, m.parentId])).toEqual([
      ['u1', 'user', [{ type: 'text', text: 'Fix it' }], undefined],
      ['a2', 'assistant', [{ type: 'text', text: 'Fixed.' }], 'u1'],
    ]);
  });
});

describe('the demo output', () => {
  it('names what an event is about', () => {
    expect(eventDetail({ tool_input: { command: 'echo hi' } })).toBe('echo hi');
    expect(eventDetail({ tool_input: { file_path: '/a/b/hook-demo.txt' } })).toBe('hook-demo.txt');
    expect(eventDetail({ notification_type: 'permission_prompt' })).toBe('permission_prompt');
    expect(eventDetail({ source: 'resume' })).toBe('resume');
    expect(eventDetail({ tool_input: { command: `npm test -- ${'x'.repeat(40)}\nmore` } })).toBe(
      `npm test -- ${'x'.repeat(19)}…`,
    );
    expect(eventDetail({ prompt: 'hello' })).toBeNull();
  });

  it('prints one line per event with each command, its exit code and duration', () => {
    const base: DemoEventResult = {
      index: 3,
      name: 'PreToolUse',
      tool: 'Execute',
      detail: 'echo hi',
      sessionId: 's',
      subagent: false,
      commands: [],
      decidedBy: null,
      agentExitCode: 0,
      handoff: 'acked',
    };
    const command = {
      event: 'PreToolUse',
      name: 'guard',
      command: 'node guard.mjs',
      blocking: true,
      exitCode: 0,
      signal: null,
      timedOut: false,
      killedBy: null,
      spawnError: null,
      durationMs: 48.2,
      stdout: '',
      stderr: '',
    };
    const line = formatDemoEvent({ ...base, commands: [command] }, { color: false });
    expect(line).toMatch(/^03 PreToolUse Execute echo hi +✓ guard exit 0 48ms \[blocking\]\n$/);
    expect(
      formatDemoEvent({ ...base, subagent: true, name: 'Stop', tool: null, detail: null }, { color: false }),
    ).toMatch(/^03 ↳ Stop +no hook command\n$/);
    const blocked = formatDemoEvent(
      {
        ...base,
        commands: [{ ...command, exitCode: 2 }],
        agentExitCode: 2,
        decidedBy: 'guard',
        handoff: 'spooled',
      },
      { color: false },
    );
    // A guard's block is its decision, not a failure (events/failed.ts): ✓, as replay and explain show it.
    expect(blocked).toContain('⊘ guard exit 2 48ms [blocking] → agent blocked by guard (daemon: spooled)');
    const crashed = formatDemoEvent(
      { ...base, commands: [{ ...command, blocking: false, exitCode: 2 }] },
      {
        color: false,
      },
    );
    expect(crashed).toContain('✗ guard exit 2 48ms');
  });
});

describe('the demo config', () => {
  it('is a valid hookd config with three commands and console rules', () => {
    const parsed = configSchema.safeParse(demoConfig());
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    const config = parsed.data!;
    const names = Object.values(config.hooks).flatMap((entries) =>
      entries.flatMap((e) => e.hooks.map((h) => h.name)),
    );
    expect(names).toEqual(['guard', 'command-log', 'stop-echo']);
    expect(new Set(config.notify!.rules!.flatMap((r) => r.channels))).toEqual(new Set(['console']));
    expect(config.notify!.channels.desktop!.enabled).toBe(false);
    expect(config.ledger!.tagOnPlatform).toBe(true);
  });
});

describe('waiting for the daemon between two events', () => {
  // The stream held the same event twice in a row: the daemon acknowledged both hand-offs, took the
  // second as a copy of the first ("duplicate": true) and processes only the first.
  const stats = (processed: number, duplicates: number) => ({
    events: { received: processed, duplicates, fromSpool: 0, rejected: 0, processed, pending: 0 },
  });

  it('counts a hand-off answered as a copy as done: it is never processed', () => {
    expect(handOffsDone(stats(1, 1), 2)).toBe(true);
    expect(handOffsDone(stats(1, 0), 2)).toBe(false); // the second is still on its way
    expect(handOffsDone(stats(2, 0), 2)).toBe(true);
  });
});

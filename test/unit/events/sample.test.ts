import { describe, expect, it } from 'vitest';
import { CLAUDE_EVENTS } from '../../../src/events/names.js';
import { detectAgent } from '../../../src/events/parse.js';
import { samplePayload, type SampleOptions } from '../../../src/events/sample.js';
import { claudeFixtures } from '../../helpers/claude-fixtures.js';
import { droidFixtures } from '../../helpers/fixtures.js';

// The payloads `hookd emit` and `hookd explain` build, held against the real recordings: Claude Code
// 2.1.330 (all five scenarios) and Droid 0.225.2.

const recorded = claudeFixtures(['print', 'stream', 'extras', 'auto', 'tui']);
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** The flags that would build a recording's event: its tool, source, trigger, reason, type. */
function flagsOf(payload: Record<string, unknown>): SampleOptions {
  return {
    cwd: '/home/dev/projects/demo',
    home: '/home/dev',
    ...(str(payload.tool_name) ? { tool: str(payload.tool_name) } : {}),
    ...(str(payload.source) ? { source: str(payload.source) } : {}),
    ...(str(payload.trigger) ? { trigger: str(payload.trigger) } : {}),
    ...(str(payload.reason) ? { reason: str(payload.reason) } : {}),
    ...(str(payload.notification_type) ? { notificationType: str(payload.notification_type) } : {}),
  };
}

/** Top-level key lists, in order, recorded for each event built with the same flags. */
function recordedShapes(): Map<string, string[][]> {
  const shapes = new Map<string, string[][]>();
  for (const f of recorded) {
    const key = `${String(f.payload.hook_event_name)} ${JSON.stringify(flagsOf(f.payload))}`;
    shapes.set(key, [...(shapes.get(key) ?? []), Object.keys(f.payload)]);
  }
  return shapes;
}

describe('samplePayload, agent claude', () => {
  it('has the top-level fields, in order, of a recording of each event Claude Code fired', () => {
    const shapes = recordedShapes();
    const events = new Set<string>();
    for (const [key, lists] of shapes) {
      const f = recorded.find(
        (r) => `${String(r.payload.hook_event_name)} ${JSON.stringify(flagsOf(r.payload))}` === key,
      )!;
      const name = String(f.payload.hook_event_name);
      events.add(name);
      const built = samplePayload(name, { agent: 'claude', ...flagsOf(f.payload) });
      expect(lists, `${f.file}: built ${Object.keys(built).join(',')}`).toContainEqual(Object.keys(built));
    }
    // Every event of the recordings is covered: 27 of the 33.
    expect(events.size).toBe(27);
  });

  it('builds tool inputs and responses as recorded for Bash and Write', () => {
    for (const tool of ['Bash', 'Write']) {
      for (const event of ['PreToolUse', 'PostToolUse']) {
        const real = recorded.find(
          (r) => r.payload.hook_event_name === event && r.payload.tool_name === tool,
        )!;
        const built = samplePayload(event, { agent: 'claude', tool });
        expect(Object.keys(built.tool_input as object), real.file).toEqual(
          Object.keys(real.payload.tool_input as object),
        );
        if (event === 'PostToolUse')
          expect(Object.keys(built.tool_response as object), real.file).toEqual(
            Object.keys(real.payload.tool_response as object),
          );
      }
    }
    const bash = samplePayload('PreToolUse', { agent: 'claude', command: 'rm -rf /' });
    expect(bash).toMatchObject({ tool_name: 'Bash', tool_input: { command: 'rm -rf /' } });
    expect(bash.tool_use_id).toMatch(/^toolu_01[A-Za-z0-9]{22}$/);
  });

  it("puts the transcript where Claude Code does, under the cwd's slug", () => {
    const real = recorded.find((r) => r.file === 'tui/17-Stop.json')!.payload;
    const built = samplePayload('Stop', {
      agent: 'claude',
      ...flagsOf(real),
      sessionId: String(real.session_id),
    });
    expect(built.transcript_path).toBe(real.transcript_path);
    expect(samplePayload('Stop', { agent: 'claude', cwd: '/a/b.c_d', home: '/h' }).transcript_path).toMatch(
      /^\/h\/\.claude\/projects\/-a-b-c-d\/[0-9a-f-]{36}\.jsonl$/,
    );
  });

  it('builds the events no run recorded, and unknown ones, with the common fields; --field adds more', () => {
    const never = CLAUDE_EVENTS.filter((e) => !recorded.some((r) => r.payload.hook_event_name === e));
    expect(never).toEqual([
      'TeammateIdle',
      'TaskCreated',
      'TaskCompleted',
      'Elicitation',
      'ElicitationResult',
      'WorktreeRemove',
    ]);
    for (const name of [...never, 'SomethingNew']) {
      const built = samplePayload(name, { agent: 'claude', fields: { extra: 1 } });
      expect(Object.keys(built)).toEqual([
        'session_id',
        'transcript_path',
        'cwd',
        'prompt_id',
        'hook_event_name',
        'extra',
      ]);
      expect(built.hook_event_name).toBe(name);
    }
  });

  it('reads as Claude Code to hookd even without --agent (piped to an older hook command)', () => {
    for (const name of ['PreToolUse', 'Stop', 'SessionStart'])
      expect(detectAgent(samplePayload(name, { agent: 'claude' }), {})).toBe('claude');
    expect(detectAgent(samplePayload('Stop'), {})).toBe('droid');
  });
});

describe('samplePayload, Droid (the default)', () => {
  it("keeps Droid's shape: Execute, no trailing Claude fields", () => {
    for (const f of droidFixtures().filter((r) => r.payload.hook_event_name === 'Stop')) {
      expect(Object.keys(samplePayload('Stop'))).toEqual(Object.keys(f.payload));
    }
    const pre = samplePayload('PreToolUse', { command: 'ls' });
    expect(pre).toMatchObject({ tool_name: 'Execute', tool_input: { command: 'ls', riskLevel: 'low' } });
    expect(pre).not.toHaveProperty('tool_use_id');
  });
});

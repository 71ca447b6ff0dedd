import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEvent } from '../../../src/events/parse.js';

const DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'claude');
const fixtures = readdirSync(DIR)
  .filter((name) => name.endsWith('.json'))
  .map((name) => {
    const payload = JSON.parse(readFileSync(join(DIR, name), 'utf8')) as Record<string, unknown>;
    // the agent sends one line on stdin
    return [name, payload, JSON.stringify(payload)] as const;
  });
const clock = { now: () => 1_700_000_000_000, id: () => 'evt-1' };
const claudeEnv = { CLAUDE_PROJECT_DIR: '/home/dev/projects/demo' };

describe('Claude Code payloads through the lenient parser', () => {
  it('has the fixtures', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(13);
  });

  it.each(fixtures)('%s: parsed as a Claude event with the payload untouched', (_name, payload, line) => {
    const result = parseEvent(line, claudeEnv, clock);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.event).toEqual({
      id: 'evt-1',
      receivedAt: 1_700_000_000_000,
      agent: 'claude',
      name: payload.hook_event_name,
      sessionId: payload.session_id,
      cwd: payload.cwd,
      transcriptPath: payload.transcript_path,
      projectDir: '/home/dev/projects/demo',
      payload,
    });
  });

  it.each(fixtures)('%s: recognised as Claude even without CLAUDE_PROJECT_DIR', (_name, _payload, line) => {
    const result = parseEvent(Buffer.from(line), {}, clock);
    expect(result.ok && result.event.agent).toBe('claude');
  });

  it('keeps the Claude-only fields: object tool_response, tool_use_id, duration_ms, last_assistant_message, title', () => {
    const byName = Object.fromEntries(
      fixtures.map(([name, , line]) => [name, parseEvent(line, claudeEnv, clock)]),
    );
    const payloadOf = (name: string) => {
      const result = byName[name];
      if (!result?.ok) throw new Error(`${name} did not parse`);
      return result.event.payload;
    };
    expect(payloadOf('04-PostToolUse-Bash.json')).toMatchObject({
      tool_name: 'Bash',
      tool_response: { stdout: 'hi', stderr: '', interrupted: false },
      tool_use_id: 'toolu_01A9xQ3fKpL2mN8vR4tY6wZ1',
      duration_ms: 41,
    });
    expect(payloadOf('06-PostToolUse-Write.json').tool_response).toMatchObject({ type: 'create' });
    expect(payloadOf('09-Stop.json').last_assistant_message).toMatch(/^Done/);
    expect(payloadOf('07-Notification-permission.json')).toMatchObject({ title: 'Permission needed' });
    expect(payloadOf('12-SessionEnd-resume.json').reason).toBe('resume');
  });

  it('still tells a Droid payload apart from a Claude one', () => {
    const droid = JSON.stringify({
      session_id: '2205f964-686d-4779-9439-ceccfdb78145',
      transcript_path: '/home/dev/.factory/sessions/-home-dev-projects-demo/2205f964.jsonl',
      cwd: '/home/dev/projects/demo',
      hook_event_name: 'PostToolUse',
      tool_name: 'Execute',
      tool_response: 'hi\n\n\n[Process exited with code 0]',
    });
    const result = parseEvent(
      droid,
      { FACTORY_PROJECT_DIR: '/home/dev/projects/demo', CLAUDE_PROJECT_DIR: '/x' },
      clock,
    );
    expect(result.ok && result.event.agent).toBe('droid');
  });
});

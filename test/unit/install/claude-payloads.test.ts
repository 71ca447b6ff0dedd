import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEvent } from '../../../src/events/parse.js';
import { CLAUDE_FIXTURES_DIR } from '../../helpers/fixtures.js';

// Every payload the real Claude Code 2.1.330 sent in the five recorded scenarios, as sent (one line).
const fixtures = ['print', 'stream', 'extras', 'auto', 'tui'].flatMap((scenario) =>
  readdirSync(join(CLAUDE_FIXTURES_DIR, scenario))
    .filter((name) => /^\d\d-.*\.json$/.test(name))
    .sort()
    .map((name) => {
      const line = readFileSync(join(CLAUDE_FIXTURES_DIR, scenario, name), 'utf8');
      return [`${scenario}/${name}`, JSON.parse(line) as Record<string, unknown>, line] as const;
    }),
);
const clock = { now: () => 1_700_000_000_000, id: () => 'evt-1' };
const claudeEnv = { CLAUDE_PROJECT_DIR: '/home/dev/projects/demo' };
const byName = (name: string) => {
  const found = fixtures.find(([n]) => n === name);
  if (!found) throw new Error(`no fixture ${name}`);
  const result = parseEvent(found[2], claudeEnv, clock);
  if (!result.ok) throw new Error(`${name} did not parse`);
  return result.event.payload;
};

describe('real Claude Code 2.1.330 payloads through the lenient parser', () => {
  it('has the recorded payloads of the five scenarios', () => {
    expect(fixtures).toHaveLength(16 + 23 + 45 + 8 + 27);
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

  it('keeps the Claude-only fields: object tool_response, tool_use_id, duration_ms, last_assistant_message', () => {
    expect(byName('print/04-PostToolUse-Bash.json')).toMatchObject({
      tool_name: 'Bash',
      tool_response: { stdout: 'hi', stderr: '', interrupted: false },
      tool_use_id: 'toolu_mwtdjftx1',
      duration_ms: 22,
    });
    expect(byName('print/07-PostToolUse-Write.json').tool_response).toMatchObject({ type: 'create' });
    expect(byName('print/15-Stop.json').last_assistant_message).toBe(
      'All done: ran `echo hi`, created hook-demo.txt and ran a sub-agent.',
    );
    expect(byName('stream/08-Notification-permission_prompt.json')).toMatchObject({
      notification_type: 'permission_prompt',
      message: 'Claude needs your permission to use Write',
    });
    expect(byName('tui/27-SessionEnd-prompt_input_exit.json').reason).toBe('prompt_input_exit');
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

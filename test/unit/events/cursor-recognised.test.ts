import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEvent } from '../../../src/events/parse.js';
import { REPO_DIR } from '../../helpers/fixtures.js';

// Cursor runs the hooks of Claude Code's settings files: hookd's entry there (`--agent claude`) gets
// Cursor's events. From Cursor's documented payload (test/fixtures/cursor-docs/, written from its docs,
// not recorded): recognised as Cursor, under hookd's event names, with its conversation as the session.

const cursor = (name: string) => readFileSync(join(REPO_DIR, 'test', 'fixtures', 'cursor-docs', name));

describe("Cursor running Claude Code's hooks", () => {
  it('is recognised from its own fields, whatever the command names', () => {
    for (const declared of ['claude', 'droid', undefined] as const) {
      const parsed = parseEvent(cursor('preToolUse-Shell.json'), {}, undefined, declared);
      if (!parsed.ok) throw new Error(parsed.detail);
      expect(parsed.event.agent).toBe('cursor');
      expect(parsed.event.name).toBe('PreToolUse');
      expect(parsed.event.sessionId).toBe('c0ffee00-1111-4222-8333-444455556666');
      expect(parsed.event.payload.hook_event_name).toBe('preToolUse'); // the payload keeps its own name
    }
  });

  it("its stop is hookd's Stop; Claude Code's own events stay Claude Code's", () => {
    const parsed = parseEvent(cursor('stop.json'), {}, undefined, 'claude');
    if (!parsed.ok) throw new Error(parsed.detail);
    expect([parsed.event.agent, parsed.event.name]).toEqual(['cursor', 'Stop']);
    const claude = parseEvent(
      JSON.stringify({ session_id: 's', hook_event_name: 'stop', transcript_path: '/x/.claude/p/s.jsonl' }),
      {},
      undefined,
      'claude',
    );
    if (!claude.ok) throw new Error(claude.detail);
    expect([claude.event.agent, claude.event.name]).toEqual(['claude', 'stop']);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEvent } from '../../../src/events/parse.js';
import { GEMINI_CANONICAL, geminiCanonical } from '../../../src/events/gemini-facts.js';

// Every payload the real Codex CLI 0.171.0 and Gemini CLI 0.61.0 sent (test/fixtures): hookd tells the
// agent from the payload (and Gemini's session variable, not the CLAUDE_PROJECT_DIR it also sets), and
// names Gemini's events by their Claude Code counterparts.

const FIXTURES = join(import.meta.dirname, '../../fixtures');
const recorded = (dir: string) =>
  readdirSync(join(FIXTURES, dir))
    .filter((f) => /^\d\d-.*\.json$/.test(f))
    .map((f) => [f, readFileSync(join(FIXTURES, dir, f))] as const);

describe('Codex CLI payloads', () => {
  it.each(recorded('codex-0.171.0'))('%s is a Codex event under its own name', (_file, raw) => {
    const payload = JSON.parse(raw.toString()) as Record<string, unknown>;
    // An enclosing Droid session's variables pass through to Codex's hooks: the payload decides.
    const parsed = parseEvent(raw, { FACTORY_PROJECT_DIR: '/elsewhere', CLAUDE_PROJECT_DIR: '/elsewhere' });
    expect(parsed.ok && parsed.event).toMatchObject({
      agent: 'codex',
      name: payload.hook_event_name,
      sessionId: payload.session_id,
      projectDir: payload.cwd,
    });
  });
});

describe('Gemini CLI payloads', () => {
  it.each(recorded('gemini-cli-0.61.0'))('%s is a Gemini event, by its canonical name', (_file, raw) => {
    const payload = JSON.parse(raw.toString()) as Record<string, unknown>;
    const env = {
      GEMINI_SESSION_ID: String(payload.session_id),
      GEMINI_PROJECT_DIR: '/home/dev/projects/demo',
      CLAUDE_PROJECT_DIR: '/home/dev/projects/demo',
    };
    const parsed = parseEvent(raw, env);
    expect(parsed.ok && parsed.event).toMatchObject({
      agent: 'gemini',
      name: geminiCanonical(String(payload.hook_event_name)),
      projectDir: '/home/dev/projects/demo',
    });
    // The payload keeps Gemini's own name
    expect(parsed.ok && parsed.event.payload.hook_event_name).toBe(payload.hook_event_name);
  });

  it('maps the events with a counterpart, and leaves the others as they are', () => {
    expect(GEMINI_CANONICAL).toEqual({
      BeforeTool: 'PreToolUse',
      AfterTool: 'PostToolUse',
      BeforeAgent: 'UserPromptSubmit',
      AfterAgent: 'Stop',
      PreCompress: 'PreCompact',
    });
    expect(['BeforeModel', 'AfterModel', 'BeforeToolSelection', 'SessionStart'].map(geminiCanonical)).toEqual(
      ['BeforeModel', 'AfterModel', 'BeforeToolSelection', 'SessionStart'],
    );
    expect(geminiCanonical('toString')).toBe('toString');
  });

  it('is told from its transcript path when its variable is missing (an event replayed by hand)', () => {
    const raw = recorded('gemini-cli-0.61.0')[0]![1];
    const parsed = parseEvent(raw, { CLAUDE_PROJECT_DIR: '/x' });
    expect(parsed.ok && parsed.event.agent).toBe('gemini');
  });
});

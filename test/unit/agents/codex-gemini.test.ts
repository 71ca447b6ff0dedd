import { describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../../src/agents/adapters/registry.js';

const HOME = '/home/ada';
const where = { home: HOME, project: '/work/repo', env: {}, platform: 'linux' as const };

describe('the Codex CLI and Gemini CLI adapters', () => {
  it("read Codex's hooks from $CODEX_HOME/hooks.json then config.toml, and Gemini's user and project settings", () => {
    expect(ADAPTERS.codex.settings.files(where)).toEqual([
      { layer: 'user', kind: 'settings', file: `${HOME}/.codex/hooks.json` },
      { layer: 'user', kind: 'settings-toml', file: `${HOME}/.codex/config.toml` },
    ]);
    expect(ADAPTERS.codex.settings.files({ ...where, env: { CODEX_HOME: '/c' } })[0]!.file).toBe(
      '/c/hooks.json',
    );
    expect(ADAPTERS.gemini.settings.files(where).map((f) => f.file)).toEqual([
      `${HOME}/.gemini/settings.json`,
      '/work/repo/.gemini/settings.json',
    ]);
  });

  it('know their transcripts, as the real binaries named them', () => {
    const rollout = `${HOME}/.codex/sessions/2026/11/27/rollout-2026-11-27T01-42-03-01a21aaa-b076.jsonl`;
    expect(ADAPTERS.codex.sessions.ownsTranscript(rollout)).toBe(true);
    expect(ADAPTERS.codex.sessions.ownsTranscript(`${HOME}/.claude/projects/-x/s.jsonl`)).toBe(false);
    const chat = `${HOME}/.gemini/tmp/work/chats/session-2026-11-27T02-02-a5d1112d.jsonl`;
    expect(ADAPTERS.gemini.sessions.ownsTranscript(chat)).toBe(true);
    expect(ADAPTERS.gemini.sessions.slug('/home/dev/work')).toBe('work');
  });

  it('write timeouts in their own units, and cannot ask', () => {
    expect(ADAPTERS.codex.install.timeouts.unit).toBe('s');
    expect(ADAPTERS.gemini.install.timeouts.unit).toBe('ms');
    expect(ADAPTERS.codex.reply.ask).toEqual({ nearest: 'deny', who: 'Codex CLI hooks' });
    expect(ADAPTERS.gemini.reply).toMatchObject({ ask: { nearest: 'deny' }, stdoutJsonOnly: true });
    expect(ADAPTERS.gemini.canonicalEvents).toMatchObject({ BeforeTool: 'before-tool', AfterAgent: 'stop' });
    expect(ADAPTERS.codex.canonicalEvents.Interrupt).toBe('interrupt');
  });
});

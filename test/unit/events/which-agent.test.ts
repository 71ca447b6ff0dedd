import { describe, expect, it } from 'vitest';
import { parseEvent } from '../../../src/events/parse.js';
import { claudeFixture } from '../../helpers/claude-fixtures.js';
import { fixture } from '../../helpers/fixtures.js';

// One entry, fired by an agent it was not installed for: `hookd hook --agent claude` in Claude Code's
// settings, run by Droid (which imports Claude Code's hooks). The command names the settings' agent;
// the event itself says who sent it.

/** What Droid 0.225.2 puts in a hook's environment (it sets Claude Code's project variable too). */
const DROID_ENV = {
  FACTORY_PROJECT_DIR: '/home/dev/projects/demo',
  DROID_PROJECT_DIR: '/home/dev/projects/demo',
  CLAUDE_PROJECT_DIR: '/home/dev/projects/demo',
};

function agentOfParsed(payload: unknown, env: Record<string, string>, declared: 'claude' | 'droid') {
  const parsed = parseEvent(JSON.stringify(payload), env, undefined, declared);
  if (!parsed.ok) throw new Error(parsed.detail);
  return parsed.event.agent;
}

describe('which agent sent an event whose command names another', () => {
  it("a Claude Code entry that Droid runs is Droid's event: its transcript is Droid's", () => {
    const droidPre = fixture('exec/02-PreToolUse-Execute.json');
    expect(agentOfParsed(droidPre, DROID_ENV, 'claude')).toBe('droid');
    // even without Droid's variables (a wrapper that cleans the environment)
    expect(agentOfParsed(droidPre, {}, 'claude')).toBe('droid');
  });

  it('Claude Code inside a Droid session stays Claude Code: its session id proves it', () => {
    const claudePre = claudeFixture('print/03-PreToolUse-Bash.json');
    const env = { ...DROID_ENV, CLAUDE_CODE_SESSION_ID: claudePre.session_id as string };
    expect(agentOfParsed(claudePre, env, 'claude')).toBe('claude');
  });

  it("variables alone never overrule the command: an enclosing session's pass through", () => {
    const claudePre = claudeFixture('print/03-PreToolUse-Bash.json');
    expect(agentOfParsed(claudePre, DROID_ENV, 'claude')).toBe('claude');
    // a field several agents send is a guess, not a proof
    expect(agentOfParsed(claudePre, {}, 'droid')).toBe('droid');
  });
});

import { describe, expect, it } from 'vitest';
import type { HookdConfig } from '../../../src/config/schemas/schema.js';
import { validateConfigObject } from '../../../src/config/validate.js';
import { CLAUDE_EVENTS, matcherTarget } from '../../../src/events/names.js';
import { detectAgent, parseEvent } from '../../../src/events/parse.js';
import { matchesPattern } from '../../../src/runner/matcher.js';
import { planCommands } from '../../../src/runner/route.js';
import { claudeFixture, claudeFixtures } from '../../helpers/claude-fixtures.js';

// Claude Code 2.1.330's side of routing, from its real payloads (test/fixtures/claude-code-2.1.330) and
// the observed protocol: every event it fires, the field its matcher tests, how it splits a matcher,
// and which agent sent an event when an enclosing Droid session's environment passes through.

function config(input: unknown): HookdConfig {
  const result = validateConfigObject(input, 'test.json');
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.config;
}

function claudeEvent(path: string, extra: Record<string, unknown> = {}) {
  const parsed = parseEvent(JSON.stringify({ ...claudeFixture(path), ...extra }), {}, undefined, 'claude');
  if (!parsed.ok) throw new Error(parsed.detail);
  return parsed.event;
}

const cmd = (command: string) => ({ type: 'command', command });

describe('Claude Code events', () => {
  it('knows the 33 events of 2.1.330, and every recorded payload is one of them', () => {
    expect(CLAUDE_EVENTS).toHaveLength(33);
    const seen = new Set(claudeFixtures().map((f) => f.payload.hook_event_name as string));
    expect([...seen].filter((name) => !(CLAUDE_EVENTS as readonly string[]).includes(name))).toEqual([]);
    // 22 kinds were fired in the recorded scenarios (the others need agent teams, MCP or the UI)
    expect(seen.size).toBeGreaterThanOrEqual(22);
  });

  it.each(claudeFixtures().map((f) => [f.file, f] as const))('routes the real payload %s', (_n, f) => {
    const name = f.payload.hook_event_name as string;
    const c = config({ hooks: { [name]: [{ hooks: [cmd(`on-${name}`)] }] } });
    const parsed = parseEvent(f.raw, { CLAUDE_PROJECT_DIR: '/home/dev/projects/demo' }, undefined, 'claude');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.event.agent).toBe('claude');
    expect(parsed.event.name).toBe(name);
    expect(parsed.event.payload).toEqual(f.payload);
    expect(planCommands(parsed.event, c).commands.map((p) => p.spec.command)).toEqual([`on-${name}`]);
  });

  it('passes an unknown future event through to the commands configured for it', () => {
    const c = config({ hooks: { TeamFormed: [{ matcher: 'x', hooks: [cmd('on-team')] }] } });
    const event = claudeEvent('print/15-Stop.json', { hook_event_name: 'TeamFormed' });
    expect(event.name).toBe('TeamFormed');
    expect(planCommands(event, c).commands.map((p) => p.spec.command)).toEqual(['on-team']);
  });

  it.each([
    ['stream/07-PermissionRequest-Write.json', 'tool_name', 'Write'],
    ['auto/04-PermissionDenied-Bash.json', 'tool_name', 'Bash'],
    ['extras/14-PostToolUseFailure-Bash.json', 'tool_name', 'Bash'],
    ['stream/21-SessionStart-compact.json', 'source', 'compact'],
    ['extras/02-Setup-init.json', 'trigger', 'init'],
    ['stream/18-PreCompact-manual.json', 'trigger', 'manual'],
    ['stream/22-PostCompact-manual.json', 'trigger', 'manual'],
    ['stream/08-Notification-permission_prompt.json', 'notification_type', 'permission_prompt'],
    ['auto/08-SessionEnd-other.json', 'reason', 'other'],
    ['extras/41-StopFailure-unknown.json', 'error', 'unknown'],
    ['extras/26-SubagentStart-general_purpose.json', 'agent_type', 'general-purpose'],
    ['extras/27-SubagentStop-general_purpose.json', 'agent_type', 'general-purpose'],
    ['extras/21-ConfigChange-user_settings.json', 'source', 'user_settings'],
    ['extras/38-DirectoryAdded-register_repo_root.json', 'source', 'register_repo_root'],
    ['extras/01-InstructionsLoaded-session_start.json', 'load_reason', 'session_start'],
    ['extras/06-FileChanged-change.json', 'file_path', '.envrc'],
    ['extras/33-UserPromptExpansion-slash_command.json', 'command_name', 'greet'],
    ['extras/36-PreModelSwitch-command.json', 'to_model', 'claude-sonnet-5-5'],
  ])('%s: the matcher tests %s (%j)', (path, field, value) => {
    const event = claudeEvent(path);
    expect(matcherTarget('claude', event.name, event.payload)).toEqual({ field, value });
    const c = config({
      hooks: {
        [event.name]: [
          { matcher: value, hooks: [cmd('hit')] },
          { matcher: 'zzz_nothing', hooks: [cmd('miss')] },
        ],
      },
    });
    expect(planCommands(event, c).commands.map((p) => p.spec.command)).toEqual(['hit']);
  });

  it.each(['print/15-Stop.json', 'print/02-UserPromptSubmit.json', 'extras/11-CwdChanged.json'])(
    '%s has no matcher field: a matcher is ignored, as Claude Code does',
    (path) => {
      const event = claudeEvent(path);
      expect(matcherTarget('claude', event.name, event.payload)).toBeUndefined();
      const c = config({ hooks: { [event.name]: [{ matcher: 'zzz_nothing', hooks: [cmd('runs')] }] } });
      expect(planCommands(event, c).commands.map((p) => p.spec.command)).toEqual(['runs']);
    },
  );
});

describe('matchers as Claude Code splits them (observed with 2.1.330)', () => {
  const claude = { agent: 'claude' as const, wideList: true };
  it.each([
    ['Bash', true],
    ['Bash|Nope', true],
    ['Bash,Write', true],
    ['Write, Bash', true],
    ['Bas', false], // a list of exact names, not a prefix
    ['bash', false],
    ['ash|Nope', false], // still a list: no unanchored search
    ['B.s', true], // anything else is an unanchored RegExp
    ['a.h', true],
    ['^Bash$', true],
    ['.*', true],
    ['Ba.*|Write', true],
    ['*', true],
    ['', true],
  ])('%j against Bash -> %j', (pattern, expected) => {
    expect(matchesPattern(pattern, 'Bash', claude)).toBe(expected);
  });

  it('differs from Droid, which tests an unanchored RegExp after the exact name', () => {
    expect(matchesPattern('Bas', 'Bash', { agent: 'droid' })).toBe(true);
    expect(matchesPattern('Bas', 'Bash', claude)).toBe(false);
    expect(matchesPattern('Bash,Write', 'Bash', { agent: 'droid' })).toBe(false);
    expect(matchesPattern('Bash,Write', 'Bash', claude)).toBe(true);
  });

  it('events outside the wide list syntax read "," and "-" as a RegExp', () => {
    // StopFailure's list syntax is [A-Za-z0-9_|]: "rate_limit,unknown" is a RegExp there
    expect(matchesPattern('rate_limit,unknown', 'unknown', { agent: 'claude', wideList: false })).toBe(false);
    expect(matchesPattern('rate_limit|unknown', 'unknown', { agent: 'claude', wideList: false })).toBe(true);
  });

  it('routes a Claude event by the Claude rule and a Droid event by the Droid rule', () => {
    const c = config({ hooks: { PreToolUse: [{ matcher: 'Bas', hooks: [cmd('prefix')] }] } });
    const claudeBash = claudeEvent('print/03-PreToolUse-Bash.json');
    expect(planCommands(claudeBash, c).commands).toEqual([]);
    const droidish = parseEvent(
      JSON.stringify(claudeFixture('print/03-PreToolUse-Bash.json')),
      {},
      undefined,
      'droid',
    );
    if (!droidish.ok) throw new Error('parse');
    expect(planCommands(droidish.event, c).commands.map((p) => p.spec.command)).toEqual(['prefix']);
  });
});

describe('which agent sent the event', () => {
  // Claude Code started from a Droid session: Droid's variables pass through to Claude's hooks.
  const payload = claudeFixture('print/03-PreToolUse-Bash.json');
  const fromDroidSession = {
    FACTORY_PROJECT_DIR: '/home/dev/droid-project',
    DROID_PROJECT_DIR: '/home/dev/droid-project',
    CLAUDE_PROJECT_DIR: '/home/dev/projects/demo',
    CLAUDE_CODE_SESSION_ID: payload.session_id as string,
  };

  it('takes the agent the command names (hookd hook --agent claude), whatever the environment', () => {
    const parsed = parseEvent(JSON.stringify(payload), fromDroidSession, undefined, 'claude');
    if (!parsed.ok) throw new Error('parse');
    expect(parsed.event.agent).toBe('claude');
    // the project is Claude's own, not the enclosing Droid session's
    expect(parsed.event.projectDir).toBe('/home/dev/projects/demo');
  });

  it('without --agent, Claude Code is recognised by its session id even inside a Droid session', () => {
    expect(detectAgent(payload, fromDroidSession)).toBe('claude');
    const { CLAUDE_CODE_SESSION_ID: _drop, ...droidOnly } = fromDroidSession;
    expect(detectAgent(payload, droidOnly)).toBe('droid'); // the old guess, kept for old installs
  });

  it("keys the project on CLAUDE_PROJECT_DIR while the payload's cwd follows cd", () => {
    const parsed = parseEvent(
      JSON.stringify({ ...payload, cwd: '/home/dev/projects/demo/sub' }),
      { CLAUDE_PROJECT_DIR: '/home/dev/projects/demo' },
      undefined,
      'claude',
    );
    if (!parsed.ok) throw new Error('parse');
    expect(parsed.event.cwd).toBe('/home/dev/projects/demo/sub');
    expect(parsed.event.projectDir).toBe('/home/dev/projects/demo');
  });
});

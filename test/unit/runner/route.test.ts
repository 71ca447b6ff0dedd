import { describe, expect, it } from 'vitest';
import { validateConfigObject } from '../../../src/config/validate.js';
import type { HookdConfig } from '../../../src/config/schemas/schema.js';
import { parseEvent } from '../../../src/events/parse.js';
import { matchesPattern } from '../../../src/runner/matcher.js';
import { eventBudgetMs, planCommands } from '../../../src/runner/route.js';
import { fixture } from '../../helpers/fixtures.js';

function config(input: unknown): HookdConfig {
  const result = validateConfigObject(input, 'test.json');
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.config;
}

function event(path: string, extra: Record<string, unknown> = {}) {
  const parsed = parseEvent(JSON.stringify({ ...fixture(path), ...extra }), {});
  if (!parsed.ok) throw new Error(parsed.detail);
  return parsed.event;
}

const cmd = (command: string, more: Record<string, unknown> = {}) => ({ type: 'command', command, ...more });

describe('matcher semantics (as the agent)', () => {
  it.each([
    [undefined, 'Execute', true],
    ['', 'Execute', true],
    ['*', 'Execute', true],
    ['Execute', 'Execute', true],
    ['Edit|Create', 'Create', true],
    ['Edit|Create', 'Execute', false],
    ['mcp__.*', 'mcp__github__create_issue', true],
    ['Exec', 'Execute', true], // unanchored
    ['^Exec$', 'Execute', false],
    ['Execute', undefined, false],
  ])('matcher %j against %j -> %j', (pattern, value, expected) => {
    expect(matchesPattern(pattern, value)).toBe(expected);
  });
});

describe('planCommands', () => {
  it('routes by event name and tool matcher, in config order', () => {
    const c = config({
      hooks: {
        PreToolUse: [
          { matcher: 'Create', hooks: [cmd('on-create')] },
          { matcher: 'Execute', hooks: [cmd('on-execute-1'), cmd('on-execute-2')] },
          { hooks: [cmd('on-any')] },
        ],
        PostToolUse: [{ hooks: [cmd('post')] }],
      },
    });
    const plan = planCommands(event('jsonrpc/03-PreToolUse-Execute.json'), c);
    expect(plan.commands.map((p) => p.spec.command)).toEqual(['on-execute-1', 'on-execute-2', 'on-any']);
    expect(plan.skipped).toEqual([
      { entry: 0, reason: 'matcher "Create" does not match tool_name "Execute"' },
    ]);
  });

  it('skips an entry for the other agent; an event whose agent is unknown still runs it', () => {
    const c = config({
      hooks: {
        PreToolUse: [
          { agent: 'claude', hooks: [cmd('claude-only')] },
          { agent: 'droid', hooks: [cmd('droid-only')] },
          { hooks: [cmd('both')] },
        ],
      },
    });
    const droid = event('jsonrpc/03-PreToolUse-Execute.json');
    expect(droid.agent).toBe('droid');
    const plan = planCommands(droid, c);
    expect(plan.commands.map((p) => p.spec.command)).toEqual(['droid-only', 'both']);
    expect(plan.skipped).toEqual([{ entry: 0, reason: 'agent "claude" is not this event\'s (droid)' }]);
    const unknown = { ...droid, agent: 'unknown' as const };
    expect(planCommands(unknown, c).commands.map((p) => p.spec.command)).toEqual([
      'claude-only',
      'droid-only',
      'both',
    ]);
    expect(validateConfigObject({ hooks: { Stop: [{ agent: 'cursor', hooks: [] }] } }, 't').ok).toBe(false);
  });

  it('runs identical commands once and skips disabled ones', () => {
    const c = config({
      hooks: {
        Stop: [
          { hooks: [cmd('same'), cmd('off', { enabled: false })] },
          { hooks: [cmd('same', { timeout: 3 })] },
        ],
      },
    });
    const plan = planCommands(event('jsonrpc/16-Stop.json'), c);
    expect(plan.commands.map((p) => p.spec.command)).toEqual(['same']);
    expect(plan.commands[0]?.timeoutMs).toBe(30_000);
    expect(plan.disabled).toEqual(['off']);
  });

  it('matches SessionStart source, PreCompact trigger, Notification type and SessionEnd reason', () => {
    const c = config({
      hooks: {
        SessionStart: [
          { matcher: 'resume', hooks: [cmd('resumed')] },
          { source: 'startup', hooks: [cmd('started')] },
        ],
        PreCompact: [
          { matcher: 'manual', hooks: [cmd('manual-compact')] },
          { trigger: 'auto', hooks: [cmd('auto-compact')] },
        ],
        Notification: [
          { notification_type: 'idle_prompt', hooks: [cmd('idle')] },
          { matcher: 'permission_prompt', hooks: [cmd('perm')] },
        ],
        SessionEnd: [
          { reason: 'clear|logout', hooks: [cmd('cleared')] },
          { reason: 'other', hooks: [cmd('other')] },
        ],
      },
    });
    const names = (path: string) => planCommands(event(path), c).commands.map((p) => p.spec.command);
    expect(names('jsonrpc/17-SessionStart-resume.json')).toEqual(['resumed']);
    expect(names('jsonrpc/01-SessionStart-startup.json')).toEqual(['started']);
    expect(names('jsonrpc/18-PreCompact.json')).toEqual(['auto-compact']);
    expect(names('jsonrpc/04-Notification.json')).toEqual(['perm']);
    expect(names('jsonrpc/19-SessionEnd.json')).toEqual(['other']);
  });

  it('filters Execute calls by their shell command with commandRegex', () => {
    const c = config({
      hooks: { PreToolUse: [{ matcher: 'Execute', commandRegex: 'rm\\s+-rf', hooks: [cmd('guard')] }] },
    });
    expect(planCommands(event('jsonrpc/03-PreToolUse-Execute.json'), c).commands).toHaveLength(0);
    const dangerous = event('jsonrpc/03-PreToolUse-Execute.json', { tool_input: { command: 'rm -rf /' } });
    expect(planCommands(dangerous, c).commands).toHaveLength(1);
  });

  it('passes unknown events through to hooks configured for them', () => {
    const c = config({ hooks: { FutureEvent: [{ hooks: [cmd('future')] }] } });
    const parsed = parseEvent('{"hook_event_name":"FutureEvent","session_id":"s","new_field":{"x":1}}', {});
    if (!parsed.ok) throw new Error('parse');
    expect(planCommands(parsed.event, c).commands.map((p) => p.spec.command)).toEqual(['future']);
  });

  it('gives SessionStart a budget below the 10 s the agent waits', () => {
    const c = config({});
    expect(eventBudgetMs(event('jsonrpc/01-SessionStart-startup.json'), c)).toBe(9000);
    expect(eventBudgetMs(event('jsonrpc/16-Stop.json'), c)).toBe(55_000);
  });
});

import { describe, expect, it } from 'vitest';
import { CLAUDE_EVENTS } from '../../../src/events/names.js';
import { validateAgentHooks } from '../../../src/install/agent-hooks.js';

const cmd = { type: 'command', command: 'cat > /dev/null' };
const entry = (extra: Record<string, unknown> = {}, hook: Record<string, unknown> = cmd) => ({
  matcher: '',
  hooks: [hook],
  ...extra,
});

/**
 * Every shape probed against the real Droid CLI 0.225.2 (docs/install.md), with what Droid did:
 * "rejected" = `Invalid hooks in settings.json, ignoring` and no hook of the file ran.
 */
const DROID_PROBES: [string, unknown, 'accepted' | 'rejected'][] = [
  ['unknown key on an entry', { PreToolUse: [entry({ hookd: true })] }, 'accepted'],
  ['unknown key on a hook', { PreToolUse: [entry({}, { ...cmd, hookd: true })] }, 'accepted'],
  ['missing type', { PreToolUse: [entry({}, { command: 'x' })] }, 'rejected'],
  ['type "prompt"', { PreToolUse: [entry({}, { type: 'prompt', command: 'x' })] }, 'rejected'],
  ['timeout as a string', { PreToolUse: [entry({}, { ...cmd, timeout: '30' })] }, 'rejected'],
  ['negative timeout', { PreToolUse: [entry({}, { ...cmd, timeout: -5 })] }, 'accepted'],
  ['timeout 0', { PreToolUse: [entry({}, { ...cmd, timeout: 0 })] }, 'accepted'],
  ['float timeout', { PreToolUse: [entry({}, { ...cmd, timeout: 1.5 })] }, 'accepted'],
  ['huge timeout', { PreToolUse: [entry({}, { ...cmd, timeout: 100000 })] }, 'accepted'],
  ['empty command', { PreToolUse: [entry({}, { type: 'command', command: '' })] }, 'accepted'],
  ['missing command', { PreToolUse: [entry({}, { type: 'command' })] }, 'rejected'],
  ['command as a number', { PreToolUse: [entry({}, { type: 'command', command: 5 })] }, 'rejected'],
  ['matcher as a number', { PreToolUse: [entry({ matcher: 5 })] }, 'rejected'],
  ['matcher null', { PreToolUse: [entry({ matcher: null })] }, 'rejected'],
  ['matcher an invalid regex', { PreToolUse: [entry({ matcher: '(' })] }, 'accepted'],
  ['matcher absent', { PreToolUse: [{ hooks: [cmd] }] }, 'accepted'],
  ['commandRegex as a number', { PreToolUse: [entry({ commandRegex: 5 })] }, 'rejected'],
  ['hooks an object', { PreToolUse: [{ matcher: '', hooks: cmd }] }, 'rejected'],
  ['hooks empty', { PreToolUse: [{ matcher: '', hooks: [] }] }, 'accepted'],
  ['entry null', { PreToolUse: [null] }, 'rejected'],
  ['unknown event name', { FooBar: [entry()] }, 'accepted'],
  ['unknown key with a scalar value', { hookdVersion: 1 }, 'accepted'],
  ['event value an object', { PreToolUse: entry() }, 'rejected'],
  ['event value null', { PreToolUse: null }, 'rejected'],
  ['event value empty', { PreToolUse: [] }, 'accepted'],
];

describe('validateAgentHooks (droid)', () => {
  it.each(DROID_PROBES)('%s: %s by droid 0.225.2', (_name, hooks, verdict) => {
    const report = validateAgentHooks(hooks, 'droid');
    expect(report.ok).toBe(verdict === 'accepted');
    if (verdict === 'rejected') expect(report.problems.some((p) => p.severity === 'error')).toBe(true);
  });

  it('names the broken entry with its path, the value and a fix', () => {
    const report = validateAgentHooks(
      { Stop: [entry()], PreToolUse: [entry(), entry({}, { ...cmd, timeout: '30' })] },
      'droid',
    );
    expect(report.problems).toEqual([
      {
        severity: 'error',
        path: 'hooks.PreToolUse[1].hooks[0].timeout',
        message: 'timeout must be a number of seconds, not a string',
        fix: 'use a number such as 60',
        value: '30',
      },
    ]);
  });

  it('warns about shapes droid accepts but never runs as meant', () => {
    const report = validateAgentHooks(
      {
        PreToolUse: [
          entry({ matcher: '(' }),
          entry({}, { ...cmd, timeout: -1 }),
          entry({}, { ...cmd, command: ' ' }),
        ],
        Nope: [entry()],
      },
      'droid',
    );
    expect(report.ok).toBe(true);
    expect(report.problems.map((p) => [p.severity, p.path])).toEqual([
      ['warning', 'hooks.PreToolUse[0].matcher'],
      ['warning', 'hooks.PreToolUse[1].hooks[0].timeout'],
      ['warning', 'hooks.PreToolUse[2].hooks[0].command'],
      ['warning', 'hooks.Nope'],
    ]);
  });

  it('a hooks.json wrapped one level too deep: one warning that says to unwrap it', () => {
    const report = validateAgentHooks({ hooks: { Stop: [entry()] } }, 'droid');
    expect(report.ok).toBe(true);
    expect(report.problems).toEqual([
      {
        severity: 'warning',
        path: 'hooks.hooks',
        message: '"hooks" is not an event but holds events (Stop): Droid runs none of their entries',
        fix: 'move those events up one level, out of "hooks"',
      },
    ]);
  });

  it('rejects a hooks value that is not an object, and accepts a missing one', () => {
    expect(validateAgentHooks([], 'droid').ok).toBe(false);
    expect(validateAgentHooks('x', 'droid').problems[0]?.path).toBe('hooks');
    expect(validateAgentHooks(undefined, 'droid')).toEqual({ ok: true, problems: [] });
    expect(validateAgentHooks({}, 'droid')).toEqual({ ok: true, problems: [] });
  });
});

describe('validateAgentHooks (claude)', () => {
  // Claude Code 2.1.330 (spec: hook-protocol-claude.md, [invalid-entry] [invalid-entry-stop]
  // [invalid-type] [invalid-event] [invalid-timeout]): a bad PreToolUse or PermissionRequest entry
  // disables the whole settings file; a bad entry of another event is skipped alone; an unknown event's
  // key is ignored.
  it.each(['PreToolUse', 'PermissionRequest'])(
    'a bad %s entry is an error: Claude Code skips the whole file',
    (event) => {
      for (const bad of [{ type: 'command' }, { ...cmd, timeout: 'soon' }, { ...cmd, type: 'bogus' }]) {
        const report = validateAgentHooks({ [event]: [entry({}, bad)], Stop: [entry()] }, 'claude');
        expect(report.ok).toBe(false);
        expect(report.problems[0]).toMatchObject({ severity: 'error', path: expect.stringContaining(event) });
      }
    },
  );

  it.each(['Stop', 'PostToolUse', 'SessionEnd', 'StopFailure', 'Notification'])(
    'a bad %s entry is a warning: Claude Code skips that entry alone and says so in its debug log',
    (event) => {
      const report = validateAgentHooks(
        { [event]: [entry({}, { type: 'command' })], PreToolUse: [entry()] },
        'claude',
      );
      expect(report.ok).toBe(true);
      expect(report.problems).toHaveLength(1);
      expect(report.problems[0]).toMatchObject({
        severity: 'warning',
        path: `hooks.${event}[0].hooks[0].command`,
      });
      expect(report.problems[0]!.message).toContain('Invalid setting skipped');
    },
  );

  it('an unknown event is a warning whatever its value; every one of the 33 events is known', () => {
    const report = validateAgentHooks(
      { FooBar: [entry({}, { type: 'command' })], hookdVersion: 1 },
      'claude',
    );
    expect(report.ok).toBe(true);
    expect(report.problems.every((p) => p.severity === 'warning')).toBe(true);
    const all = Object.fromEntries(CLAUDE_EVENTS.map((e) => [e, [entry()]]));
    expect(validateAgentHooks(all, 'claude')).toEqual({ ok: true, problems: [] });
  });

  it('accepts the hook types Claude Code documents, with their own fields', () => {
    const hooks = {
      Stop: [{ hooks: [{ type: 'prompt', prompt: 'Is the task done?' }] }],
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'http', url: 'http://127.0.0.1:9/hook' }, cmd] }],
      SubagentStop: [{ hooks: [{ type: 'agent', prompt: 'check' }] }],
      PostToolUse: [{ hooks: [{ type: 'mcp_tool', server: 'audit', tool: 'record' }] }],
    };
    expect(validateAgentHooks(hooks, 'claude')).toEqual({ ok: true, problems: [] });
    expect(
      validateAgentHooks({ PreToolUse: [{ hooks: [{ type: 'prompt' }] }] }, 'claude').problems[0],
    ).toMatchObject({
      severity: 'error',
      path: 'hooks.PreToolUse[0].hooks[0].prompt',
    });
    expect(validateAgentHooks(hooks, 'droid').ok).toBe(false);
  });
});

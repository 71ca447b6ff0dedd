import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/schemas/schema.js';
import type { Agent } from '../../../src/install/agents.js';
import { eventsToWire } from '../../../src/install/wiring.js';

// The one computation of "wire only what is used": a table of configs => the events (and tool matchers)
// the agent must send hookd.

const cmd = (command = 'true', extra: Record<string, unknown> = {}) => ({
  type: 'command',
  command,
  ...extra,
});
const quiet = { notify: { defaults: false }, ledger: { enabled: false } };

interface Row {
  name: string;
  config: Record<string, unknown>;
  agent?: Agent;
  /** event => matcher ('' for every call) */
  wired: Record<string, string>;
}

const ROWS: Row[] = [
  {
    name: 'nothing configured, no default rules, no ledger: nothing',
    config: quiet,
    wired: {},
  },
  {
    name: 'Droid defaults (built-in rules, waiting delay, ledger)',
    config: {},
    wired: {
      SessionStart: '',
      UserPromptSubmit: '',
      PostToolUse: '',
      Notification: '',
      Stop: '',
      SubagentStop: '',
      SessionEnd: '',
    },
  },
  {
    name: 'Claude Code defaults: PermissionRequest, StopFailure and the cancelling events it fires too',
    agent: 'claude',
    config: {},
    wired: {
      PostToolUse: '',
      PostToolUseFailure: '',
      Notification: '',
      UserPromptSubmit: '',
      SessionStart: '',
      SessionEnd: '',
      Stop: '',
      StopFailure: '',
      SubagentStop: '',
      PermissionRequest: '',
      PermissionDenied: '',
      ElicitationResult: '',
    },
  },
  {
    name: 'waiting delay 0: the cancelling events are not needed',
    config: { notify: { waitingDelayMs: 0 }, ledger: { enabled: false } },
    wired: { Notification: '', Stop: '' },
  },
  {
    name: 'a rule on Stop only: no waiting rule, nothing to cancel',
    config: { notify: { rules: [{ on: 'Stop', channels: ['desktop'] }] }, ledger: { enabled: false } },
    wired: { Stop: '' },
  },
  {
    name: 'a disabled rule wires nothing; notify.enabled false neither',
    config: {
      notify: { enabled: true, rules: [{ on: 'Stop', channels: ['desktop'], enabled: false }] },
      ledger: { enabled: false },
    },
    wired: {},
  },
  {
    name: 'a rule on * wires every event the agent fires',
    config: {
      notify: { rules: [{ on: '*', channels: ['desktop'] }], waitingDelayMs: 0 },
      ledger: { enabled: false },
    },
    wired: {
      SessionStart: '',
      UserPromptSubmit: '',
      PreToolUse: '',
      PostToolUse: '',
      Notification: '',
      Stop: '',
      SubagentStop: '',
      PreCompact: '',
      SessionEnd: '',
    },
  },
  {
    name: 'the ledger alone (Droid counts prompts from UserPromptSubmit; tool calls come from the transcript)',
    config: { notify: { defaults: false } },
    wired: { SessionStart: '', UserPromptSubmit: '', SubagentStop: '', SessionEnd: '' },
  },
  {
    name: 'the ledger alone under Claude Code (prompts from the transcript too)',
    agent: 'claude',
    config: { notify: { defaults: false } },
    wired: { SessionStart: '', SessionEnd: '', SubagentStop: '' },
  },
  {
    name: 'tool-matched guards only: PreToolUse with the joined matcher',
    config: {
      ...quiet,
      hooks: {
        PreToolUse: [
          { matcher: 'Execute|Bash', hooks: [cmd('guard')] },
          { matcher: 'Edit', hooks: [cmd('lint')] },
          { matcher: 'Bash', commandRegex: 'rm', hooks: [cmd('no-rm')] },
        ],
      },
    },
    wired: { PreToolUse: 'Execute|Bash|Edit' },
  },
  {
    name: 'one entry without matcher: every call',
    config: {
      ...quiet,
      hooks: { PostToolUse: [{ matcher: 'Edit', hooks: [cmd()] }, { hooks: [cmd()] }] },
    },
    wired: { PostToolUse: '' },
  },
  {
    name: 'a regex matcher, or a `tool` matcher hookd applies itself: every call',
    config: {
      ...quiet,
      hooks: {
        PreToolUse: [{ matcher: 'mcp__.*', hooks: [cmd()] }],
        PostToolUse: [{ matcher: 'Edit', tool: 'Edit', hooks: [cmd()] }],
      },
    },
    wired: { PreToolUse: '', PostToolUse: '' },
  },
  {
    name: 'a tool event needed by a rule too: every call',
    config: {
      notify: { rules: [{ on: 'PostToolUse', channels: ['desktop'] }] },
      ledger: { enabled: false },
      hooks: { PostToolUse: [{ matcher: 'Edit', hooks: [cmd()] }] },
    },
    wired: { PostToolUse: '' },
  },
  {
    name: 'disabled commands wire nothing; events Droid does not fire are left out',
    config: {
      ...quiet,
      hooks: {
        Stop: [{ hooks: [cmd('x', { enabled: false })] }],
        PermissionRequest: [{ hooks: [cmd()] }],
      },
    },
    wired: {},
  },
  {
    name: 'an entry for the other agent wires nothing; one for this agent does',
    config: {
      ...quiet,
      hooks: {
        Stop: [{ agent: 'claude', hooks: [cmd()] }],
        PreToolUse: [{ agent: 'droid', matcher: 'Execute', hooks: [cmd()] }],
      },
    },
    wired: { PreToolUse: 'Execute' },
  },
  {
    name: 'a matcher on a non-tool event is not narrowed',
    config: { ...quiet, hooks: { SessionStart: [{ matcher: 'startup', hooks: [cmd()] }] } },
    wired: { SessionStart: '' },
  },
];

describe('eventsToWire', () => {
  for (const row of ROWS) {
    it(row.name, () => {
      const config = configSchema.parse(row.config);
      const wired = eventsToWire(config, row.agent ?? 'droid');
      expect(Object.fromEntries(wired.map((w) => [w.event, w.matcher]))).toEqual(row.wired);
    });
  }

  it('says why each event is wired and whether commands run for it (http needs none)', () => {
    const config = configSchema.parse({ hooks: { Stop: [{ hooks: [cmd()] }] } });
    const byEvent = Object.fromEntries(eventsToWire(config, 'claude').map((w) => [w.event, w]));
    expect(byEvent.Stop).toMatchObject({ reasons: ['hooks', 'rules'], commands: true });
    expect(byEvent.SessionEnd).toMatchObject({ reasons: ['ledger'], commands: false });
    expect(byEvent.PostToolUse).toMatchObject({ reasons: ['waiting'], commands: false });
  });

  it("keeps the agent's event order", () => {
    const config = configSchema.parse({});
    expect(eventsToWire(config, 'droid').map((w) => w.event)).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'PostToolUse',
      'Notification',
      'Stop',
      'SubagentStop',
      'SessionEnd',
    ]);
  });
});

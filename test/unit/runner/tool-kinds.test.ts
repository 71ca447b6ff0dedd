import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_IDS, type AgentId } from '../../../src/agents/ids.js';
import { TOOL_TABLES } from '../../../src/agents/tool-kinds.js';
import { TOOL_KINDS, type ToolKind } from '../../../src/agents/types.js';
import type { HookdConfig } from '../../../src/config/schemas/schema.js';
import { validateConfigObject } from '../../../src/config/validate.js';
import { parseEvent } from '../../../src/events/parse.js';
import type { AgentKind } from '../../../src/events/types.js';
import { planCommands } from '../../../src/runner/route.js';
import { REPO_DIR } from '../../helpers/fixtures.js';

// Hook entries that match canonical tool kinds (`kinds`) and name their agents (`agents`), read against
// the payloads each real agent sent (test/fixtures/).

const FIXTURES = join(REPO_DIR, 'test', 'fixtures');
const recorded = (path: string) =>
  JSON.parse(readFileSync(join(FIXTURES, path), 'utf8')) as Record<string, unknown>;

/** Every recorded tool call before it runs, per agent, with the kind it is. */
const RECORDED_CALLS: Record<AgentId, [file: string, kind: ToolKind][]> = {
  droid: [
    ['droid-0.225.2/jsonrpc/03-PreToolUse-Execute.json', 'shell'],
    ['droid-0.225.2/jsonrpc/06-PreToolUse-Create.json', 'write'],
    ['droid-0.225.2/jsonrpc/09-PreToolUse-Task.json', 'task'],
  ],
  claude: [
    ['claude-code-2.1.330/tui/03-PreToolUse-Bash.json', 'shell'],
    ['claude-code-2.1.330/tui/06-PreToolUse-Write.json', 'write'],
    ['claude-code-2.1.330/extras/24-PreToolUse-Agent.json', 'task'],
  ],
  codex: [['codex-0.171.0/03-PreToolUse-Bash.json', 'shell']],
  gemini: [['gemini-cli-0.61.0/07-BeforeTool-run_shell_command.json', 'shell']],
  copilot: [
    ['copilot-1.0.102/claude-dialect/03-PreToolUse-Bash.json', 'shell'],
    ['copilot-1.0.102/tools/01-PreToolUse-Read.json', 'read'],
    ['copilot-1.0.102/tools/03-PreToolUse-Glob.json', 'read'],
    ['copilot-1.0.102/tools/05-PreToolUse-Grep.json', 'read'],
    ['copilot-1.0.102/tools/07-PreToolUse-Write.json', 'write'],
    ['copilot-1.0.102/tools/09-PreToolUse-Edit.json', 'edit'],
  ],
};

function config(input: unknown): HookdConfig {
  const result = validateConfigObject(input, 'test.json');
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.config;
}

function eventOf(payload: Record<string, unknown>, agent?: AgentId) {
  const parsed = parseEvent(JSON.stringify(payload), {}, undefined, agent);
  if (!parsed.ok) throw new Error(parsed.detail);
  return parsed.event;
}

const cmd = (command: string) => ({ type: 'command', command });

/** One guard per kind, in TOOL_KINDS order: `guard-<kind>` runs for a call of that kind only. */
const perKind = config({
  hooks: { PreToolUse: TOOL_KINDS.map((kind) => ({ kinds: [kind], hooks: [cmd(`guard-${kind}`)] })) },
});

const ran = (event: ReturnType<typeof eventOf>, c: HookdConfig = perKind) =>
  planCommands(event, c).commands.map((p) => p.spec.command);

/** An MCP tool's name in the agent's words. */
const mcpName = (agent: AgentId) => `${TOOL_TABLES[agent].mcpToolPrefix}github__create_issue`;

describe('hook entries matching canonical tool kinds', () => {
  it.each(AGENT_IDS.flatMap((agent) => RECORDED_CALLS[agent].map(([file, kind]) => [agent, file, kind])))(
    '%s: the recorded %s is a %s call',
    (agent, file, kind) => {
      const event = eventOf(recorded(file), agent as AgentId);
      expect(event.name).toBe('PreToolUse');
      expect(ran(event)).toEqual([`guard-${kind}`]);
      expect(planCommands(event, perKind).commands[0]?.kind).toBe(kind);
    },
  );

  // The kinds of tools no recorded session called: the agent's recorded call, with the tool's name.
  const firstCall = (agent: AgentId) => recorded(RECORDED_CALLS[agent][0]![0]);
  it.each(
    AGENT_IDS.flatMap((agent) =>
      TOOL_KINDS.flatMap((kind) => {
        const names = Object.entries(TOOL_TABLES[agent].tools)
          .filter(([, k]) => k === kind)
          .map(([name]) => name);
        return (kind === 'mcp' ? [mcpName(agent)] : names).map((name) => [agent, kind, name]);
      }),
    ),
  )('%s: a %s guard runs for %s and no other guard does', (agent, kind, name) => {
    const event = eventOf({ ...firstCall(agent as AgentId), tool_name: name }, agent as AgentId);
    expect(ran(event)).toEqual([`guard-${kind}`]);
  });

  it('every agent has a shell tool, and every kind is some tool of some agent', () => {
    for (const agent of AGENT_IDS) expect(Object.values(TOOL_TABLES[agent].tools), agent).toContain('shell');
    const known = new Set(AGENT_IDS.flatMap((a) => Object.values(TOOL_TABLES[a].tools)));
    expect(TOOL_KINDS.filter((kind) => kind !== 'mcp' && !known.has(kind))).toEqual([]);
  });

  it("one shell guard runs for every agent's shell call, and for nothing else", () => {
    const c = config({ hooks: { PreToolUse: [{ kinds: ['shell'], hooks: [cmd('no-rm')] }] } });
    for (const agent of AGENT_IDS) {
      const [file] = RECORDED_CALLS[agent][0]!;
      expect(ran(eventOf(recorded(file), agent), c), agent).toEqual(['no-rm']);
    }
    // Another agent's shell tool is not this agent's: Claude Code has no Execute tool.
    const claudeExecute = eventOf(
      { ...recorded(RECORDED_CALLS.claude[0]![0]), tool_name: 'Execute' },
      'claude',
    );
    expect(planCommands(claudeExecute, c).skipped).toEqual([
      {
        entry: 0,
        reason: 'kinds ["shell"] do not match tool_name "Execute" (no known kind for claude)',
      },
    ]);
  });

  it("says which kind the tool is when it is not the entry's", () => {
    const c = config({ hooks: { PreToolUse: [{ kinds: ['shell', 'fetch'], hooks: [cmd('g')] }] } });
    const [file] = RECORDED_CALLS.droid[1]!;
    expect(planCommands(eventOf(recorded(file), 'droid'), c).skipped).toEqual([
      {
        entry: 0,
        reason: 'kinds ["shell","fetch"] do not match tool_name "Create" (kind write for droid)',
      },
    ]);
  });

  it('an event whose agent hookd cannot tell matches a kind by any agent’s tool names', () => {
    const c = config({ hooks: { PreToolUse: [{ kinds: ['shell'], hooks: [cmd('no-rm')] }] } });
    for (const name of ['Execute', 'Bash', 'run_shell_command']) {
      const event = {
        ...eventOf({ hook_event_name: 'PreToolUse', tool_name: name }),
        agent: 'unknown' as AgentKind,
      };
      expect(ran(event, c), name).toEqual(['no-rm']);
    }
    const edit = {
      ...eventOf({ hook_event_name: 'PreToolUse', tool_name: 'Edit' }),
      agent: 'unknown' as AgentKind,
    };
    expect(ran(edit, c)).toEqual([]);
  });

  it('an event without a tool does not run an entry with kinds; the other fields still apply', () => {
    const c = config({
      hooks: {
        Stop: [{ kinds: ['shell'], hooks: [cmd('never')] }],
        PreToolUse: [{ kinds: ['shell'], commandRegex: 'rm -rf', hooks: [cmd('no-rm')] }],
      },
    });
    expect(ran(eventOf(recorded('codex-0.171.0/05-Stop.json'), 'codex'), c)).toEqual([]);
    const bash = recorded('codex-0.171.0/03-PreToolUse-Bash.json');
    expect(ran(eventOf(bash, 'codex'), c)).toEqual([]);
    const rm = { ...bash, tool_input: { command: 'rm -rf /' } };
    expect(ran(eventOf(rm, 'codex'), c)).toEqual(['no-rm']);
    // A patch that mentions the same text is an edit, not a shell command.
    expect(ran(eventOf({ ...rm, tool_name: 'apply_patch' }, 'codex'), c)).toEqual([]);
  });

  it('a tool name that is an inherited property of an object is no tool', () => {
    const event = eventOf({ ...recorded(RECORDED_CALLS.codex[0]![0]), tool_name: 'toString' }, 'codex');
    expect(ran(event)).toEqual([]);
  });
});

describe('hook entries naming their agents', () => {
  const c = config({
    hooks: {
      PreToolUse: [
        { agents: ['codex', 'gemini'], kinds: ['shell'], hooks: [cmd('codex-or-gemini')] },
        { agents: ['droid'], hooks: [cmd('droid-only')] },
      ],
    },
  });

  it.each([
    ['droid', ['droid-only']],
    ['claude', []],
    ['codex', ['codex-or-gemini']],
    ['gemini', ['codex-or-gemini']],
  ] as const)('%s runs %j', (agent, expected) => {
    const [file] = RECORDED_CALLS[agent][0]!;
    expect(ran(eventOf(recorded(file), agent), c)).toEqual(expected);
  });

  it('says why an entry for other agents is skipped', () => {
    const [file] = RECORDED_CALLS.claude[0]!;
    expect(planCommands(eventOf(recorded(file), 'claude'), c).skipped).toEqual([
      { entry: 0, reason: 'agents ["codex","gemini"] do not include this event\'s (claude)' },
      { entry: 1, reason: 'agents ["droid"] do not include this event\'s (claude)' },
    ]);
  });

  it('an event whose agent hookd cannot tell still runs them (a guard never goes missing)', () => {
    const event = {
      ...eventOf({ hook_event_name: 'PreToolUse', tool_name: 'Bash' }),
      agent: 'unknown' as AgentKind,
    };
    expect(ran(event, c)).toEqual(['codex-or-gemini', 'droid-only']);
  });
});

describe('validating kinds and agents', () => {
  const issues = (entry: Record<string, unknown>) => {
    const result = validateConfigObject(
      { hooks: { PreToolUse: [{ ...entry, hooks: [cmd('g')] }] } },
      'c.json',
    );
    return result.ok ? [] : result.issues.map((i) => `${i.path}: ${i.message}`);
  };

  it('refuses an unknown kind, naming the kinds', () => {
    expect(issues({ kinds: ['shell', 'bash'] })).toEqual([
      'hooks.PreToolUse[0].kinds[1]: unknown tool kind "bash": the tool kinds are shell, edit, write, read, fetch, task, mcp',
    ]);
  });

  it('refuses an unknown agent, naming the agents', () => {
    expect(issues({ agents: ['codex', 'cursor'] })).toEqual([
      'hooks.PreToolUse[0].agents[1]: unknown agent "cursor": the agents are droid, claude, codex, gemini, copilot',
    ]);
  });

  it('refuses an empty list, and agent with agents', () => {
    expect(issues({ kinds: [] })).toHaveLength(1);
    expect(issues({ agents: [] })).toHaveLength(1);
    expect(issues({ agent: 'codex', agents: ['gemini'] })).toEqual([
      'hooks.PreToolUse[0].agents: use "agents" (a list) or "agent", not both',
    ]);
  });
});

describe('the table of kinds in the docs', () => {
  /** The kinds table of a page: per kind, each agent's names (columns in AGENT_IDS order). */
  function tableOf(page: string): Record<string, string[][]> {
    const rows = readFileSync(join(REPO_DIR, 'docs', page), 'utf8')
      .split('\n')
      .filter((line) => TOOL_KINDS.some((kind) => line.startsWith(`| \`${kind}\` `)));
    return Object.fromEntries(
      rows.map((row) => {
        const [kind, ...agents] = row.split('|').slice(1, -1);
        const names = (cell: string) => [...cell.matchAll(/`([^`<]+)`/g)].map((m) => m[1]!);
        return [names(kind!)[0]!, agents.map(names)];
      }),
    );
  }

  it.each(['configuration.md', 'agents/README.md'])("%s lists every agent's tools by kind", (page) => {
    const table = tableOf(page);
    expect(Object.keys(table)).toEqual([...TOOL_KINDS]);
    for (const kind of TOOL_KINDS.filter((k) => k !== 'mcp'))
      AGENT_IDS.forEach((agent, column) => {
        const names = Object.entries(TOOL_TABLES[agent].tools)
          .filter(([, k]) => k === kind)
          .map(([name]) => name);
        expect(table[kind]![column]!.sort(), `${page}: ${agent} ${kind}`).toEqual(names.sort());
      });
  });
});

import { describe, expect, it } from 'vitest';
import { AGENT_IDS, isAgentId } from '../../../src/agents/ids.js';
import { PROTOCOLS } from '../../../src/agents/protocols.js';
import { ADAPTERS, allAdapters, toolKindOf, toolNamesOf } from '../../../src/agents/adapters/registry.js';
import { CANONICAL_EVENTS, TOOL_KINDS } from '../../../src/agents/types.js';

const HOME = '/home/ada';
const PROJECT = '/work/repo';
const where = { home: HOME, project: PROJECT, env: {}, platform: 'linux' as const };

describe('the agent registry', () => {
  it('has one adapter per id, whose hook-path protocol is the same data', () => {
    expect(allAdapters().map((a) => a.id)).toEqual([...AGENT_IDS]);
    for (const id of AGENT_IDS) {
      const adapter = ADAPTERS[id];
      const protocol = PROTOCOLS[id];
      expect(adapter.id).toBe(id);
      for (const key of Object.keys(protocol) as (keyof typeof protocol)[])
        expect(adapter[key], `${id}.${key}`).toBe(protocol[key]);
    }
    expect(isAgentId('droid')).toBe(true);
    expect(isAgentId('unknown')).toBe(false);
    expect(isAgentId('constructor')).toBe(false);
  });

  it('maps only events the agent fires, onto canonical events', () => {
    for (const adapter of allAdapters()) {
      for (const [name, canonical] of Object.entries(adapter.canonicalEvents)) {
        expect(adapter.events, `${adapter.id} ${name}`).toContain(name);
        expect(CANONICAL_EVENTS).toContain(canonical);
      }
      for (const event of adapter.install.defaultEvents) expect(adapter.events).toContain(event);
      for (const event of Object.keys(adapter.matcher.fieldByEvent)) expect(typeof event).toBe('string');
    }
  });

  it('gives every tool a canonical kind, and every kind but mcp a shell-like name per agent', () => {
    // Codex CLI, Gemini CLI and Copilot CLI list the tools seen reaching their hooks: Codex its shell
    // only, Gemini no sub-agent tool, Copilot its shell and its read tools.
    const partial = ['codex', 'gemini', 'copilot'];
    for (const adapter of allAdapters())
      for (const kind of TOOL_KINDS.filter((k) => k !== 'mcp'))
        if (!partial.includes(adapter.id) || kind === 'shell')
          expect(toolNamesOf(adapter.id, kind).length, `${adapter.id} ${kind}`).toBeGreaterThan(0);
    expect(toolKindOf('codex', 'Bash')).toBe('shell');
    expect(toolKindOf('gemini', 'run_shell_command')).toBe('shell');
    expect(toolKindOf('copilot', 'Bash')).toBe('shell');
    expect(toolKindOf('droid', 'Execute')).toBe('shell');
    expect(toolKindOf('claude', 'Bash')).toBe('shell');
    expect(toolKindOf('claude', 'Execute')).toBeUndefined();
    expect(toolKindOf('droid', 'mcp__github__create_issue')).toBe('mcp');
    expect(toolKindOf('droid', 'toString')).toBeUndefined();
  });

  it("lists Droid's settings and hooks.json per level, user first", () => {
    expect(ADAPTERS.droid.settings.files(where)).toEqual([
      { layer: 'user', kind: 'settings', file: `${HOME}/.factory/settings.json` },
      { layer: 'user', kind: 'hooks-json', file: `${HOME}/.factory/hooks.json` },
      { layer: 'project', kind: 'settings', file: `${PROJECT}/.factory/settings.json` },
      { layer: 'project', kind: 'hooks-json', file: `${PROJECT}/.factory/hooks.json` },
    ]);
    expect(ADAPTERS.droid.settings.files({ ...where, project: HOME })).toHaveLength(2);
  });

  it("lists Claude Code's user, project, local and managed settings, in precedence order", () => {
    const files = ADAPTERS.claude.settings.files({ ...where, managedDropIns: ['/etc/claude-code/d/a.json'] });
    expect(files.map((f) => [f.layer, f.file])).toEqual([
      ['user', `${HOME}/.claude/settings.json`],
      ['project', `${PROJECT}/.claude/settings.json`],
      ['local', `${PROJECT}/.claude/settings.local.json`],
      ['managed', '/etc/claude-code/managed-settings.json'],
      ['managed', '/etc/claude-code/d/a.json'],
    ]);
    expect(ADAPTERS.claude.settings.files({ ...where, platform: 'darwin' }).at(-1)?.file).toBe(
      '/Library/Application Support/ClaudeCode/managed-settings.json',
    );
  });

  it('knows its transcripts', () => {
    expect(ADAPTERS.claude.sessions.ownsTranscript(`${HOME}/.claude/projects/-x/s.jsonl`)).toBe(true);
    expect(ADAPTERS.droid.sessions.ownsTranscript(`${HOME}/.factory/sessions/-x/s.jsonl`)).toBe(true);
    expect(ADAPTERS.claude.sessions.slug('/a/b.c')).toBe('-a-b-c');
    expect(ADAPTERS.droid.sessions.slug('/a/b.c')).toBe('-a-b.c');
    expect(ADAPTERS.droid.sessions.root({ FACTORY_HOME: '/f' }, HOME)).toBe('/f');
    expect(ADAPTERS.claude.sessions.root({}, HOME)).toBe(`${HOME}/.claude`);
  });
});

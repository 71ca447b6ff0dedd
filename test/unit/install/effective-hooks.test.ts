import { describe, expect, it } from 'vitest';
import type { AgentHooksFile, Layer } from '../../../src/install/agent-files.js';
import type { Agent } from '../../../src/install/agents.js';
import {
  hooksAt,
  hooksObjectOf,
  hooksSwitches,
  namedEvents,
  validateHooksObject,
  type HooksFileRead,
} from '../../../src/install/effective-hooks.js';
import { doubleWirings, hookdLayers, uninstallCommandFor } from '../../../src/install/hookd-layers.js';
import { removeHookdEntries } from '../../../src/install/merge-hooks.js';

// Droid 0.225.2's merge of a folder's settings.json and hooks.json ({...settingsJson, ...hooksJson},
// per event), the switches that turn hooks off, and hookd wired twice: as tables of files.

const HOOKD = (agent = 'droid') => `/usr/bin/node /opt/hookd/dist/hookd.cjs hook --agent ${agent}`;
const entry = (command: string) => ({ matcher: '', hooks: [{ type: 'command', command }] });

function file(
  agent: Agent,
  layer: Layer,
  kind: AgentHooksFile['kind'],
  data: Record<string, unknown>,
): HooksFileRead {
  const name = kind === 'hooks-json' ? 'hooks.json' : 'settings.json';
  const hooks = hooksObjectOf(kind, data);
  return {
    agent,
    layer,
    kind,
    file: `/${layer}/.${agent === 'droid' ? 'factory' : 'claude'}/${name}`,
    exists: true,
    data,
    hooks,
    report: validateHooksObject(kind, hooks, agent),
  };
}

describe('a Droid folder: hooks.json over settings.json, event by event', () => {
  it('an event hooks.json names (an empty list too) shadows settings.json; the others run', () => {
    const settings = file('droid', 'user', 'settings', {
      hooks: { PreToolUse: [entry('a')], Stop: [entry('b')], SessionEnd: [entry('c')] },
    });
    const json = file('droid', 'user', 'hooks-json', {
      PreToolUse: [entry('d')],
      Stop: [],
      hooksDisabled: false,
    });
    expect([...namedEvents(json)].sort()).toEqual(['PreToolUse', 'Stop']);
    const at = hooksAt([settings, json]);
    expect(at.map((h) => `${h.path} ${h.shadowedBy ?? 'runs'}`)).toEqual([
      `hooks.PreToolUse[0].hooks[0] ${json.file}`,
      `hooks.Stop[0].hooks[0] ${json.file}`,
      'hooks.SessionEnd[0].hooks[0] runs',
      'PreToolUse[0].hooks[0] runs',
    ]);
  });

  it('a hooks.json Droid rejects, or in the settings.json layout, names nothing', () => {
    const rejected = file('droid', 'user', 'hooks-json', { Stop: [{ hooks: [{ type: 'command' }] }] });
    expect(rejected.report!.ok).toBe(false);
    expect(namedEvents(rejected).size).toBe(0);
    const wrapped = file('droid', 'user', 'hooks-json', { hooks: { Stop: [entry('x')] } });
    expect(wrapped.report!.ok).toBe(true);
    expect(namedEvents(wrapped).size).toBe(0);
    // A switch that is not a boolean makes Droid reject the hooks object.
    expect(validateHooksObject('settings', { hooksDisabled: 'yes' }, 'droid').ok).toBe(false);
    expect(validateHooksObject('settings', { hooksDisabled: true, showHookOutput: false }, 'droid')).toEqual({
      ok: true,
      problems: [],
    });
  });

  it('the other folder is not shadowed: user and project add up', () => {
    const project = file('droid', 'project', 'settings', { hooks: { Stop: [entry('p')] } });
    const userJson = file('droid', 'user', 'hooks-json', { Stop: [entry('u')] });
    expect(hooksAt([userJson, project]).every((h) => !h.shadowedBy)).toBe(true);
  });
});

describe('switches', () => {
  it("Droid: hooksDisabled inside a hooks object; the project's over the user's, hooks.json over settings.json", () => {
    const userOff = file('droid', 'user', 'settings', { hooks: { hooksDisabled: true } });
    expect(hooksSwitches('droid', [userOff]).map((s) => s.file)).toEqual([userOff.file]);
    const projectOn = file('droid', 'project', 'hooks-json', { hooksDisabled: false });
    expect(hooksSwitches('droid', [userOff, projectOn])).toEqual([]);
    const beside = file('droid', 'user', 'settings', { hooksDisabled: true, hooks: {} });
    expect(hooksSwitches('droid', [beside])).toEqual([]);
  });

  it('Claude Code: disableAllHooks from the highest layer that sets it; managed allowManagedHooksOnly', () => {
    const user = file('claude', 'user', 'settings', { disableAllHooks: true });
    const local = file('claude', 'local', 'settings', { disableAllHooks: false });
    expect(hooksSwitches('claude', [user, local])).toEqual([]);
    expect(hooksSwitches('claude', [user]).map((s) => s.key)).toEqual(['disableAllHooks']);
    const managed = file('claude', 'managed', 'settings', { allowManagedHooksOnly: true });
    expect(hooksSwitches('claude', [managed])).toEqual([
      {
        key: 'allowManagedHooksOnly',
        file: managed.file,
        layer: 'managed',
        off: ['user', 'project', 'local'],
      },
    ]);
    // Only managed settings can restrict hooks to managed ones.
    expect(
      hooksSwitches('claude', [file('claude', 'user', 'settings', { allowManagedHooksOnly: true })]),
    ).toEqual([]);
  });
});

describe('hookd wired twice', () => {
  it('two hookd hooks Droid runs for one event, identical ones too; shadowed ones do not count', () => {
    const user = file('droid', 'user', 'settings', {
      hooks: { Stop: [entry(HOOKD())], SessionEnd: [entry(HOOKD())] },
    });
    const project = file('droid', 'project', 'settings', {
      hooks: { Stop: [entry('hookd hook --agent droid')], SessionEnd: [entry(HOOKD())] },
    });
    expect(doubleWirings('droid', [user, project]).map((d) => d.event)).toEqual(['Stop', 'SessionEnd']);
    const shadow = file('droid', 'project', 'hooks-json', { Stop: [], SessionEnd: [] });
    expect(doubleWirings('droid', [user, project, shadow])).toEqual([]);
    // Claude Code runs an identical command once.
    const claudeUser = file('claude', 'user', 'settings', { hooks: { Stop: [entry(HOOKD('claude'))] } });
    const claudeLocal = file('claude', 'local', 'settings', { hooks: { Stop: [entry(HOOKD('claude'))] } });
    expect(doubleWirings('claude', [claudeUser, claudeLocal])).toEqual([]);
    // Gemini CLI 0.61.0 runs a hook of the same name and command once per event, whichever file it is in.
    const geminiUser = file('gemini', 'user', 'settings', {
      hooks: { AfterAgent: [entry(HOOKD('gemini'))] },
    });
    const geminiProject = file('gemini', 'project', 'settings', {
      hooks: { AfterAgent: [entry(HOOKD('gemini'))] },
    });
    expect(doubleWirings('gemini', [geminiUser, geminiProject])).toEqual([]);
    const named = file('gemini', 'project', 'settings', {
      hooks: { AfterAgent: [{ hooks: [{ type: 'command', name: 'hookd', command: HOOKD('gemini') }] }] },
    });
    expect(doubleWirings('gemini', [geminiUser, named]).map((d) => d.event)).toEqual(['AfterAgent']);
    expect(hookdLayers([user, project, shadow])).toEqual([
      { layer: 'user', file: user.file, events: ['Stop', 'SessionEnd'], shadowed: [] },
      {
        layer: 'project',
        file: project.file,
        events: [],
        shadowed: [
          { event: 'Stop', by: shadow.file },
          { event: 'SessionEnd', by: shadow.file },
        ],
      },
    ]);
  });

  it('the uninstall of each layer', () => {
    expect(uninstallCommandFor('droid', 'user', '/h/.factory/settings.json')).toBe(
      'hookd uninstall --agent droid',
    );
    expect(uninstallCommandFor('droid', 'project', "/p q/it's/.factory/hooks/hooks.json")).toBe(
      `hookd uninstall --agent droid --scope project --project '/p q/it'\\''s'`,
    );
    expect(uninstallCommandFor('claude', 'local', '/p/.claude/settings.local.json')).toBe(
      'hookd uninstall --agent claude --file /p/.claude/settings.local.json',
    );
    expect(
      uninstallCommandFor('claude', 'managed', '/etc/claude-code/managed-settings.json'),
    ).toBeUndefined();
  });
});

describe('removeHookdEntries', () => {
  it('leaves a "__proto__" key of a file as it is', () => {
    const input = JSON.parse(
      `{"__proto__": [${JSON.stringify(entry(HOOKD()))}], "Stop": [${JSON.stringify(entry(HOOKD()))}]}`,
    ) as Record<string, unknown>;
    const { hooks, removed } = removeHookdEntries(input);
    expect(removed).toEqual([{ event: 'Stop', count: 1 }]);
    expect(Object.keys(hooks!)).toEqual(['__proto__']);
    expect(JSON.stringify(hooks)).toContain('"__proto__":[');
  });
});

import { describe, expect, it } from 'vitest';
import {
  codexEventLabel,
  codexHookHash,
  codexHookKey,
  codexTrustOf,
  readCodexHookStates,
} from '../../../src/agents/adapters/codex-trust.js';

// What Codex CLI 0.171.0's `codex app-server` (`hooks/list`) reported as each hook's key and
// currentHash for this hooks.json at /tmp/cx/hooks.json: hookd must compute the same, from the file.
const HOOKS = {
  UserPromptSubmit: [{ matcher: 'abc', hooks: [{ type: 'command', command: 'a', timeout: 0 }] }],
  Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'b', statusMessage: 'hi', async: true }] }],
  SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'c', timeout: 7 }] }],
  PreToolUse: [{ hooks: [{ type: 'command', command: 'd' }] }],
  PermissionRequest: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'e', timeout: 3 }] }],
  SessionEnd: [{ matcher: 'x', hooks: [{ type: 'command', command: 'f' }] }],
  Interrupt: [{ hooks: [{ type: 'command', command: 'echo x' }] }],
};
const LISTED: Record<string, string> = {
  'pre_tool_use:0:0': 'f4b06830e7cd86ef5a22848cac4ef5436689ca4ca8d1a86ad7d76470717c1775',
  'permission_request:0:0': '44f2267dc14eb600dcf498345bcb9c988e88b25dd56f0190e77c2124cc0bc347',
  'session_start:0:0': '1d9a92ac36596f8f5f7f608e47b110185a9f6c457a5559d7dfef44a59b33bef4',
  'session_end:0:0': '9883b4fc66e2f5b9c81aa22fa6ef67a08b788159ece3a264e302a4e80492d25b',
  'user_prompt_submit:0:0': '2dae137f9cbe56f71ce6e8226a64b47c9dff10c495ccfd073f6dc2c6f4848b69',
  'stop:0:0': '1edc99aad85cd3b4b9f21abdb38a343cf7ecd65c7a12c073d2810a3ab2ada289',
};

describe("Codex's hook trust", () => {
  it.each(Object.entries(LISTED))('%s: the hash Codex lists', (key, hash) => {
    const [label] = key.split(':');
    const event = Object.keys(HOOKS).find((e) => codexEventLabel(e) === label)!;
    const entry = HOOKS[event as keyof typeof HOOKS][0]!;
    expect(codexHookKey('/tmp/cx/hooks.json', event, 0, 0)).toBe(`/tmp/cx/hooks.json:${key}`);
    expect(codexHookHash(event, entry, entry.hooks[0]!)).toBe(`sha256:${hash}`);
  });

  it("SessionEnd and Interrupt: Codex's own default and cap are hashed", () => {
    const ends = [
      { type: 'command', command: 'f' },
      { type: 'command', command: 'g', timeout: 3 },
      { type: 'command', command: 'h', timeout: 600 },
    ];
    const stops = [
      { type: 'command', command: 'i' },
      { type: 'command', command: 'j', timeout: 3 },
    ];
    expect(ends.map((h) => codexHookHash('SessionEnd', {}, h).slice(7, 15))).toEqual([
      '89f1efc6',
      '1d7ee4ce',
      'b34503e1',
    ]);
    expect(stops.map((h) => codexHookHash('Interrupt', {}, h).slice(7, 15))).toEqual([
      '6c0c877b',
      '2f0e272c',
    ]);
  });

  it('a hookd entry as install writes it: the hash Codex listed', () => {
    const entry = {
      matcher: '',
      hooks: [{ type: 'command', command: '/usr/bin/hookd hook --agent codex', timeout: 60 }],
    };
    expect(codexHookHash('PreToolUse', entry, entry.hooks[0]!)).toBe(
      'sha256:29ce27b6c4668d24c97d689fd609f0a5a67bba1a77d6a8545dc7232afdac3b70',
    );
  });

  it('reads the trust tables /hooks writes, and nothing else', () => {
    const toml = [
      'model = "gpt-5.5"',
      '[hooks.state."/h/hooks.json:pre_tool_use:0:0"]',
      'trusted_hash = "sha256:aa" # reviewed',
      '',
      '[hooks.state."/h/hooks.json:stop:0:0"]',
      'enabled = false',
      'trusted_hash = "sha256:bb"',
      '[other]',
      'trusted_hash = "sha256:cc"',
      '[hooks.state."/h/a \\"q\\".json:stop:0:0"]',
      'trusted_hash = "sha256:dd"',
    ].join('\n');
    const states = readCodexHookStates(toml);
    expect(Object.fromEntries(states)).toEqual({
      '/h/hooks.json:pre_tool_use:0:0': { trustedHash: 'sha256:aa' },
      '/h/hooks.json:stop:0:0': { enabled: false, trustedHash: 'sha256:bb' },
      '/h/a "q".json:stop:0:0': { trustedHash: 'sha256:dd' },
    });
    expect(codexTrustOf(states.get('/h/hooks.json:pre_tool_use:0:0'), 'sha256:aa')).toBe('trusted');
    expect(codexTrustOf(states.get('/h/hooks.json:pre_tool_use:0:0'), 'sha256:ab')).toBe('modified');
    expect(codexTrustOf(states.get('/h/hooks.json:session_end:0:0'), 'sha256:aa')).toBe('untrusted');
  });

  it('keeps a bounded number of tables from a hostile file', () => {
    const toml = Array.from({ length: 10_050 }, (_, i) => `[hooks.state."k${i}"]\ntrusted_hash = "x"`).join(
      '\n',
    );
    expect(readCodexHookStates(toml).size).toBe(10_000);
  });

  it('refuses a config.toml that is not TOML, saying where', () => {
    expect(() => readCodexHookStates('[hooks.state."a"]\ntrusted_hash = sha256:aa\n')).toThrow(
      /Invalid TOML document/,
    );
    expect(() => readCodexHookStates(`x = ${'['.repeat(100)}${']'.repeat(100)}`)).toThrow();
  });
});

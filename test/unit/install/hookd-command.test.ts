import { describe, expect, it } from 'vitest';
import {
  buildHookdCommand,
  buildNativeClientCommand,
  fastClientOf,
  hookdInvocation,
  isHookdCommand,
  PORTABLE_HOOKD_COMMAND,
  shellQuote,
  splitShellWords,
} from '../../../src/install/hookd-command.js';

describe('shellQuote / splitShellWords', () => {
  it('leaves plain words bare and single-quotes the rest', () => {
    expect(shellQuote('/usr/lib/node_modules/hookd/dist/hookd.cjs')).toBe(
      '/usr/lib/node_modules/hookd/dist/hookd.cjs',
    );
    expect(shellQuote('/home/a b/hookd')).toBe(`'/home/a b/hookd'`);
    expect(shellQuote(`/it's/$HOME/hookd`)).toBe(`'/it'\\''s/$HOME/hookd'`);
    expect(shellQuote('')).toBe(`''`);
  });

  it('splits what shellQuote joined back into the same words', () => {
    for (const word of ['/a b/c', `it's`, '$HOME', 'x"y', 'tab\there']) {
      expect(splitShellWords(`${shellQuote(word)} hook`)).toEqual([word, 'hook']);
    }
    expect(splitShellWords(`"/a \\"b\\"/hookd" hook`)).toEqual(['/a "b"/hookd', 'hook']);
    expect(splitShellWords(`'unterminated`)).toBeUndefined();
  });
});

describe('isHookdCommand (the recognition rule)', () => {
  it.each([
    ['/usr/local/bin/hookd hook', true],
    [`'/home/me/my tools/hookd/dist/hookd.cjs' hook`, true],
    ['/usr/bin/node /opt/hookd/dist/hookd.cjs hook', true],
    ['hookd hook', true],
    ['  hookd hook --agent claude', true],
    ['hookd.js hook', true],
    ['hookd run hook', false],
    ['hookd', false],
    ['/usr/bin/hookd-notify hook', false],
    ['echo hookd hook', false],
    ['/opt/hookd/bin/other hook', false],
    ['python3 hookd.py hook', false],
    ['cat > /dev/null', false],
  ])('%s -> %s', (command, expected) => {
    expect(isHookdCommand(command)).toBe(expected);
  });

  it('is false for anything but a string', () => {
    expect(isHookdCommand(undefined)).toBe(false);
    expect(isHookdCommand(5)).toBe(false);
  });
});

describe('buildHookdCommand', () => {
  it('names the absolute node running the install and the absolute program: no PATH lookup', () => {
    expect(buildHookdCommand('/opt/hookd/dist/hookd.cjs', { nodePath: '/usr/local/bin/node' })).toBe(
      '/usr/local/bin/node /opt/hookd/dist/hookd.cjs hook',
    );
    expect(buildHookdCommand('/opt/hookd/dist/hookd.cjs')).toBe(
      `${process.execPath} /opt/hookd/dist/hookd.cjs hook`,
    );
  });

  it('quotes paths with spaces and quotes', () => {
    const command = buildHookdCommand('/my dir/hookd.cjs', { nodePath: "/it's/node" });
    expect(command).toBe(`'/it'\\''s/node' '/my dir/hookd.cjs' hook`);
    expect(isHookdCommand(command)).toBe(true);
  });

  it('names the agent, so hookd never guesses it from the environment', () => {
    const command = buildHookdCommand('/opt/hookd/dist/hookd.cjs', {
      nodePath: '/usr/bin/node',
      agent: 'claude',
    });
    expect(command).toBe('/usr/bin/node /opt/hookd/dist/hookd.cjs hook --agent claude');
    expect(isHookdCommand(command)).toBe(true);
  });

  it('writes the portable form for a shared (project) file, and recognises it as hookd', () => {
    const command = buildHookdCommand('/opt/hookd/dist/hookd.cjs', { portable: true, agent: 'claude' });
    expect(command).toBe(`${PORTABLE_HOOKD_COMMAND} --agent claude`);
    expect(command).not.toContain('/opt/hookd');
    expect(isHookdCommand(command)).toBe(true);
  });
});

describe('the portable project command names no package to install', () => {
  it('points to the repository, never to a name on a registry', () => {
    expect(PORTABLE_HOOKD_COMMAND).not.toMatch(/npm (i|install)\b/);
    expect(PORTABLE_HOOKD_COMMAND).toContain('https://github.com/hookd/hookd#install');
  });

  it('still recognises the form older versions wrote, so install and uninstall replace it', () => {
    const older =
      "command -v hookd >/dev/null 2>&1 || { echo 'hookd is not installed on this machine, so the hooks of this project did not run: npm i -g hookd' >&2; exit 1; }; exec hookd hook --agent droid --event Stop";
    expect(isHookdCommand(older)).toBe(true);
    expect(hookdInvocation(older)).toEqual(['hookd', 'hook', '--agent', 'droid', '--event', 'Stop']);
    expect(isHookdCommand(`${PORTABLE_HOOKD_COMMAND} --agent claude`)).toBe(true);
  });
});

describe('buildNativeClientCommand', () => {
  it('beside hookd.cjs (npm run build): HOOKD_NODE only, as before', () => {
    expect(
      buildNativeClientCommand(
        '/opt/hookd/dist/hookd-client',
        'droid',
        '/usr/bin/node',
        '/opt/hookd/dist/hookd.cjs',
      ),
    ).toBe('HOOKD_NODE=/usr/bin/node /opt/hookd/dist/hookd-client --agent droid');
  });

  it("a platform package's client is told which hookd.cjs its fallback runs", () => {
    const client = '/p/lib/node_modules/@hookd-dev/hookd-linux-x64/bin/hookd-client';
    const command = buildNativeClientCommand(
      client,
      'claude',
      '/usr/bin/node',
      '/p/lib/node_modules/@hookd-dev/hookd/dist/hookd.cjs',
    );
    expect(command).toBe(
      `HOOKD_NODE=/usr/bin/node HOOKD_CJS=/p/lib/node_modules/@hookd-dev/hookd/dist/hookd.cjs ${client} --agent claude`,
    );
    expect(isHookdCommand(command)).toBe(true);
    expect(fastClientOf(splitShellWords(command)!)).toBe('native');
  });

  it('quotes only the value of each assignment, so the shell still reads them as assignments', () => {
    const command = buildNativeClientCommand(
      '/a b/bin/hookd-client',
      'droid',
      '/my node/node',
      "/it's/dist/hookd.cjs",
    );
    expect(command).toBe(
      `HOOKD_NODE='/my node/node' HOOKD_CJS='/it'\\''s/dist/hookd.cjs' '/a b/bin/hookd-client' --agent droid`,
    );
    expect(splitShellWords(command)).toEqual([
      'HOOKD_NODE=/my node/node',
      "HOOKD_CJS=/it's/dist/hookd.cjs",
      '/a b/bin/hookd-client',
      '--agent',
      'droid',
    ]);
    expect(fastClientOf(splitShellWords(command)!)).toBe('native');
  });
});

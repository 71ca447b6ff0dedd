import { describe, expect, it } from 'vitest';
import { checkNodeVersion, isAtLeast, MIN_NODE_VERSION } from '../../../src/doctor/checks/hook/check-node.js';
import { parseInvalidHooksLine } from '../../../src/doctor/checks/agent/droid-log.js';
import { hookdProgramWords } from '../../../src/doctor/checks/hook/hookd-program.js';
import { PORTABLE_HOOKD_COMMAND } from '../../../src/install/hookd-command.js';
import { missingVariables } from '../../../src/doctor/checks/notify/missing-variables.js';
import { result, worstStatus } from '../../../src/doctor/types.js';

describe('checkNodeVersion', () => {
  it.each([
    ['20.19.0', true],
    ['v20.20.2', true],
    ['22.0.0', true],
    ['20.18.9', false],
    ['18.20.4', false],
    ['garbage', false],
  ])('%s is supported: %s', (version, ok) => {
    expect(isAtLeast(version, MIN_NODE_VERSION)).toBe(ok);
    expect(checkNodeVersion(version).status).toBe(ok ? 'ok' : 'fail');
  });

  it('says what to install when too old', () => {
    expect(checkNodeVersion('18.20.4')).toEqual({
      id: 'node',
      title: 'Node.js version',
      status: 'fail',
      detail: 'v18.20.4 is older than 20.19.0, the oldest Node hookd supports',
      fix: "install Node 20.19.0 or newer (e.g. `nvm install 20`), and make sure the agent's PATH finds it",
    });
  });
});

describe('parseInvalidHooksLine', () => {
  it('reads the time and the settings file of a Droid 0.225.2 line', () => {
    const line =
      '[2026-11-23T07:05:55.019Z] WARN: Invalid hooks in settings.json, ignoring | Context: {"path":"/home/dev/.factory/settings.json","tags":{"version":"0.225.2"}}';
    expect(parseInvalidHooksLine(line, 'x.log')).toEqual({
      logFile: 'x.log',
      at: Date.parse('2026-11-23T07:05:55.019Z'),
      settingsFile: '/home/dev/.factory/settings.json',
    });
  });

  it('keeps what it can of other shapes', () => {
    expect(parseInvalidHooksLine('WARN: Invalid hooks in settings.json, ignoring', 'x.log')).toEqual({
      logFile: 'x.log',
    });
    expect(
      parseInvalidHooksLine(
        '[not a time] Invalid hooks in settings.json, ignoring | Context: {broken',
        'x.log',
      ),
    ).toEqual({
      logFile: 'x.log',
    });
  });
});

describe('hookdProgramWords', () => {
  it.each([
    ['/opt/hookd/dist/hookd.cjs hook', ['/opt/hookd/dist/hookd.cjs']],
    ["/usr/bin/node '/my tools/hookd.cjs' hook --quiet", ['/usr/bin/node', '/my tools/hookd.cjs']],
    ['hookd hook', ['hookd']],
    [PORTABLE_HOOKD_COMMAND, ['hookd']],
    ['echo hookd hook', []],
  ])('%s', (command, words) => {
    expect(hookdProgramWords(command)).toEqual(words);
  });
});

describe('missingVariables', () => {
  it('names each unset variable with the field using it; defaults and set ones are fine', () => {
    const channel = {
      type: 'webhook',
      url: 'https://${HOST}/in',
      headers: { Authorization: 'Bearer ${TOKEN}', 'X-Team': '${TEAM:-core}' },
      list: ['${A}', 'plain'],
    };
    expect(missingVariables(channel, { HOST: 'example.org', A: '' }, 'notify.channels.x')).toEqual([
      { name: 'TOKEN', field: 'notify.channels.x.headers.Authorization' },
      { name: 'A', field: 'notify.channels.x.list[0]' },
    ]);
  });
});

describe('results', () => {
  it('keeps fix only when there is one, and ranks statuses', () => {
    expect(result('a', 'A', 'ok', 'fine')).toEqual({ id: 'a', title: 'A', status: 'ok', detail: 'fine' });
    expect(worstStatus(['ok', 'skip', 'warn'])).toBe('warn');
    expect(worstStatus(['warn', 'fail', 'ok'])).toBe('fail');
    expect(worstStatus([])).toBe('skip');
  });
});

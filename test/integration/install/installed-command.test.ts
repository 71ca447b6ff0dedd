import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOOKD_BIN } from '../../helpers/fixtures.js';
import { agentPayload, runAsAgent, useHookSandbox } from '../../helpers/agent-spawn.js';
import { runHookd } from '../../helpers/run-hookd.js';

// The command `hookd install` writes must start hookd whatever the agent's PATH
// (a GUI-launched agent, nvm), and a project-scope install must not embed this machine's paths.

const box = useHookSandbox();

const guard = { type: 'command', command: "echo 'no shell today' >&2; exit 2" };
/** A PATH with neither node nor hookd on it: what a GUI-launched agent may have. */
const BARE_PATH = '/nonexistent';

/** The PreToolUse entry's command (install names the event in it). */
function installedPreToolUseCommand(settingsFile: string): string {
  const data = JSON.parse(readFileSync(settingsFile, 'utf8')) as {
    hooks: Record<string, { hooks: { command: string }[] }[]>;
  };
  return data.hooks.PreToolUse![0]!.hooks[0]!.command;
}

describe('the installed hook command', () => {
  it('user scope: runs the guard with no node on the agent PATH (absolute node + hookd, quoted)', async () => {
    box.writeConfig({ hooks: { PreToolUse: [{ hooks: [guard] }] } });
    const installed = await runHookd(['install', '--agent', 'droid', '--transport', 'node'], {
      env: box.env,
      cwd: box.project,
    });
    expect(installed.code, installed.stderr).toBe(0);
    const command = installedPreToolUseCommand(join(box.env.HOME!, '.factory', 'settings.json'));
    expect(command).toBe(`${process.execPath} ${HOOKD_BIN} hook --agent droid --event PreToolUse`);
    const ran = await runAsAgent(agentPayload('droid', 'PreToolUse', { cwd: box.project }), {
      env: { ...box.env, PATH: BARE_PATH },
      cwd: box.project,
      command,
    });
    expect(ran).toMatchObject({ code: 2, stderr: 'no shell today\n' });
  });

  it.each([
    ['node', ['--transport', 'node']],
    ['native fast client', []],
  ])(
    'each entry names its event (%s): input hookd cannot read still blocks a guard marked onError block',
    async (_n, flags) => {
      box.writeConfig({ hooks: { PreToolUse: [{ hooks: [{ ...guard, onError: 'block' }] }] } });
      const installed = await runHookd(['install', '--agent', 'droid', ...flags], {
        env: box.env,
        cwd: box.project,
      });
      expect(installed.code, installed.stderr).toBe(0);
      const command = installedPreToolUseCommand(join(box.env.HOME!, '.factory', 'settings.json'));
      expect(command).toMatch(/ --event PreToolUse$/);
      // Not JSON: nothing in it says which event it is; the command line does.
      const ran = await runAsAgent('{"tool_name": "Execute", "tool_input": {"command": "rm -rf /"', {
        env: box.env,
        cwd: box.project,
        command,
      });
      expect(ran.code).toBe(2);
      expect(ran.stderr).toMatch(/could not read this PreToolUse event/);
    },
  );

  // The default client is the native one (built by npm run build).
  const cases: [string, string[], () => string][] = [
    [
      'native (the default)',
      [],
      () =>
        `HOOKD_NODE=${process.execPath} ${join(dirname(HOOKD_BIN), 'hookd-client')} --agent droid --event PreToolUse`,
    ],
  ];
  it.each(cases)(
    'user scope, fast client %s: its Node fallback runs the guard with no node on the agent PATH',
    async (_n, flags, expected) => {
      box.writeConfig({ hooks: { PreToolUse: [{ hooks: [guard] }] } });
      const installed = await runHookd(['install', '--agent', 'droid', ...flags], {
        env: box.env,
        cwd: box.project,
      });
      expect(installed.code, installed.stderr).toBe(0);
      const command = installedPreToolUseCommand(join(box.env.HOME!, '.factory', 'settings.json'));
      expect(command).toBe(expected());
      // No daemon runs here: the client falls back to the Node path, with the node the install wrote.
      const ran = await runAsAgent(agentPayload('droid', 'PreToolUse', { cwd: box.project }), {
        env: { ...box.env, PATH: BARE_PATH },
        cwd: box.project,
        command,
      });
      expect(ran).toMatchObject({ code: 2, stderr: 'no shell today\n' });
    },
  );

  it('project scope: no machine paths; says loudly where hookd is missing, runs it where it is on PATH', async () => {
    box.writeConfig({ hooks: { PreToolUse: [{ hooks: [guard] }] } });
    const installed = await runHookd(
      ['install', '--agent', 'claude', '--scope', 'project', '--project', box.project],
      {
        env: box.env,
        cwd: box.project,
      },
    );
    expect(installed.code, installed.stderr).toBe(0);
    const command = installedPreToolUseCommand(join(box.project, '.claude', 'settings.json'));
    expect(command).not.toContain(box.dir);
    expect(command).not.toContain(dirname(HOOKD_BIN));
    expect(command).not.toContain(process.execPath);
    const payload = agentPayload('claude', 'PreToolUse', { cwd: box.project });

    const missing = await runAsAgent(payload, {
      env: { ...box.env, PATH: BARE_PATH },
      cwd: box.project,
      agent: 'claude',
      command,
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('hookd is not installed on this machine');
    expect(missing.stderr).toContain('see https://github.com/hookd/hookd#install');
    expect(missing.stderr).not.toContain('npm i');

    const bin = join(box.dir, 'bin');
    mkdirSync(bin);
    symlinkSync(HOOKD_BIN, join(bin, 'hookd'));
    symlinkSync(process.execPath, join(bin, 'node'));
    const present = await runAsAgent(payload, {
      env: { ...box.env, PATH: bin },
      cwd: box.project,
      agent: 'claude',
      command,
    });
    expect(present).toMatchObject({ code: 2, stderr: 'no shell today\n' });
  });
});

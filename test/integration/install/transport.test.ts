import { spawnSync } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_PROFILES } from '../../../src/install/agents.js';
import { configSchema } from '../../../src/config/schemas/schema.js';
import { installHookd, uninstallHookd } from '../../../src/install/install.js';
import { parseJsoncText } from '../../../src/settings-io/jsonc-text.js';
import type { Agent } from '../../../src/install/agents.js';
import { isHookdCommand } from '../../../src/install/hookd-command.js';
import { fastClientOfHook, transportOf } from '../../../src/install/transport.js';
import { hookdProgramWords, missingProgram } from '../../../src/doctor/checks/hook/hookd-program.js';
import { BIN, ROOT } from '../daemon/process-helpers.js';

// `hookd install --transport node|fast` on real settings files in a temp HOME, for both agents: hookd's
// own entries move to the new transport in place (entries older versions wrote too: the bash client,
// Claude Code's http hooks); the user's entries, comments and layout stay.

let home: string;
let env: Record<string, string>;
let HOOKD: string;
let NATIVE: string;
const NODE = process.execPath;
const fixedNow = () => new Date('2026-01-02T03:04:05.678Z');
const settingsOf = (agent: Agent) => join(home, agent === 'droid' ? '.factory' : '.claude', 'settings.json');

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'hookd-transport-'));
  env = { HOME: home, XDG_STATE_HOME: join(home, '.local', 'state'), PATH: '/usr/bin:/bin' };
  // Stand-ins for the package layout: dist/hookd.cjs, and the real native client (npm run build) copied
  // beside it as dist/hookd-client: install runs its probe.
  HOOKD = join(home, 'app', 'dist', 'hookd.cjs');
  NATIVE = join(home, 'app', 'dist', 'hookd-client');
  await mkdir(join(HOOKD, '..'), { recursive: true });
  await writeFile(HOOKD, '#!/usr/bin/env node\n', { mode: 0o755 });
  await copyFile(join(ROOT, 'dist', 'hookd-client'), NATIVE);
  await chmod(NATIVE, 0o755);
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/** The command install writes (each event's entry adds `--event <Event>`). */
const NODE_CMD = (agent: Agent, event?: string) =>
  `${NODE} ${HOOKD} hook --agent ${agent}${event ? ` --event ${event}` : ''}`;
const FAST_CMD = (agent: Agent, event?: string) =>
  `HOOKD_NODE=${NODE} ${NATIVE} --agent ${agent}${event ? ` --event ${event}` : ''}`;
/** What older versions wrote: the bash fast client, and Claude Code's http hooks. */
const OLD_BASH_CMD = (agent: Agent) =>
  `HOOKD_NODE=${NODE} /bin/bash --posix ${join(home, 'app', 'bin', 'hookd-client.bash')} --agent ${agent}`;
const OLD_HTTP_HOOK = {
  type: 'http',
  url: 'http://127.0.0.1:47615/hookd/v1/claude',
  headers: { Authorization: `Bearer ${'a'.repeat(64)}` },
  timeout: 5,
};

function install(agent: Agent, extra: Partial<Parameters<typeof installHookd>[0]> = {}) {
  return installHookd({
    agent,
    scope: 'user',
    env,
    hookdPath: HOOKD,
    now: fixedNow,
    ...extra,
  });
}

/** A settings file as people have them: comments, the user's own hooks around hookd's, odd spacing. */
const USER_FILE = (agent: Agent) =>
  `{
    // keep me
    "model":"custom:fake",
    "hooks": {
        "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "my-guard" } ] } ],
        "Stop": [{"hooks":[{"type":"command","command":"say done"}]}]
    },
    "theme":   "dark" /* and me */
}`.replace(/my-guard/, `my-guard-${agent}`);

type Hooks = Record<string, { matcher?: string; hooks: Record<string, unknown>[] }[]>;
async function hooksIn(agent: Agent): Promise<Hooks> {
  return (parseJsoncText(await readFile(settingsOf(agent), 'utf8')) as { hooks: Hooks }).hooks;
}

for (const agent of ['droid', 'claude'] as const) {
  describe(`install transports for ${agent}`, () => {
    it('node (all events) -> fast (the default set) in place -> fast again changes nothing -> node back', async () => {
      await mkdir(join(settingsOf(agent), '..'), { recursive: true });
      await writeFile(settingsOf(agent), USER_FILE(agent));
      await install(agent, { transport: 'node', allEvents: true });
      const before = await hooksIn(agent);
      expect(before.Stop).toEqual([
        { hooks: [{ type: 'command', command: 'say done' }] },
        { matcher: '', hooks: [{ type: 'command', command: NODE_CMD(agent, 'Stop'), timeout: 60 }] },
      ]);

      // A config that needs Stop (a rule) and PreToolUse for Bash (a guard): nothing else.
      const config = configSchema.parse({
        notify: { rules: [{ on: 'Stop', channels: ['desktop'] }] },
        ledger: { enabled: false },
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'g' }] }] },
      });
      const fast = await install(agent, { transport: 'fast', config });
      expect(fast.transport).toBe('fast');
      expect(fast.command).toBe(FAST_CMD(agent));
      const after = await hooksIn(agent);
      // Every event that can carry a guard or a notification stays wired: the config decides at run time.
      expect(Object.keys(after).sort()).toEqual([...AGENT_PROFILES[agent].defaultEvents].sort());
      // Same positions: the user's entry first, hookd's second, now the fast client (and the matcher).
      expect(after.Stop).toEqual([
        { hooks: [{ type: 'command', command: 'say done' }] },
        { matcher: '', hooks: [{ type: 'command', command: FAST_CMD(agent, 'Stop'), timeout: 60 }] },
      ]);
      expect(after.PreToolUse).toEqual([
        { matcher: 'Bash', hooks: [{ type: 'command', command: `my-guard-${agent}` }] },
        {
          matcher: '',
          hooks: [{ type: 'command', command: FAST_CMD(agent, 'PreToolUse'), timeout: 60 }],
        },
      ]);
      // --all-events wired Claude Code's other events too; the default takes hookd out of them.
      const dropped = fast.events.filter((e) => e.action === 'removed').map((e) => e.event);
      if (agent === 'claude') expect(dropped).toContain('CwdChanged');
      else expect(dropped).toEqual([]);
      const text = await readFile(settingsOf(agent), 'utf8');
      expect(text).toContain('// keep me');
      expect(text).toContain('/* and me */');
      expect(text).toContain('"theme":   "dark"');

      const again = await install(agent, { transport: 'fast', config });
      expect(again).toMatchObject({ changed: false, diff: '' });
      expect(await readFile(settingsOf(agent), 'utf8')).toBe(text);

      await install(agent, { transport: 'node', config });
      const back = await hooksIn(agent);
      expect(back.Stop![1]).toEqual({
        matcher: '',
        hooks: [{ type: 'command', command: NODE_CMD(agent, 'Stop'), timeout: 60 }],
      });
      expect(back.PreToolUse![1]!.hooks[0]!.command).toBe(NODE_CMD(agent, 'PreToolUse'));

      // uninstall recognises every transport's entries.
      const removed = await uninstallHookd({ agent, scope: 'user', env, now: fixedNow });
      expect(removed.removed.map((r) => r.event).sort()).toEqual(
        [...AGENT_PROFILES[agent].defaultEvents].sort(),
      );
    });

    it('the native client is recognised by every reader of the settings; a client that is gone is named', async () => {
      const auto = await install(agent, { transport: 'fast', events: ['Stop', 'PreToolUse'] });
      expect(auto).toMatchObject({ transport: 'fast', client: 'native', command: FAST_CMD(agent) });
      const hook = (await hooksIn(agent)).Stop![0]!.hooks[0]!;
      expect(hook.command).toBe(FAST_CMD(agent, 'Stop'));
      expect([isHookdCommand(FAST_CMD(agent)), transportOf(hook), fastClientOfHook(hook)]).toEqual([
        true,
        'fast',
        'native',
      ]);
      expect(hookdProgramWords(FAST_CMD(agent))).toEqual([NATIVE, NODE]);
      expect(missingProgram(FAST_CMD(agent), env)).toBeUndefined();
      expect((await install(agent, { transport: 'fast', events: ['Stop', 'PreToolUse'] })).changed).toBe(
        false,
      );
      await rm(NATIVE);
      expect(missingProgram(FAST_CMD(agent), env)).toBe(`${NATIVE} does not exist`);
    });

    it('entries an older version wrote (the bash client, http hooks) are replaced in place, and uninstall removes them', async () => {
      await mkdir(join(settingsOf(agent), '..'), { recursive: true });
      const old = (hook: Record<string, unknown>) => ({ matcher: '', hooks: [hook] });
      const hooks: Hooks = {
        Stop: [
          { hooks: [{ type: 'command', command: 'say done' }] },
          old({ type: 'command', command: OLD_BASH_CMD(agent), timeout: 60 }),
        ],
        ...(agent === 'claude' ? { SessionEnd: [old(OLD_HTTP_HOOK)] } : {}),
      };
      await writeFile(settingsOf(agent), `${JSON.stringify({ hooks }, null, 2)}\n`, { mode: 0o600 });
      expect([transportOf(hooks.Stop![1]!.hooks[0]), fastClientOfHook(hooks.Stop![1]!.hooks[0])]).toEqual([
        'fast',
        'bash',
      ]);
      if (agent === 'claude') expect(transportOf(OLD_HTTP_HOOK)).toBe('http');
      const events = agent === 'claude' ? ['Stop', 'SessionEnd'] : ['Stop'];
      await install(agent, { transport: 'fast', events });
      const after = await hooksIn(agent);
      expect(after.Stop).toEqual([
        hooks.Stop![0],
        { matcher: '', hooks: [{ type: 'command', command: FAST_CMD(agent, 'Stop'), timeout: 60 }] },
      ]);
      if (agent === 'claude')
        expect(after.SessionEnd).toEqual([
          { matcher: '', hooks: [{ type: 'command', command: FAST_CMD(agent, 'SessionEnd'), timeout: 60 }] },
        ]);
      // Uninstall finds the old kinds too.
      await writeFile(settingsOf(agent), `${JSON.stringify({ hooks }, null, 2)}\n`, { mode: 0o600 });
      const removed = await uninstallHookd({ agent, scope: 'user', env, now: fixedNow });
      expect(removed.removed.map((r) => r.event).sort()).toEqual(events.sort());
      expect(await hooksIn(agent)).toEqual({ Stop: [hooks.Stop![0]] });
    });

    it('a native client that does not run here, or speaks another version: the Node path with a note; --client native refuses', async () => {
      for (const [body, why] of [
        ['\x7fELF not for this machine', /does not run here/],
        [
          '#!/bin/sh\necho "hookd-client 1 protocol 2"\n',
          /is client 1 protocol 2; this hookd serves 3-3, protocol 3/,
        ],
      ] as const) {
        await writeFile(NATIVE, body, { mode: 0o755 });
        const result = await install(agent, { transport: 'fast', events: ['Stop'] });
        expect(result).toMatchObject({ transport: 'node', command: NODE_CMD(agent) });
        expect(result.notes.join('\n')).toMatch(why);
        expect(result.notes.join('\n')).toMatch(/about 80 ms an event/);
        await expect(
          install(agent, { transport: 'fast', events: ['Stop'], client: 'native' }),
        ).rejects.toThrow(why);
      }
      await rm(NATIVE);
      const none = await install(agent, { transport: 'fast', events: ['Stop'] });
      expect(none).toMatchObject({ transport: 'node', command: NODE_CMD(agent) });
      expect(none.notes.join('\n')).toMatch(
        /hookd-client is missing \(in a clone, `npm run build` compiles it where a C compiler is\)/,
      );
    });
  });
}

describe('retired choices of the install command', () => {
  it.each([
    [['--transport', 'http'], /--transport http is no longer supported: a loopback port cannot prove/],
    [['--client', 'bash'], /--client bash is no longer supported/],
  ])('hookd install %j is refused with the reason and what to use instead', (args, why) => {
    const r = spawnSync(process.execPath, [BIN, 'install', '--agent', 'claude', '--dry-run', ...args], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(why);
    expect(r.stderr).toMatch(/--transport (fast|node)/);
  });
});

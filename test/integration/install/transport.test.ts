import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/schema.js';
import { installHookd, uninstallHookd } from '../../../src/install/install.js';
import { parseJsoncText } from '../../../src/install/jsonc-patch.js';
import type { Agent } from '../../../src/install/agents.js';
import { isHookdCommand } from '../../../src/install/hookd-command.js';
import { fastClientOfHook, transportOf } from '../../../src/install/transport.js';
import { hookdProgramWords, missingProgram } from '../../../src/doctor/hookd-program.js';
import { ROOT } from '../daemon/process-helpers.js';

// `hookd install --transport node|fast|http` on real settings files in a temp HOME, for both agents:
// hookd's own entries move to the new transport in place; the user's entries, comments and layout stay.

let home: string;
let env: Record<string, string>;
let HOOKD: string;
let CLIENT: string;
const NODE = process.execPath;
const fixedNow = () => new Date('2026-01-02T03:04:05.678Z');
const settingsOf = (agent: Agent) => join(home, agent === 'droid' ? '.factory' : '.claude', 'settings.json');

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'hookd-transport-'));
  env = { HOME: home, XDG_STATE_HOME: join(home, '.local', 'state'), PATH: '/usr/bin:/bin' };
  // Stand-ins for the package layout: dist/hookd.cjs and bin/hookd-client.bash.
  HOOKD = join(home, 'app', 'dist', 'hookd.cjs');
  CLIENT = join(home, 'app', 'bin', 'hookd-client.bash');
  await mkdir(join(HOOKD, '..'), { recursive: true });
  await mkdir(join(CLIENT, '..'), { recursive: true });
  await writeFile(HOOKD, '#!/usr/bin/env node\n', { mode: 0o755 });
  await writeFile(CLIENT, '#!/bin/bash\n', { mode: 0o755 });
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const NODE_CMD = (agent: Agent) => `${NODE} ${HOOKD} hook --agent ${agent}`;
const FAST_CMD = (agent: Agent) => `HOOKD_NODE=${NODE} /bin/bash --posix ${CLIENT} --agent ${agent}`;

function install(agent: Agent, extra: Partial<Parameters<typeof installHookd>[0]> = {}) {
  return installHookd({
    agent,
    scope: 'user',
    env,
    hookdPath: HOOKD,
    now: fixedNow,
    bashPath: '/bin/bash',
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
    it('node (all events) -> fast (only what the config needs) in place -> fast again changes nothing -> node back', async () => {
      await mkdir(join(settingsOf(agent), '..'), { recursive: true });
      await writeFile(settingsOf(agent), USER_FILE(agent));
      await install(agent, { transport: 'node', allEvents: true });
      const before = await hooksIn(agent);
      expect(before.Stop).toEqual([
        { hooks: [{ type: 'command', command: 'say done' }] },
        { matcher: '', hooks: [{ type: 'command', command: NODE_CMD(agent), timeout: 60 }] },
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
      expect(Object.keys(after)).toEqual(['PreToolUse', 'Stop']);
      // Same positions: the user's entry first, hookd's second, now the fast client (and the matcher).
      expect(after.Stop).toEqual([
        { hooks: [{ type: 'command', command: 'say done' }] },
        { matcher: '', hooks: [{ type: 'command', command: FAST_CMD(agent), timeout: 60 }] },
      ]);
      expect(after.PreToolUse).toEqual([
        { matcher: 'Bash', hooks: [{ type: 'command', command: `my-guard-${agent}` }] },
        { matcher: 'Bash', hooks: [{ type: 'command', command: FAST_CMD(agent), timeout: 60 }] },
      ]);
      expect(fast.events.filter((e) => e.action === 'removed').map((e) => e.event)).toContain('SessionEnd');
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
        hooks: [{ type: 'command', command: NODE_CMD(agent), timeout: 60 }],
      });
      expect(back.PreToolUse![1]!.hooks[0]!.command).toBe(NODE_CMD(agent));

      // uninstall recognises every transport's entries.
      const removed = await uninstallHookd({ agent, scope: 'user', env, now: fixedNow });
      expect(removed.removed.map((r) => r.event).sort()).toEqual(['PreToolUse', 'Stop']);
    });

    it.runIf(process.env.HOOKD_NO_NATIVE_CLIENT !== '1')(
      'fast with the native client built: native by default, --client bash and back move the entries in place',
      async () => {
        // The real native client (npm run build), copied into the stand-in package: its probe must answer.
        const native = join(HOOKD, '..', 'hookd-client');
        await copyFile(join(ROOT, 'dist', 'hookd-client'), native);
        await chmod(native, 0o755);
        const NATIVE_CMD = `HOOKD_NODE=${NODE} ${native} --agent ${agent}`;
        const auto = await install(agent, { transport: 'fast', events: ['Stop', 'PreToolUse'] });
        expect(auto).toMatchObject({ transport: 'fast', client: 'native', command: NATIVE_CMD });
        const hooks = await hooksIn(agent);
        const hook = hooks.Stop![0]!.hooks[0]!;
        expect(hook.command).toBe(NATIVE_CMD);
        // Every reader of the settings sees it as hookd's fast client.
        expect([isHookdCommand(NATIVE_CMD), transportOf(hook), fastClientOfHook(hook)]).toEqual([
          true,
          'fast',
          'native',
        ]);
        expect(hookdProgramWords(NATIVE_CMD)).toEqual([native, NODE]);
        expect(missingProgram(NATIVE_CMD, env)).toBeUndefined();
        const bash = await install(agent, {
          transport: 'fast',
          events: ['Stop', 'PreToolUse'],
          client: 'bash',
        });
        expect(bash).toMatchObject({ client: 'bash', command: FAST_CMD(agent) });
        const moved = await hooksIn(agent);
        expect(moved.Stop).toHaveLength(1);
        expect(moved.Stop![0]!.hooks).toEqual([{ ...hook, command: FAST_CMD(agent) }]);
        expect(fastClientOfHook(moved.Stop![0]!.hooks[0])).toBe('bash');
        await install(agent, { transport: 'fast', events: ['Stop', 'PreToolUse'] });
        expect(await hooksIn(agent)).toEqual(hooks);
        const again = await install(agent, { transport: 'fast', events: ['Stop', 'PreToolUse'] });
        expect(again.changed).toBe(false);
        // A client that is gone is what doctor names.
        await rm(native);
        expect(missingProgram(NATIVE_CMD, env)).toBe(`${native} does not exist`);
      },
    );

    it('a native client that does not run here, or speaks another version: bash with a note; --client native refuses', async () => {
      const native = join(HOOKD, '..', 'hookd-client');
      for (const [body, why] of [
        ['\x7fELF not for this machine', /does not run here/],
        [
          '#!/bin/sh\necho "hookd-client 1 protocol 2"\n',
          /is client 1 protocol 2; this hookd serves 2-2, protocol 2/,
        ],
      ] as const) {
        await writeFile(native, body, { mode: 0o755 });
        const result = await install(agent, { transport: 'fast', events: ['Stop'] });
        expect(result).toMatchObject({ transport: 'fast', client: 'bash', command: FAST_CMD(agent) });
        expect(result.notes.join('\n')).toMatch(why);
        await expect(
          install(agent, { transport: 'fast', events: ['Stop'], client: 'native' }),
        ).rejects.toThrow(why);
      }
      await rm(native);
      const none = await install(agent, { transport: 'fast', events: ['Stop'] });
      expect(none.notes.join('\n')).toMatch(/was not built/);
    });

    it('fast without bash, or without the client file, wires the Node path and says so', async () => {
      await rm(CLIENT);
      const result = await install(agent, { transport: 'fast', events: ['Stop'] });
      expect(result).toMatchObject({ transport: 'node', command: NODE_CMD(agent) });
      expect(result.notes.join('\n')).toMatch(/fast client .* is missing/);
    });
  });
}

describe('install --transport http (Claude Code)', () => {
  const httpConfig = (extra: Record<string, unknown> = {}) =>
    configSchema.parse({
      daemon: { httpHooks: { enabled: true, port: 47999 } },
      ledger: { enabled: false },
      notify: { rules: [{ on: ['Stop', 'SessionStart', 'SessionEnd'], channels: ['desktop'] }] },
      ...extra,
    });
  const tokenFile = () => join(env.XDG_STATE_HOME!, 'hookd', 'http-hooks.token');

  it('observe-only events go over http; SessionStart and events with commands keep the command', async () => {
    const config = httpConfig({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x' }] }] } });
    const result = await install('claude', { transport: 'http', config });
    const token = (await readFile(tokenFile(), 'utf8')).trim();
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect((await stat(tokenFile())).mode & 0o777).toBe(0o600);
    const hooks = await hooksIn('claude');
    expect(hooks.SessionEnd).toEqual([
      {
        matcher: '',
        hooks: [
          {
            type: 'http',
            url: 'http://127.0.0.1:47999/hookd/v1/claude',
            headers: { Authorization: `Bearer ${token}` },
            timeout: 5,
          },
        ],
      },
    ]);
    expect(hooks.SessionStart![0]!.hooks[0]!.command).toBe(FAST_CMD('claude'));
    expect(hooks.Stop![0]!.hooks[0]!.command).toBe(FAST_CMD('claude'));
    expect(Object.fromEntries(result.paths.map((p) => [p.event, p.transport]))).toEqual({
      SessionStart: 'fast',
      SessionEnd: 'http',
      Stop: 'fast',
    });
    // The printed diff never shows the token.
    expect(result.diff).toContain('Bearer <hookd http token>');
    expect(result.diff).not.toContain(token);
    // The file holds the token: created private.
    expect((await stat(settingsOf('claude'))).mode & 0o777).toBe(0o600);

    // Idempotent; then back to fast moves the http hook back to a command, in place.
    expect((await install('claude', { transport: 'http', config })).changed).toBe(false);
    expect(result.notes.join('\n')).not.toContain('daemon.fastListener is off');
    const off = await install('claude', {
      transport: 'http',
      config: httpConfig({ daemon: { httpHooks: { enabled: true, port: 47999 }, fastListener: false } }),
      dryRun: true,
    });
    expect(off.notes.join('\n')).toContain('daemon.fastListener is off');
    await install('claude', { transport: 'fast', config });
    expect((await hooksIn('claude')).SessionEnd![0]!.hooks).toEqual([
      { type: 'command', command: FAST_CMD('claude'), timeout: 60 },
    ]);
  });

  it('--events with http: the config still decides which events run commands (those keep the command)', async () => {
    const config = httpConfig({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x' }] }] } });
    const result = await install('claude', { transport: 'http', config, events: ['Stop', 'PreCompact'] });
    expect(result.paths.map((p) => [p.event, p.transport])).toEqual([
      ['Stop', 'fast'],
      ['PreCompact', 'http'],
    ]);
  });

  it('uninstall removes the http hooks of hookd too', async () => {
    await mkdir(join(settingsOf('claude'), '..'), { recursive: true });
    await writeFile(settingsOf('claude'), USER_FILE('claude'), { mode: 0o600 });
    await install('claude', { transport: 'http', config: httpConfig() });
    const removed = await uninstallHookd({ agent: 'claude', scope: 'user', env, now: fixedNow });
    expect(removed.removed.map((r) => r.event).sort()).toEqual(['SessionEnd', 'SessionStart', 'Stop']);
    const left = await hooksIn('claude');
    expect(JSON.stringify(left)).not.toContain('/hookd/v1/claude');
    expect(left.Stop).toEqual([{ hooks: [{ type: 'command', command: 'say done' }] }]);
  });

  it('keeps the token across installs and rotates it on request', async () => {
    const config = httpConfig();
    await install('claude', { transport: 'http', config });
    const first = (await readFile(tokenFile(), 'utf8')).trim();
    await install('claude', { transport: 'http', config, allEvents: true });
    expect((await readFile(tokenFile(), 'utf8')).trim()).toBe(first);
    const rotated = await install('claude', { transport: 'http', config, rotateToken: true });
    const second = (await readFile(tokenFile(), 'utf8')).trim();
    expect(second).not.toBe(first);
    expect(rotated.notes.join('\n')).toMatch(/new http token/);
    const header = (await hooksIn('claude')).SessionEnd![0]!.hooks[0]!.headers as Record<string, string>;
    expect(header.Authorization).toBe(`Bearer ${second}`);
  });

  it('refuses Droid, a project file, the listener off, and a settings file others can read', async () => {
    const config = httpConfig();
    await expect(install('droid', { transport: 'http', config })).rejects.toThrow(/Claude Code only/);
    await expect(
      install('claude', { transport: 'http', config, scope: 'project', projectDir: home }),
    ).rejects.toThrow(/teammates/);
    await expect(install('claude', { transport: 'http', config: configSchema.parse({}) })).rejects.toThrow(
      /listener, which is off/,
    );
    await mkdir(join(settingsOf('claude'), '..'), { recursive: true });
    await writeFile(settingsOf('claude'), '{}\n');
    await chmod(settingsOf('claude'), 0o644);
    const refused = (await install('claude', { transport: 'http', config }).catch((e: unknown) => e)) as {
      message: string;
      hint?: string;
    };
    expect(refused.message).toMatch(/can be read by other users \(mode 0644\)/);
    expect(refused.hint).toMatch(/chmod 600/);
    expect(await readFile(settingsOf('claude'), 'utf8')).toBe('{}\n');
  });
});

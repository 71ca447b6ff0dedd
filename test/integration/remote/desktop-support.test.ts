import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDesktopAnswerChannel } from '../../../src/remote/desktop-channel.js';
import type { PermissionAsk, RemoteAnswer } from '../../../src/remote/types.js';
import type { SpawnLike } from '../../../src/process/run.js';
import { useTempDir } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * Where the desktop cannot carry Allow/Deny: the channel says why once, never throws from start(), and
 * refuses each ask with that reason (the broker then counts on its other channels). The programs it
 * checks with are stand-ins on PATH: a notify-send and a gdbus that print what the real ones would.
 */
const ask = (expiresAt = Date.now() + 60_000): PermissionAsk => ({
  id: 'ask-1',
  agent: 'claude',
  session: 's-1',
  project: '/p',
  expiresAt,
  tokens: { allow: 'allow-token', deny: 'deny-token' },
  summary: { title: 'Claude Code wants to run Bash', tool: 'Bash', command: 'ls' },
});

const HELP =
  'Usage:\\n  notify-send [OPTION…] <SUMMARY> [BODY]\\n  -A, --action=[NAME=]Text...\\n  -w, --wait\\n';

describe('desktop answers where the platform cannot show them', () => {
  const temp = useTempDir('hkd-rds-');

  /** A PATH with a stand-in notify-send (it "presses" Allow) and a gdbus listing `capabilities`. */
  function fakeDesktop(
    capabilities: string,
    help = HELP,
    shows = 'echo allow',
  ): Record<string, string | undefined> {
    const bin = join(temp.dir, 'bin');
    mkdirSync(bin, { recursive: true });
    const script = (name: string, body: string) => {
      writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
      chmodSync(join(bin, name), 0o755);
    };
    script('notify-send', `[ "$1" = --help ] && { printf '${help}'; exit 0; }\n${shows}`);
    script('gdbus', `printf '%s\\n' "$(cat ${join(temp.dir, 'capabilities')})"`);
    writeFileSync(join(temp.dir, 'capabilities'), capabilities);
    return { PATH: `${bin}:/usr/bin:/bin`, DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(temp.dir, 'bus')}` };
  }

  function channelWith(
    env: Record<string, string | undefined>,
    extra: { platform?: NodeJS.Platform; now?: () => number; showWaitMs?: number } = {},
  ) {
    const logged: { level: string; msg: string }[] = [];
    const started: string[][] = [];
    const recording = ((file: string, args: readonly string[], options: object) => {
      started.push([file, ...args]);
      return (spawn as unknown as (f: string, a: readonly string[], o: object) => unknown)(
        file,
        args,
        options,
      );
    }) as SpawnLike;
    const channel = createDesktopAnswerChannel({
      spawn: recording,
      env,
      platform: extra.platform ?? 'linux',
      logger: { log: (level, _fields, msg) => void logged.push({ level, msg }) },
      ...(extra.now ? { now: extra.now } : {}),
      ...(extra.showWaitMs ? { showWaitMs: extra.showWaitMs } : {}),
    });
    return { channel, logged, started };
  }

  it('a server without the "actions" capability: said once, each ask refused with the reason', async () => {
    const { channel, logged } = channelWith(fakeDesktop("(['body', 'body-markup'],)"));
    const answers: RemoteAnswer[] = [];
    await expect(channel.start((a) => answers.push(a))).resolves.toBeUndefined();
    await expect(channel.ask(ask())).rejects.toThrow(/does not show actions/);
    await expect(channel.ask(ask())).rejects.toThrow(/does not show actions/);
    expect(logged.filter((l) => l.level === 'warn')).toHaveLength(1);
    expect(logged[0]!.msg).toMatch(
      /desktop answers unavailable: the notification server does not show actions/,
    );
    await channel.close();
    expect(answers).toEqual([]);
  });

  it('a notify-send without --action: the reason names the libnotify it needs', async () => {
    const { channel } = channelWith(fakeDesktop("(['actions'],)", 'Usage:\\n  -u, --urgency=LEVEL\\n'));
    await channel.start(() => {});
    await expect(channel.ask(ask())).rejects.toThrow(/no --action\/--wait: .*libnotify 0\.7\.9 or later/);
  });

  it('no D-Bus session bus: refused with what to do, and no program is run', async () => {
    const { channel, started } = channelWith({
      PATH: '/usr/bin:/bin',
      XDG_RUNTIME_DIR: join(temp.dir, 'run'),
    });
    await channel.start(() => {});
    const support = await channel.support();
    expect(support.ok).toBe(false);
    expect(!support.ok && support.reason).toMatch(/no D-Bus session bus|notify-send not found/);
    await expect(channel.ask(ask())).rejects.toThrow(/desktop answers unavailable/);
    expect(started).toEqual([]);
  });

  it('macOS: not offered (says so), no program run', async () => {
    const { channel, started, logged } = channelWith(fakeDesktop("(['actions'],)"), { platform: 'darwin' });
    await channel.start(() => {});
    await expect(channel.ask(ask())).rejects.toThrow(
      /darwin does not have; the notification stays a plain one/,
    );
    expect(started).toEqual([]);
    expect(logged).toHaveLength(1);
  });

  it('checked again after a while: a notification server started later is used', async () => {
    let clock = 1_000_000;
    const env = fakeDesktop("(['body'],)");
    const { channel, logged } = channelWith(env, { now: () => clock });
    const answers: RemoteAnswer[] = [];
    await channel.start((a) => answers.push(a));
    await expect(channel.ask(ask(clock + 60_000))).rejects.toThrow(/does not show actions/);
    writeFileSync(join(temp.dir, 'capabilities'), "(['actions', 'body'],)");
    // Within the recheck interval the old answer stands.
    clock += 30_000;
    await expect(channel.ask(ask(clock + 60_000))).rejects.toThrow(/does not show actions/);
    clock += 30_000;
    await channel.ask(ask(clock + 60_000));
    // The stand-in notify-send "presses" Allow at once.
    await waitFor(() => answers.length > 0, 10_000, 'the answer');
    expect(answers).toEqual([{ token: 'allow-token', channel: 'desktop', approver: 'desktop' }]);
    expect(logged.map((l) => l.msg)).toContain('desktop answers: Allow and Deny on the desktop notification');
    await channel.close();
  });

  it('a notify-send that fails: the ask is refused with its error, and the failure is logged', async () => {
    const env = fakeDesktop(
      "(['actions'],)",
      HELP,
      // A shell catches SIGINT from its start: that is not a shown notification (only notify-send is).
      'sleep 0.2; echo "Cannot connect to the notification server \u001b[2J" >&2; exit 1',
    );
    // Its failure is seen however long the machine takes to run it (a loaded one may take seconds).
    const { channel, logged } = channelWith(env, { showWaitMs: 120_000 });
    const answers: RemoteAnswer[] = [];
    await channel.start((a) => answers.push(a));
    await expect(channel.ask(ask())).rejects.toThrow(
      /notify-send failed: Cannot connect to the notification server \\x1b\[2J/,
    );
    await waitFor(() => logged.some((l) => l.level === 'warn'), 10_000, 'the warning');
    expect(answers).toEqual([]);
  });
});

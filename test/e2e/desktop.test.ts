import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findOnPath } from '../../src/notify/channels/desktop.js';
import { handOff, requestDaemon } from '../../src/daemon/client.js';
import { fixture, handoffOf, tempEnv, waitFor } from '../integration/daemon/helpers.js';
import { BIN, ensureBuilt, exited } from '../integration/daemon/process-helpers.js';

/**
 * A real desktop notification: Xvfb, a private D-Bus session (dbus-run-session) and dunst as the
 * notification server, with a dunst rule that runs a script for every notification it shows. The hookd
 * daemon (the built CLI) runs inside that session with its default rules and the desktop channel.
 * Debian packages: xvfb dunst libnotify-bin dbus (dbus-run-session comes with dbus-daemon).
 */
const NEEDED = ['Xvfb', 'dunst', 'dbus-run-session', 'notify-send'];
const missing = NEEDED.filter((bin) => !findOnPath(bin, process.env.PATH));
const inCI = process.env.CI === 'true' || process.env.CI === '1';

describe.skipIf(missing.length > 0 && !inCI)(
  'desktop notification through a real notification server',
  () => {
    let session: ChildProcess | undefined;
    let temp: ReturnType<typeof tempEnv>;
    let received: string;

    beforeAll(async () => {
      if (missing.length > 0)
        throw new Error(`CI needs ${missing.join(', ')} (apt-get install xvfb dunst libnotify-bin dbus)`);
      ensureBuilt();
      temp = tempEnv();
      const root = temp.root;
      received = join(root, 'received.log');
      writeFileSync(
        join(root, 'record.sh'),
        `#!/bin/sh\nbody=$(printf '%s' "$3" | tr '\\n' '~')\nprintf '%s|%s|%s|%s\\n' "$1" "$2" "$body" "$5" >> ${received}\n`,
      );
      chmodSync(join(root, 'record.sh'), 0o755);
      writeFileSync(
        join(root, 'dunstrc'),
        // Nothing expires on its own: a notification leaves the screen only when closed.
        `[global]\n    font = Monospace 8\n[urgency_low]\n    timeout = 0\n[urgency_normal]\n    timeout = 0\n[record]\n    appname = "*"\n    script = ${root}/record.sh\n`,
      );
      writeFileSync(
        join(root, 'session.sh'),
        [
          `Xvfb -displayfd 3 -nolisten tcp -screen 0 640x480x24 3>${root}/display >${root}/xvfb.log 2>&1 &`,
          `for i in $(seq 100); do [ -s ${root}/display ] && break; sleep 0.1; done`,
          `export DISPLAY=:$(cat ${root}/display)`,
          `dunst -conf ${root}/dunstrc >${root}/dunst.log 2>&1 &`,
          // The session bus, for dunstctl in the tests.
          `printf '%s' "$DBUS_SESSION_BUS_ADDRESS" > ${root}/bus-address`,
          `exec "${process.execPath}" "${BIN}" daemon run`,
        ].join('\n'),
      );
      // Its own process group, so Xvfb, dunst, dbus-daemon and hookd all go when the group is killed.
      session = spawn('dbus-run-session', ['--', 'sh', join(root, 'session.sh')], {
        env: { ...temp.env } as NodeJS.ProcessEnv,
        detached: true,
        stdio: 'ignore',
      });
      await waitFor(
        () => existsSync(join(temp.env.HOOKD_RUNTIME_DIR!, 'hookd.sock')),
        30_000,
        'the daemon inside the D-Bus session',
      );
      await waitFor(
        async () => (await requestDaemon({ v: 1, type: 'ping' }, { env: temp.env })).ok,
        10_000,
        'ping',
      );
    }, 120_000);

    afterAll(async () => {
      if (session?.pid) {
        const gone = exited(session);
        const kill = (signal: NodeJS.Signals) => {
          try {
            process.kill(-session!.pid!, signal);
          } catch {}
        };
        kill('SIGTERM');
        const timer = setTimeout(() => kill('SIGKILL'), 5000);
        await gone;
        clearTimeout(timer);
        // The daemon (same group) writes its last log line on SIGTERM; let it finish before removing files.
        await waitFor(
          () => !existsSync(join(temp.env.HOOKD_RUNTIME_DIR!, 'hookd.pid')),
          5000,
          'daemon exit',
        ).catch(() => {});
        kill('SIGKILL');
      }
      temp?.cleanup();
    }, 30_000);

    it('the default rules put "finished" and "needs your permission" on the desktop, and dunst shows them', async () => {
      const status = await requestDaemon({ v: 1, type: 'status' }, { env: temp.env });
      const channels =
        (status.ok && (status.reply.status as { channels: { name: string; healthy: boolean }[] }).channels) ||
        [];
      expect(channels.find((c) => c.name === 'desktop')).toMatchObject({ healthy: true });

      await handOff(handoffOf(fixture('04-Notification.json')), { env: temp.env, timeoutMs: 5000 });
      await handOff(handoffOf(fixture('16-Stop.json')), { env: temp.env, timeoutMs: 5000 });
      const lines = await waitFor(
        () => {
          const text = existsSync(received) ? readFileSync(received, 'utf8').trim().split('\n') : [];
          return text.length >= 2 ? text : undefined;
        },
        30_000,
        'two notifications shown by dunst',
      );
      // The permission prompt waits out notify.waitingDelayMs (nothing answers it here), so it may come
      // second: find each by its summary.
      const shown = lines.map((line) => line.split('|'));
      const permission = shown.find((fields) => /permission/i.test(fields[1] ?? ''));
      const finished = shown.find((fields) => /finished/i.test(fields[1] ?? ''));
      // appname | summary | body | urgency, as dunst passed them to its script.
      expect(permission![0]).toBe('hookd');
      expect(permission![1]).toMatch(/permission/i);
      expect(permission![2]).toContain('demo');
      expect(permission![2]).toContain('Factory CLI needs permission to execute 1 tool(s)');
      expect(permission![3]).toBe('NORMAL');
      expect(finished![0]).toBe('hookd');
      expect(finished![1]).toMatch(/finished/i);
      expect(finished![1]).toContain('demo');
    });

    it('a "waiting" notification shown is closed when the session moves on (dunst moves it to its history)', async () => {
      const env = {
        ...process.env,
        DBUS_SESSION_BUS_ADDRESS: readFileSync(join(temp.root, 'bus-address'), 'utf8'),
      };
      const history = () => execFileSync('dunstctl', ['history'], { env, encoding: 'utf8' });
      const session = 'resolve-on-answer';
      const ask = handoffOf({
        ...fixture('04-Notification.json'),
        session_id: session,
        message: 'Answer me soon',
      });
      await handOff(ask, { env: temp.env, timeoutMs: 5000 });
      await waitFor(
        () => existsSync(received) && readFileSync(received, 'utf8').includes('Answer me soon'),
        30_000,
        'the waiting notification shown by dunst',
      );
      // Shown and never expiring: not in the history of closed notifications.
      expect(history()).not.toContain('Answer me soon');
      const answer = handoffOf({ ...fixture('05-PostToolUse-Execute.json'), session_id: session });
      await handOff(answer, { env: temp.env, timeoutMs: 5000 });
      await waitFor(() => history().includes('Answer me soon'), 30_000, 'the notification closed');
    });
  },
);

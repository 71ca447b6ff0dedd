import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { requestDaemon } from '../../src/link/client.js';
import { runProcess } from '../../src/process/run.js';
import { findOnPath } from '../../src/channels/desktop.js';
import { waitFor } from '../integration/daemon/helpers.js';
import { BIN, exited } from '../integration/daemon/process-helpers.js';

/**
 * A real desktop for the tests: Xvfb, a private D-Bus session (dbus-run-session) and dunst as the
 * notification server, with a dunst rule that runs a script for every notification it shows, and the
 * hookd daemon (the built CLI) inside that session. Debian packages: xvfb dunst libnotify-bin dbus.
 */
export const DESKTOP_NEEDED = ['Xvfb', 'dunst', 'dbus-run-session', 'notify-send'];

/**
 * A describe block whose tests need programs on PATH (`needed`, from the Debian `packages`). With them,
 * `body` runs. Without them the block holds one test that says what is missing: skipped on a
 * developer's machine, failing in CI (CI=true or 1), so a CI that lacks them is never green by skipping.
 */
export function describeNeeding(
  needed: readonly string[],
  packages: string,
  title: string,
  body: () => void,
): void {
  const missing = needed.filter((bin) => !findOnPath(bin, process.env.PATH));
  const inCI = process.env.CI === 'true' || process.env.CI === '1';
  const why = `${missing.join(', ')} not installed (apt-get install ${packages})`;
  describe(title, () => {
    if (missing.length === 0) body();
    else if (inCI)
      it(`CI needs ${missing.join(', ')}`, () => {
        throw new Error(`CI needs ${why}`);
      });
    else it.skip(`NOT RUN: ${why}`, () => {});
  });
}

/** A describe block whose tests need the desktop of `startDesktopSession` (DESKTOP_NEEDED). */
export function describeWithDesktop(title: string, body: () => void): void {
  describeNeeding(DESKTOP_NEEDED, 'xvfb dunst libnotify-bin dbus', title, body);
}

/** One notification dunst showed: appname, summary, body (newlines as `~`), urgency. */
export interface Shown {
  app: string;
  summary: string;
  body: string;
  urgency: string;
}

export interface DesktopSession {
  /** What dunst has shown so far, in order. */
  shown(): Shown[];
  /** The session's D-Bus address (for dunstctl). */
  busAddress(): string;
  /**
   * Presses the action `key` of the first notification showing it (whose summary is `summary`, when
   * given), the way a user picks it from dunst's context menu (`dunstctl context`, with a dmenu stand-in
   * that picks the matching line). Resolves with the menu dunst offered.
   */
  chooseAction(key: string, summary?: string): Promise<string>;
  /** How many notifications dunst shows now. */
  displayed(): Promise<number>;
  /** Kills the session's process group (Xvfb, dunst, dbus-daemon, hookd) by its PID and waits for hookd. */
  stop(): Promise<void>;
}

/**
 * Starts the session in `root` (its files go there) with hookd's `env` (HOOKD_RUNTIME_DIR set); resolves
 * once the daemon inside answers a ping. `daemon: false`: no hookd inside (a test runs its own code
 * against the session's bus); resolves once dunst answers on it.
 */
export async function startDesktopSession(
  root: string,
  env: Record<string, string | undefined>,
  options: { daemon?: boolean } = {},
): Promise<DesktopSession> {
  const daemon = options.daemon ?? true;
  const received = join(root, 'received.log');
  writeFileSync(
    join(root, 'record.sh'),
    `#!/bin/sh\nbody=$(printf '%s' "$3" | tr '\\n' '~')\nprintf '%s|%s|%s|%s\\n' "$1" "$2" "$body" "$5" >> ${received}\n`,
  );
  chmodSync(join(root, 'record.sh'), 0o755);
  writeFileSync(
    join(root, 'dunstrc'),
    // Nothing expires on its own: a notification leaves the screen only when closed.
    `[global]\n    font = Monospace 8\n    dmenu = ${root}/pick.sh\n[urgency_low]\n    timeout = 0\n[urgency_normal]\n    timeout = 0\n[urgency_critical]\n    timeout = 0\n[record]\n    appname = "*"\n    script = ${root}/record.sh\n`,
  );
  // dunst's context menu: takes the menu on stdin, prints the line the test chose (chooseAction).
  writeFileSync(
    join(root, 'pick.sh'),
    `#!/bin/sh\ncat > ${root}/menu.new\ngrep -F -- "$(cat ${root}/choice-summary)" ${root}/menu.new | grep -F -m1 -- "$(cat ${root}/choice-key)"\nmv ${root}/menu.new ${root}/menu\n`,
  );
  chmodSync(join(root, 'pick.sh'), 0o755);
  writeFileSync(
    join(root, 'session.sh'),
    [
      `Xvfb -displayfd 3 -nolisten tcp -screen 0 640x480x24 3>${root}/display >${root}/xvfb.log 2>&1 &`,
      `for i in $(seq 100); do [ -s ${root}/display ] && break; sleep 0.1; done`,
      `export DISPLAY=:$(cat ${root}/display)`,
      `dunst -conf ${root}/dunstrc >${root}/dunst.log 2>&1 &`,
      // The session bus, for dunstctl in the tests.
      `printf '%s' "$DBUS_SESSION_BUS_ADDRESS" > ${root}/bus-address`,
      daemon ? `exec "${process.execPath}" "${BIN}" daemon run` : 'wait',
    ].join('\n'),
  );
  // Its own process group, so Xvfb, dunst, dbus-daemon and hookd all go when the group is killed.
  const session: ChildProcess = spawn('dbus-run-session', ['--', 'sh', join(root, 'session.sh')], {
    env: { ...env } as NodeJS.ProcessEnv,
    detached: true,
    stdio: 'ignore',
  });
  const runtime = env.HOOKD_RUNTIME_DIR!;
  const stop = async () => {
    if (!session.pid) return;
    const gone = exited(session);
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-session.pid!, signal);
      } catch {}
    };
    kill('SIGTERM');
    const timer = setTimeout(() => kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(timer);
    // The daemon (same group) writes its last log line on SIGTERM; let it finish before removing files.
    if (daemon)
      await waitFor(() => !existsSync(join(runtime, 'hookd.pid')), 5000, 'daemon exit').catch(() => {});
    kill('SIGKILL');
  };
  const busAddress = () => readFileSync(join(root, 'bus-address'), 'utf8');
  const dunstctl = async (...args: string[]) => {
    const ran = await runProcess({
      command: ['dunstctl', ...args],
      env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: busAddress() },
      timeoutMs: 10_000,
      killGraceMs: 500,
      maxOutputBytes: 64 * 1024,
    });
    if (ran.exitCode !== 0) throw new Error(`dunstctl ${args.join(' ')}: ${ran.stderr.text() || ran.signal}`);
    return ran.stdout.text();
  };
  const displayed = async () => Number((await dunstctl('count', 'displayed')).trim());
  try {
    if (!daemon) {
      await waitFor(() => existsSync(join(root, 'bus-address')), 30_000, 'the D-Bus session');
      await waitFor(
        () =>
          displayed().then(
            () => true,
            () => false,
          ),
        30_000,
        'dunst on the session bus',
      );
    } else {
      await waitFor(
        () => existsSync(join(runtime, 'hookd.sock')),
        30_000,
        'the daemon inside the D-Bus session',
      );
      await waitFor(async () => (await requestDaemon({ v: 1, type: 'ping' }, { env })).ok, 10_000, 'ping');
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    shown: () =>
      (existsSync(received) ? readFileSync(received, 'utf8').split('\n') : []).filter(Boolean).map((line) => {
        const [app = '', summary = '', body = '', urgency = ''] = line.split('|');
        return { app, summary, body, urgency };
      }),
    busAddress,
    displayed,
    async chooseAction(key, summary) {
      rmSync(join(root, 'menu'), { force: true });
      // A menu line reads `#Deny (summary) [id,deny]`.
      writeFileSync(join(root, 'choice-summary'), summary === undefined ? '' : `(${summary}) [`);
      writeFileSync(join(root, 'choice-key'), `,${key}]`);
      await dunstctl('context');
      await waitFor(() => existsSync(join(root, 'menu')), 10_000, "dunst's context menu");
      return readFileSync(join(root, 'menu'), 'utf8');
    },
    stop,
  };
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { createPresenceProbe, type PresenceReading } from '../../../src/notify/presence.js';
import { checkPresence } from '../../../src/doctor/checks/notify/check-presence.js';
import { readDaemonView } from '../../../src/doctor/checks/daemon/daemon-view.js';
import { notifySettings } from '../../../src/config/schemas/notify-schema.js';
import { isProcessAlive } from '../../../src/util/pid-lock.js';
import { writeExecutable } from '../doctor/doctor-env.js';
import { runCli } from '../../helpers/cli-run.js';
import { describeNeeding } from '../../helpers/desktop-session.js';
import { runProbe } from '../../../src/process/probe.js';
import { tempEnv, waitFor } from './helpers.js';
import { exited, spawnDaemon, useProcessCleanup, writeConfig } from './process-helpers.js';

/**
 * Presence under a real X server: Xvfb, the real xprintidle reading its idle time, xdotool moving the
 * pointer as a person would. Debian packages: xvfb xprintidle xdotool (.ci/run installs them).
 */

const { pids, cleanups } = useProcessCleanup();

/**
 * Starts Xvfb on a free display (it writes the number to fd 3) in a process group of its own. -noreset: by
 * default the server regenerates when its last client disconnects, which resets the idle time after each
 * xprintidle run (a real desktop always has clients connected).
 */
async function startXvfb(): Promise<{ child: ChildProcess; display: string }> {
  const child = spawn(
    'Xvfb',
    ['-displayfd', '3', '-nolisten', 'tcp', '-noreset', '-screen', '0', '640x480x24'],
    {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  let text = '';
  const display = await new Promise<string>((resolve, reject) => {
    (child.stdio[3] as Readable).on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(`:${text.trim()}`);
    });
    child.once('exit', (code) => reject(new Error(`Xvfb exited with ${code}: ${stderr}`)));
  });
  return { child, display };
}

const NEEDED = ['Xvfb', 'xprintidle', 'xdotool'];

describeNeeding(NEEDED, 'xvfb xprintidle xdotool', 'presence under Xvfb with the real xprintidle', () => {
  let xvfb: ChildProcess | undefined;
  let display = '';
  let temp: ReturnType<typeof tempEnv>;
  let x11: Record<string, string | undefined>;
  let corner = 0;
  /** A person moving the pointer (to a new place each time, so it is real motion). */
  const moveMouse = () => {
    corner = (corner + 1) % 4;
    const ran = spawnSync('xdotool', ['mousemove', String(10 + corner * 50), String(10 + corner * 40)], {
      env: x11 as NodeJS.ProcessEnv,
    });
    expect(ran.status).toBe(0);
  };

  beforeAll(async () => {
    temp = tempEnv();
    ({ child: xvfb, display } = await startXvfb());
    x11 = { PATH: process.env.PATH, DISPLAY: display };
  }, 60_000);

  afterAll(async () => {
    if (xvfb?.pid) {
      const gone = exited(xvfb);
      try {
        process.kill(-xvfb.pid, 'SIGKILL');
      } catch {}
      await gone;
    }
    temp?.cleanup();
  });

  it('detects xprintidle; idle grows past the threshold without input, and a pointer move makes it active', async () => {
    let clock = 0;
    const probe = createPresenceProbe({
      env: x11,
      now: () => clock,
      thresholdMs: 400,
      source: 'auto',
    });
    expect(await probe.detect()).toEqual({ source: 'xprintidle', skipped: [] });
    moveMouse();
    const idle = await waitFor(
      async () => {
        clock += 5000; // past the 2 s cache of the injected clock: every read runs xprintidle
        const reading = await probe.read();
        return reading.state === 'idle' ? reading : undefined;
      },
      30_000,
      'an idle reading',
    );
    expect(idle.source).toBe('xprintidle');
    expect(idle.idleMs).toBeGreaterThanOrEqual(400);
    // A person moves the pointer: the idle time starts again and the reading is active.
    const active = await waitFor(
      async () => {
        moveMouse();
        clock += 5000;
        const reading = await probe.read();
        return reading.state === 'active' ? reading : undefined;
      },
      30_000,
      'an active reading after xdotool mousemove',
    );
    expect(active.idleMs).toBeLessThan(idle.idleMs!);
  });

  it('without DISPLAY, detection says why and the reading is unknown, never a guess', async () => {
    const probe = createPresenceProbe({
      env: { PATH: process.env.PATH },
      thresholdMs: 400,
      source: 'xprintidle',
    });
    expect(await probe.detect()).toEqual({
      source: 'none',
      skipped: [{ source: 'xprintidle', reason: 'no DISPLAY (the daemon does not run in an X11 session)' }],
    });
    expect(await probe.read()).toMatchObject({ state: 'unknown', source: 'none' });
    const doctor = await checkPresence({
      env: { PATH: process.env.PATH },
      platform: 'linux',
      notify: notifySettings({ presence: { source: 'xprintidle' } }),
      view: await readDaemonView(temp.env, 500),
    });
    expect(doctor).toMatchObject({ id: 'presence', status: 'skip' });
    expect(doctor.detail).toContain('xprintidle: no DISPLAY');
  });

  it('a probe that hangs reads unknown after its deadline and is killed; the reads never wait longer', async () => {
    // A fake xprintidle first on PATH: it answers once (detection), then hangs in `sleep`.
    const bin = join(temp.root, 'hang-bin');
    mkdirSync(bin, { recursive: true });
    const state = join(temp.root, 'hang-state');
    writeExecutable(
      join(bin, 'xprintidle'),
      `#!/bin/sh\necho $$ >> "${state}.pids"\nif [ -e "${state}" ]; then exec sleep 600; fi\n: > "${state}"\necho 5\n`,
    );
    let clock = 0;
    const probe = createPresenceProbe({
      env: { PATH: `${bin}:${process.env.PATH}`, DISPLAY: display },
      now: () => clock,
      thresholdMs: 400,
      source: 'auto',
      timeoutMs: 300,
    });
    expect(await probe.read()).toEqual({ state: 'active', idleMs: 5, source: 'xprintidle' });
    clock += 5000;
    const [first, second] = await Promise.all([probe.read(), probe.read()]);
    expect(first).toEqual({
      state: 'unknown',
      source: 'xprintidle',
      reason: 'xprintidle did not answer within 300 ms',
    });
    expect(second).toEqual(first);
    const started = readFileSync(`${state}.pids`, 'utf8').trim().split('\n').map(Number);
    // Two runs: detection's, then one shared by both reads; the hung one is killed with its group.
    expect(started).toHaveLength(2);
    pids.push(started[1]!);
    await waitFor(() => !isProcessAlive(started[1]!), 10_000, 'the hung probe killed');
  });

  it('the daemon uses it: hookd status --json shows the source and the last reading, hookd doctor the same', async () => {
    const env = { ...temp.env, DISPLAY: display };
    writeConfig(env, { notify: { channels: {}, rules: [], presence: { idleAfterMs: 400 } } });
    const daemon = await spawnDaemon(env);
    pids.push(daemon.pid!);
    cleanups.push(async () => {
      daemon.kill('SIGTERM');
      await exited(daemon);
    });
    moveMouse();
    const status = await waitFor(
      async () => {
        const ran = await runCli(['status', '--json'], { env: env as Record<string, string> });
        const presence = (
          JSON.parse(ran.stdout) as { daemon: { stats?: { presence?: Record<string, unknown> } } }
        ).daemon.stats?.presence;
        return presence?.detection && presence.last ? presence : undefined;
      },
      30_000,
      'the daemon detecting presence',
    );
    expect(status).toMatchObject({
      setting: 'auto',
      idleAfterMs: 400,
      detection: { source: 'xprintidle', skipped: [] },
      last: { source: 'xprintidle', state: expect.stringMatching(/^(active|idle)$/) },
    });
    expect((status.last as PresenceReading).idleMs).toBeGreaterThanOrEqual(0);
    const people = await runCli(['status'], { env: env as Record<string, string> });
    expect(people.stdout).toMatch(/^presence: xprintidle, (active|idle) \(idle .*\), read /m);

    // The doctor reports the daemon's own detection (its environment is the one that counts).
    const doctor = await checkPresence({
      env: { PATH: process.env.PATH },
      platform: 'linux',
      notify: notifySettings({ presence: { idleAfterMs: 400 } }),
      view: await readDaemonView(env, 2000),
    });
    expect(doctor).toMatchObject({ id: 'presence', status: 'ok' });
    expect(doctor.detail).toMatch(/^the running daemon: xprintidle, (active|idle)/);
  });
});

describe('runProbe: a short-lived probe, no shell', () => {
  it('keeps at most maxBytes of its output, gives its exit code and stderr, says why it could not start', async () => {
    const env = { PATH: process.env.PATH };
    const big = await runProbe('head', ['-c', '1000000', '/dev/zero'], {
      env,
      timeoutMs: 30_000,
      maxBytes: 1000,
    });
    expect(big).toMatchObject({ code: 0, timedOut: false });
    expect(big.stdout).toHaveLength(1000);
    const failed = await runProbe('ls', ['/nonexistent-hookd-dir'], {
      env,
      timeoutMs: 30_000,
      maxBytes: 1000,
    });
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain('nonexistent-hookd-dir');
    const absent = await runProbe('/nonexistent-hookd-probe', [], { env, timeoutMs: 30_000, maxBytes: 1000 });
    expect(absent).toMatchObject({ code: null, timedOut: false, error: expect.stringContaining('ENOENT') });
  });
});

import { describe, expect, it } from 'vitest';
import { handOff } from '../../../src/link/client.js';
import { liveSessions } from '../../../src/daemon/admin.js';
import { daemonFiles, readPidFile } from '../../../src/link/runtime-files.js';
import type { SessionState } from '../../../src/notify/session-state.js';
import { runCli } from '../../helpers/cli-run.js';
import { fixture, handoffOf, tempEnv, waitFor } from './helpers.js';
import { killQuietly, spawnDaemon, stopDaemon, writeConfig, useProcessCleanup } from './process-helpers.js';

const { pids, cleanups } = useProcessCleanup();

const MAIN = '48e23316-6280-4a11-966d-13493854823f';
const SUB = '9414a522-3430-47b5-9f03-3dfadc677129';

describe('session states in the daemon', () => {
  it('hookd sessions --live and hookd status show them, and they survive a restart', async () => {
    const temp = tempEnv();
    cleanups.push(temp.cleanup);
    cleanups.push(() => killQuietly(readPidFile(daemonFiles(temp.env).lock)));
    writeConfig(temp.env, { notify: { channels: {}, rules: [] } });
    const start = async () => {
      const child = await spawnDaemon(temp.env);
      pids.push(child.pid!);
      return child;
    };
    const send = async (file: string) =>
      expect((await handOff(handoffOf(fixture(file)), { env: temp.env, timeoutMs: 5000 })).outcome).toBe(
        'acked',
      );
    const phaseOf = async (id: string) => (await liveSessions(temp.env))?.find((s) => s.id === id);

    let daemon = await start();
    // The recorded Droid jsonrpc session up to its permission ask, with its sub-agent run to the end.
    for (const file of [
      '01-SessionStart-startup.json',
      '02-UserPromptSubmit.json',
      '03-PreToolUse-Execute.json',
    ])
      await send(file);
    for (const file of [
      '10-SessionStart-startup.json',
      '11-UserPromptSubmit.json',
      '12-Stop.json',
      '13-SessionEnd.json',
    ])
      await send(file);
    await send('04-Notification.json');
    await waitFor(async () => (await phaseOf(MAIN))?.transition === 'permission-ask', 10_000, 'the ask');
    expect(await phaseOf(MAIN)).toMatchObject({ phase: 'waiting', waitingFor: 'permission', agent: 'droid' });
    expect(await phaseOf(SUB)).toMatchObject({ phase: 'ended', transition: 'session-end', parent: MAIN });

    const env = temp.env as Record<string, string>;
    const live = await runCli(['sessions', '--live', '--json'], { env });
    expect(live.code).toBe(0);
    expect((JSON.parse(live.stdout) as SessionState[]).map((s) => [s.id, s.phase, s.waitingFor])).toEqual([
      [MAIN, 'waiting', 'permission'],
    ]);
    const table = await runCli(['sessions', '--live', '--once'], { env });
    expect(table.stdout).toContain('waiting (permission)');
    const status = await runCli(['status', '--json'], { env });
    expect((JSON.parse(status.stdout) as { sessions: SessionState[] }).sessions.map((s) => s.id)).toEqual([
      MAIN,
    ]);
    expect((await runCli(['status'], { env })).stdout).toContain('live sessions: 1');

    await stopDaemon(daemon);
    daemon = await start();
    expect(await phaseOf(MAIN)).toMatchObject({ phase: 'waiting', waitingFor: 'permission' });
    await send('05-PostToolUse-Execute.json');
    await waitFor(async () => (await phaseOf(MAIN))?.phase === 'working', 10_000, 'working again');
    await stopDaemon(daemon);

    const down = await runCli(['sessions', '--live'], { env });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('the daemon is not running');
  });
});

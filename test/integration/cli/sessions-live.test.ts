import { spawn } from 'node:child_process';
import { beforeEach, describe, expect, it } from 'vitest';
import { HOOKD_BIN } from '../../helpers/fixtures.js';
import { useCliSandbox } from '../../helpers/cli-sandbox.js';
import { waitFor } from '../../helpers/procs.js';
import { runCli } from '../../helpers/cli-run.js';
import { runHookd } from '../../helpers/run-hookd.js';

// `hookd sessions --live` refreshes until Ctrl-C, like top (a real process, for the signal); `--once`
// prints one frame and exits.

const box = useCliSandbox({ HOOKD_DAEMON: '1' });

beforeEach(async () => {
  const started = await runHookd(['daemon', 'start'], { env: box.env });
  expect(started.code, started.stderr).toBe(0);
  const status = JSON.parse((await runCli(['status', '--json'], { env: box.env })).stdout) as {
    daemon: { stats: { pid: number } };
  };
  box.pids.push(status.daemon.stats.pid);
});

const FRAME = /^live sessions: \d+ +\(\d\d:\d\d:\d\d/gm;

describe('hookd sessions --live', () => {
  it('prints a new frame on each refresh until Ctrl-C, then exits 0', async () => {
    const first = await runCli(['emit', 'UserPromptSubmit', '--session', 'live-one'], { env: box.env });
    expect(first.code, first.stderr).toBe(0);
    const child = spawn(process.execPath, [HOOKD_BIN, 'sessions', '--live', '--interval', '0.1'], {
      env: box.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    box.pids.push(child.pid!);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(await waitFor(() => (stdout.match(FRAME) ?? []).length >= 2, 400)).toBe(true);
    expect(stdout).toContain('live-one');
    // A session that starts meanwhile shows up in a later frame.
    const second = await runCli(['emit', 'UserPromptSubmit', '--session', 'live-two'], { env: box.env });
    expect(second.code).toBe(0);
    const seen = stdout.length;
    expect(await waitFor(() => stdout.slice(seen).includes('live-two'), 400)).toBe(true);
    child.kill('SIGINT');
    expect(await closed).toBe(0);
    expect(stderr).toBe('');
  });

  it('--once prints one frame and exits', async () => {
    await runCli(['emit', 'UserPromptSubmit', '--session', 'live-one'], { env: box.env });
    const once = await runCli(['sessions', '--live', '--once'], { env: box.env });
    expect(once.code, once.stderr).toBe(0);
    expect(once.stdout.match(FRAME)).toHaveLength(1);
    expect(once.stdout).toContain('live-one');
  });
});

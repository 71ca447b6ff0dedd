import { afterEach, describe, expect, it } from 'vitest';
import { handOff } from '../../../src/link/client.js';
import { runHookd } from '../../helpers/run-hookd.js';
import { runCli } from '../../helpers/cli-run.js';
import { fixture, handoffOf, loopbackServer, tempEnv, waitFor } from './helpers.js';
import { ensureBuilt, killQuietly, spawnDaemon, writeConfig } from './process-helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('one log record format for the hook and the daemon', () => {
  it('hookd logs shows both with their times, in time order, and the event name is not shadowed', async () => {
    ensureBuilt();
    const t = tempEnv();
    cleanups.push(t.cleanup);
    const hook = await loopbackServer();
    cleanups.push(hook.close);
    writeConfig(t.env, {
      notify: {
        channels: { ops: { type: 'webhook', url: `${hook.url}/hook` } },
        rules: [{ on: ['Stop'], channels: ['ops'] }],
      },
    });
    const env = Object.fromEntries(Object.entries(t.env).filter(([, v]) => v !== undefined)) as Record<
      string,
      string
    >;
    await runHookd(['hook'], {
      env: { ...env, HOOKD_DAEMON: '0' },
      stdin: JSON.stringify({ ...fixture('12-Stop.json'), cwd: t.root }),
    });
    const daemon = await spawnDaemon(t.env);
    cleanups.push(() => killQuietly(daemon.pid));
    expect((await handOff(handoffOf(fixture('16-Stop.json')), { env: t.env, timeoutMs: 5000 })).outcome).toBe(
      'acked',
    );
    await waitFor(() => hook.received.length > 0, 10_000, 'the webhook');

    const json = await runCli(['logs', '--json', '-n', '0'], { env });
    const records = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.every((r) => typeof r.time === 'number')).toBe(true);
    const times = records.map((r) => r.time as number);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(new Set(records.map((r) => r.proc))).toEqual(new Set(['hook', 'daemon']));
    const evaluated = records.find((r) => r.msg === 'rules evaluated');
    expect(evaluated?.event).toBe('Stop');
    expect(evaluated?.proc).toBe('daemon');

    const text = await runCli(['logs', '-n', '0'], { env: { ...env, NO_COLOR: '1' } });
    expect(text.stdout).not.toContain('--:--:--.---');
  });
});

import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { killHard } from '../../helpers/procs.js';
import { runHookd } from '../../helpers/run-hookd.js';
import { runCli } from '../../helpers/cli-run.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';
import { loopbackServer, waitFor } from '../daemon/helpers.js';

// A channel whose every delivery fails, as a user sees it: `hookd logs` says why, `hookd status` says
// the channel is failing (its static check alone says "ok": the URL is well formed, nothing is missing).

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let server: Awaited<ReturnType<typeof loopbackServer>>;
let daemonPid: number | undefined;

beforeEach(async () => {
  tmp = makeTempDir();
  server = await loopbackServer(() => ({ status: 500, body: 'upstream is down' }));
  env = isolatedEnv(tmp.dir, { NO_COLOR: '1', HOOKD_DAEMON: '1', COLUMNS: '200' });
});
afterEach(async () => {
  killHard(daemonPid);
  daemonPid = undefined;
  await server.close();
  tmp.cleanup();
});

interface ChannelRow {
  name: string;
  lastError?: string;
  delivered: number;
}

async function channel(name: string): Promise<ChannelRow | undefined> {
  const status = await runCli(['status', '--json'], { env });
  const report = JSON.parse(status.stdout) as {
    daemon: { running: boolean; stats?: { pid: number; channels: ChannelRow[] } };
  };
  daemonPid = report.daemon.stats?.pid ?? daemonPid;
  return report.daemon.stats?.channels.find((c) => c.name === name);
}

describe('a channel whose deliveries fail', () => {
  it('hookd logs shows why, and hookd status shows the channel failing', async () => {
    writeFileSync(
      env.HOOKD_CONFIG!,
      JSON.stringify({
        notify: {
          defaults: false,
          channels: { team: { type: 'webhook', url: `${server.url}/hook` } },
          rules: [{ on: ['Stop'], channels: ['team'] }],
        },
      }),
    );
    const started = await runHookd(['daemon', 'start'], { env });
    expect(started.code, started.stderr).toBe(0);
    await channel('team');
    expect((await runCli(['emit', 'Stop'], { env })).code).toBe(0);
    await waitFor(async () => (await channel('team'))?.lastError, 20_000, 'a failed delivery');

    const logs = await runCli(['logs', '--level', 'warn'], { env });
    expect(logs.code).toBe(0);
    const failure = logs.stdout.split('\n').find((l) => l.includes('delivery failed'));
    expect(failure).toContain('channel=team');
    expect(failure).toContain('answered HTTP 500: upstream is down');

    const status = await runCli(['status'], { env });
    const row = status.stdout.split('\n').find((l) => l.startsWith('team '));
    expect(row).toMatch(/^team +webhook \S+ +failing /);
    expect(row).toContain('answered HTTP 500');
    const json = await channel('team');
    expect(json).toMatchObject({ delivered: 0, state: 'failing' });
  });
});

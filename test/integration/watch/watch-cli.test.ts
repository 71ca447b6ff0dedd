import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { runCli } from '../../helpers/cli-run.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';
import { startSimulator, type Simulator } from '../../../src/platform-api/simulator/index.js';
import { Daemon } from '../../../src/daemon/lifecycle/daemon.js';
import { PlatformClient } from '../../../src/platform-api/api-client.js';
import { watchSettings } from '../../../src/config/schemas/watch-schema.js';
import { ManualTimers } from '../../helpers/manual-timers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(config: Record<string, unknown>) {
  const temp = makeTempDir('hkd-watch-');
  cleanups.push(temp.cleanup);
  const sim: Simulator = await startSimulator({ seed: 'watch-cli' });
  cleanups.push(() => sim.close());
  const env = isolatedEnv(temp.dir, {
    HOOKD_API_URL: sim.baseUrl,
    HOOKD_APP_URL: sim.appUrl,
    HOOKD_API_KEY: sim.keys.owner,
  });
  mkdirSync(dirname(env.HOOKD_CONFIG!), { recursive: true });
  writeFileSync(env.HOOKD_CONFIG!, JSON.stringify(config));
  return { env, sim };
}

describe('hookd watch', () => {
  it('list shows each watcher, on or off, and what the daemon saved', async () => {
    const { env, sim } = await setup({ watch: { members: { enabled: true, interval: '15m' } } });
    const before = await runCli(['watch', 'list', '--json'], { env });
    expect(before.code).toBe(0);
    const listing = JSON.parse(before.stdout) as { watchers: { name: string; status: string }[] };
    expect(listing.watchers.map((w) => [w.name, w.status])).toEqual([
      ['credits', 'off'],
      ['computers', 'off'],
      ['controls', 'off'],
      ['readiness', 'off'],
      ['members', 'new'],
    ]);
    // A daemon polls once: list shows it.
    const clock = { now: Date.now() };
    const daemon = new Daemon({
      env,
      config: { notify: {} },
      watchConfig: false,
      now: () => clock.now,
      watch: {
        config: watchSettings({ members: { enabled: true, interval: '15m' } }),
        client: new PlatformClient({ baseUrl: sim.baseUrl, appUrl: sim.appUrl, apiKey: sim.keys.owner }),
        timers: new ManualTimers(clock),
      },
    });
    await daemon.start();
    try {
      await daemon.watchers!.pollNow('members');
    } finally {
      await daemon.close();
    }
    const after = await runCli(['watch', 'list'], { env });
    expect(after.stdout).toMatch(/^members\s+ok\s+15m00s\s+\S+ ago\s+in 1[45]m\d\ds\s+0\s+42 member\(s\)$/m);
    expect(after.stdout).toMatch(/^credits\s+off\s/m);

    // test: from the saved state, what would be raised now; nothing saved.
    sim.script.addMember('new.one@acme.example');
    const tested = await runCli(['watch', 'test', 'members'], { env });
    expect(tested.code).toBe(0);
    expect(tested.stdout).toContain(
      'would raise member-joined: new.one@acme.example joined the organization',
    );
    const again = await runCli(['watch', 'test', 'members', '--json'], { env });
    expect(JSON.parse(again.stdout)).toMatchObject([
      { watcher: 'members', ok: true, wouldRaise: [{ kind: 'member-joined' }] },
    ]);
  });

  it('test takes a baseline without saved state, and names an unknown watcher as a usage error', async () => {
    const { env } = await setup({});
    const first = await runCli(['watch', 'test', 'computers'], { env });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^computers: \d+ computer\(s\)/m);
    expect(first.stdout).toContain('takes a baseline');
    const none = await runCli(['watch', 'test'], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no watcher is turned on');
    const bad = await runCli(['watch', 'explain', 'nope'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('the watchers are credits, computers, controls, readiness, members');
  });

  it('test reports a 403 of a key without the role, with exit 1', async () => {
    const { env, sim } = await setup({ watch: { credits: { enabled: true, orgLimit: 1000 } } });
    const member = await runCli(['watch', 'test'], { env: { ...env, HOOKD_API_KEY: sim.keys.member } });
    expect(member.code).toBe(1);
    expect(member.stdout).toMatch(/^credits: failed: .*403/m);
  });

  it('explain says what a watcher raises and which rules route it', async () => {
    const { env } = await setup({
      watch: { credits: { enabled: true, orgLimit: 5000, thresholds: [80, 100] } },
      notify: {
        channels: { ops: { type: 'webhook', url: 'http://127.0.0.1:9/x' } },
        rules: [
          {
            name: 'credits to ops',
            on: 'PlatformWatch',
            notificationType: 'credit-usage',
            channels: ['ops'],
          },
          { name: 'agents', on: 'Stop', channels: ['ops'] },
        ],
      },
    });
    const text = await runCli(['watch', 'explain', 'credits'], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('credits: on, every 1h');
    expect(text.stdout).toContain('crosses 80%, 100% of it');
    expect(text.stdout).toContain('Organization limit: 5000 credits a month.');
    expect(text.stdout).toContain('credit-usage: notified by rule(s) credits to ops');
    expect(text.stdout).toContain('watch-summary: no notify rule matches it');
    // No rule of the user's routes PlatformWatch: the built-in one does while a watcher is on.
    const { env: bare } = await setup({
      watch: { members: { enabled: true } },
      notify: { rules: [{ name: 'agents', on: 'Stop', channels: ['desktop'] }] },
    });
    const builtIn = await runCli(['watch', 'explain', 'members'], { env: bare });
    expect(builtIn.stdout).toContain(
      'member-joined: notified by the built-in rule "default: platform watch"',
    );
    const json = JSON.parse((await runCli(['watch', 'explain', 'members', '--json'], { env })).stdout);
    expect(json).toMatchObject({
      watcher: 'members',
      enabled: false,
      routes: [{ kind: 'member-joined', rules: [] }, { kind: 'member-left' }, { kind: 'watch-summary' }],
    });
  });
});

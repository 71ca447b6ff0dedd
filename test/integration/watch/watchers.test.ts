import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, statSync } from 'node:fs';
import { watchStatePath } from '../../../src/watch/state-file.js';
import type { Simulator } from '../../../src/platform-api/simulator/index.js';
import type { WatcherName } from '../../../src/config/schemas/watch-schema.js';
import { waitFor } from '../daemon/helpers.js';
import { watchSetup } from './helpers.js';
import { runCli } from '../../helpers/cli-run.js';
import { checkWatch } from '../../../src/doctor/checks/watch/check-watch.js';
import { readDaemonView } from '../../../src/doctor/checks/daemon/daemon-view.js';
import { notifySettings } from '../../../src/config/schemas/notify-schema.js';

type Setup = Awaited<ReturnType<typeof watchSetup>>;
const setups: Setup[] = [];
afterEach(async () => {
  for (const s of setups.splice(0)) await s.close();
});

async function setup(
  watch: Record<string, unknown>,
  key?: 'owner' | 'manager' | 'member',
  notifyFor?: (url: string) => Record<string, unknown>,
) {
  const s = await watchSetup(watch, key, notifyFor);
  setups.push(s);
  return s;
}

const owner = (sim: Simulator) => sim.state.users.find((u) => u.role === 'Owner')!;

interface Case {
  name: WatcherName;
  settings?: Record<string, unknown>;
  change: (sim: Simulator) => void;
  title: RegExp;
  body: RegExp;
}

const CASES: Case[] = [
  {
    name: 'credits',
    settings: { orgLimit: 100_000_000 },
    change: (sim) => sim.script.addUsage(owner(sim).loginEmail, 92_000_000),
    title: /^Organization credits at 90% of the monthly limit$/,
    body: /^\d+ of 100000000 standard credits used in 2026-11 \(9\d(\.\d)?%\)\.$/,
  },
  {
    name: 'computers',
    change: (sim) => {
      const active = sim.state.computers.find((c) => c.steps.every((s) => !s.failWith))!;
      sim.script.setComputerStatus(active.id, 'error');
    },
    title: /^Computer .+ is error$/,
    body: /went from (active|provisioning) to error/,
  },
  {
    name: 'controls',
    change: (sim) => void sim.script.changeControls({ sessionRetentionDays: 7 }),
    title: /^Enterprise controls changed by /,
    body: /^Revision 46 at .*Changed: sessionRetentionDays\.$/,
  },
  {
    name: 'readiness',
    change: (sim) => void sim.script.addReadinessReport('https://github.com/acme/fresh', 3, 4),
    title: /^Readiness of https:\/\/github\.com\/acme\/fresh: 75%$/,
    body: /first report of this repository/,
  },
  {
    name: 'members',
    change: (sim) => void sim.script.addMember('new.person@acme.example'),
    title: /^new\.person@acme\.example joined the organization$/,
    body: /new member/,
  },
];

describe('platform watchers against the simulator', () => {
  for (const c of CASES) {
    it(`${c.name}: the scripted change raises exactly one notification, a restart none again`, async () => {
      const s = await setup({ [c.name]: { enabled: true, ...c.settings } });
      // The first poll takes a baseline: nothing to tell.
      const baseline = await s.poll(c.name);
      expect(baseline).toMatchObject({ ok: true, raised: [] });
      c.change(s.sim);
      const changed = await s.poll(c.name);
      expect(changed.ok).toBe(true);
      expect(changed.raised).toHaveLength(1);
      expect(s.received()).toHaveLength(1);
      const [note] = s.received();
      expect(note!.event).toBe('PlatformWatch');
      expect(note!.title).toMatch(c.title);
      expect(note!.body).toMatch(c.body);
      // Polled again, and after a restart: the change was told once.
      expect((await s.poll(c.name)).raised).toEqual([]);
      await s.restart();
      expect((await s.poll(c.name)).raised).toEqual([]);
      expect(s.received()).toHaveLength(1);
    });
  }

  it('notifies through the built-in rule when no rule of the user routes PlatformWatch', async () => {
    // The default channel is the first desktop channel, else the one named "desktop": here a webhook.
    const s = await setup({ members: { enabled: true } }, undefined, (url) => ({
      channels: { desktop: { type: 'webhook', url } },
      rules: [{ name: 'agents', on: 'Stop', channels: ['desktop'] }],
    }));
    await s.poll('members');
    s.sim.script.addMember('new.person@acme.example');
    expect((await s.poll('members')).raised).toHaveLength(1);
    expect(s.received()).toHaveLength(1);
    expect(s.hook.received[0]!.json).toMatchObject({
      notification: { event: 'PlatformWatch', rule: 'default: platform watch' },
    });
  });

  it('has no built-in PlatformWatch rule under notify.defaults: false', async () => {
    const s = await setup({ members: { enabled: true } }, undefined, (url) => ({
      defaults: false,
      channels: { desktop: { type: 'webhook', url } },
      rules: [{ name: 'agents', on: 'Stop', channels: ['desktop'] }],
    }));
    await s.poll('members');
    s.sim.script.addMember('new.person@acme.example');
    expect((await s.poll('members')).raised).toHaveLength(1);
    expect(s.received()).toEqual([]);
  });

  it('polls on its own schedule, survives a restart on it, and keeps its state private', async () => {
    const s = await setup({ computers: { enabled: true, interval: '5m' } });
    expect(s.timers().earliest()).toBe(s.clock.now);
    s.timers().advance(0);
    await waitFor(() => s.runner().states().computers?.seq === 1, 10_000, 'the first poll');
    const active = s.sim.state.computers.find((c) => c.steps.every((step) => !step.failWith))!;
    s.sim.script.setComputerStatus(active.id, 'error');
    expect(s.timers().advance(299_999)).toBe(0);
    expect(s.timers().advance(1)).toBe(1);
    await waitFor(() => s.received().length === 1, 10_000, 'the notification');
    const file = watchStatePath(s.t.env);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await waitFor(() => s.runner().states().computers?.seq === 2, 10_000, 'the second poll saved');
    const before = s.sim.requests.length;
    await s.restart();
    // The new daemon polls at the saved time, not at once.
    expect(s.timers().earliest()).toBe(s.clock.now + 300_000);
    expect(s.timers().advance(300_000)).toBe(1);
    await waitFor(() => s.runner().states().computers?.seq === 3, 10_000, 'the poll after the restart');
    expect(s.sim.requests.length).toBe(before + 1);
    expect(s.received()).toHaveLength(1);
  });

  it('a 429 waits for its Retry-After, then polls again', async () => {
    const s = await setup({ members: { enabled: true, interval: '10m' } });
    await s.poll('members');
    s.sim.injectFault({
      path: '/api/v0/organization/users',
      status: 429,
      headers: { 'retry-after': '1800' },
    });
    s.sim.script.addMember('late.comer@acme.example');
    const limited = await s.runner().pollNow('members');
    expect(limited).toMatchObject({ ok: false, status: 'rate-limited', nextPollAt: s.clock.now + 1_800_000 });
    expect(s.runner().states().members).toMatchObject({ status: 'rate-limited', failures: 1 });
    const asked = s.sim.requests.length;
    // Not at the interval (10 minutes): at the Retry-After (30 minutes).
    expect(s.timers().advance(600_000)).toBe(0);
    expect(s.timers().advance(1_199_999)).toBe(0);
    expect(s.sim.requests.length).toBe(asked);
    expect(s.timers().advance(1)).toBe(1);
    await waitFor(() => s.received().length === 1, 10_000, 'the member raised after the wait');
    expect(s.runner().states().members).toMatchObject({ status: 'ok', failures: 0 });
  });

  it('a 429 without Retry-After backs off by at least the interval; errors double from a minute', async () => {
    const s = await setup({ computers: { enabled: true, interval: '5m' } });
    s.sim.injectFault({ path: '/api/v0/computers', status: 429 });
    expect(await s.runner().pollNow('computers')).toMatchObject({
      status: 'rate-limited',
      nextPollAt: s.clock.now + 300_000,
    });
    s.sim.injectFault({ path: '/api/v0/computers', status: 500, times: 2 });
    expect(await s.runner().pollNow('computers')).toMatchObject({
      status: 'error',
      nextPollAt: s.clock.now + 120_000,
    });
    expect(await s.runner().pollNow('computers')).toMatchObject({ nextPollAt: s.clock.now + 240_000 });
    expect(await s.runner().pollNow('computers')).toMatchObject({
      ok: true,
      nextPollAt: s.clock.now + 300_000,
    });
  });

  it('hookd status shows each watcher: last and next poll, backoff, last error', async () => {
    const s = await setup({ computers: { enabled: true, interval: '5m' }, members: { enabled: true } });
    await s.runner().pollNow('members');
    s.sim.injectFault({ path: '/api/v0/computers', status: 500, times: 2 });
    await s.runner().pollNow('computers');
    await s.runner().pollNow('computers');
    const json = await runCli(['status', '--json'], { env: s.t.env as Record<string, string> });
    expect(json.code).toBe(0);
    const watchers = (JSON.parse(json.stdout) as { daemon: { stats: { watchers: unknown[] } } }).daemon.stats
      .watchers;
    expect(watchers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'computers',
          status: 'error',
          failures: 2,
          backoffMs: 120_000,
          lastPollAt: s.clock.now,
          nextPollAt: s.clock.now + 120_000,
          lastError: expect.stringContaining('500'),
        }),
        expect.objectContaining({
          name: 'members',
          status: 'ok',
          failures: 0,
          nextPollAt: s.clock.now + 1_800_000,
        }),
        expect.objectContaining({ name: 'credits', enabled: false, status: 'off' }),
      ]),
    );
    const text = await runCli(['status'], { env: s.t.env as Record<string, string> });
    expect(text.stdout).toMatch(/^watchers:$/m);
    expect(text.stdout).toMatch(
      /^ {2}computers: error \(2 failed in a row, backing off 2m00s\), last poll /m,
    );
    expect(text.stdout).toMatch(/^ {2}members: ok, last poll .*, 0 raised$/m);
    expect(text.stdout).not.toMatch(/^ {2}credits:/m);
    expect(text.stdout).toMatch(/^ {2}- watcher computers: .*500/m);
  });

  it('doctor checks the watchers the daemon runs and where what they raise goes', async () => {
    const watch = { computers: { enabled: true, interval: '5m' } };
    const s = await setup(watch);
    const notify = notifySettings({});
    const check = async (input: unknown = watch, n = notify) =>
      checkWatch(s.t.env, input, n, await readDaemonView(s.t.env, 2000));
    expect(await check({})).toMatchObject({ id: 'platform-watch', status: 'skip' });
    expect(await check()).toMatchObject({ status: 'ok', detail: 'computers not polled yet' });
    s.sim.injectFault({ path: '/api/v0/computers', status: 500, times: 1 });
    await s.runner().pollNow('computers');
    const failing = await check();
    expect(failing).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/^computers: error \(1 in a row\): .*500/),
    });
    expect(failing.fix).toContain('hookd watch test');
    await s.runner().pollNow('computers');
    expect(await check()).toMatchObject({ status: 'ok', detail: 'computers polling' });
    // Without the built-in rules nothing routes PlatformWatch.
    expect(await check(watch, notifySettings({ defaults: false }))).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('no notify rule routes PlatformWatch'),
    });
  });

  it('a 403 (a key without the role) waits hours and says why', async () => {
    const s = await setup({ credits: { enabled: true, orgLimit: 1000 } }, 'member');
    const outcome = await s.runner().pollNow('credits');
    expect(outcome).toMatchObject({
      ok: false,
      status: 'forbidden',
      nextPollAt: s.clock.now + 6 * 3_600_000,
    });
    expect(outcome.error).toMatch(/Manager or Owner/);
    expect(s.received()).toEqual([]);
  });

  it('a damaged state file is moved aside and the watcher starts from a baseline', async () => {
    const s = await setup({ members: { enabled: true } });
    await s.poll('members');
    await s.state.daemon.close();
    const { writeFileSync, readdirSync } = await import('node:fs');
    const { dirname, basename } = await import('node:path');
    const file = watchStatePath(s.t.env);
    writeFileSync(file, '{"v":1,"watchers":{"members":{"status":"ok"}}}', { mode: 0o600 });
    s.sim.script.addMember('while.down@acme.example');
    await s.restart();
    expect(readdirSync(dirname(file)).some((n) => n.startsWith(`${basename(file)}.bad-`))).toBe(true);
    expect((await s.poll('members')).raised).toEqual([]);
    expect(existsSync(file)).toBe(true);
  });
});

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/platform-api/simulator/index.js';
import type { CheckResult } from '../../src/doctor/types.js';
import { HOOKD_BIN, REPO_DIR } from '../helpers/fixtures.js';
import { runHookd } from '../helpers/run-hookd.js';
import {
  makeDoctorHome,
  wiredSettings,
  writeJson,
  type DoctorHome,
} from '../integration/doctor/doctor-env.js';

let h: DoctorHome;
let env: Record<string, string>;
let sim: Simulator;
let server: Server | undefined;

beforeAll(async () => {
  // The project's `npm test` builds first; build once here when dist/ is missing.
  if (!existsSync(HOOKD_BIN))
    spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: REPO_DIR, stdio: 'inherit' });
  sim = await startSimulator({ seed: 'doctor-e2e' });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  h = makeDoctorHome();
  env = Object.fromEntries(Object.entries(h.env).filter((e): e is [string, string] => e[1] !== undefined));
});
afterEach(async () => {
  if (server) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
  }
  h.cleanup();
});

const doctor = (args: string[] = [], extra: Record<string, string> = {}) =>
  runHookd(['doctor', ...args], { env: { ...env, ...extra }, cwd: h.project });

function parse(stdout: string): Map<string, CheckResult> {
  const results = JSON.parse(stdout) as CheckResult[];
  return new Map(results.map((r) => [r.id, r]));
}

describe('hookd doctor (built CLI)', () => {
  it('exits 0 after `hookd install`, with every check as data under --json', async () => {
    const install = await runHookd(['install', '--agent', 'droid'], { env, cwd: h.project });
    expect(install.code).toBe(0);
    const ran = await doctor(['--json']);
    expect(ran.stderr).toBe('');
    const results = parse(ran.stdout);
    expect([...results.keys()]).toEqual([
      'node',
      'config',
      'project-trust',
      'droid-settings-user',
      'droid-settings-project',
      'droid-hooks-json-shadow',
      'droid-hooks-switch',
      'droid-hooks',
      'droid-wiring',
      'droid-location',
      'droid-log',
      'claude-settings-user',
      'claude-settings-project',
      'claude-hooks-switch',
      'claude-hooks',
      'claude-wiring',
      'claude-location',
      'claude-log',
      'daemon',
      'fast',
      'backlog',
      'desktop',
      'presence',
      'api',
      'telemetry-export',
      'platform-watch',
      'remote-answers',
    ]);
    expect(results.get('droid-hooks')).toMatchObject({ status: 'ok' });
    // The default install: the fast client, for every event a guard or a notification can use.
    expect(results.get('droid-hooks')!.detail).toContain('/dist/hookd-client --agent droid');
    expect(results.get('droid-wiring')).toMatchObject({ status: 'ok' });
    expect(results.get('droid-location')).toMatchObject({ status: 'ok' });
    expect([...results.values()].filter((r) => r.status === 'fail')).toEqual([]);
    expect(ran.code).toBe(0);
    for (const r of results.values()) expect(['ok', 'warn', 'fail', 'skip']).toContain(r.status);
  });

  it('exits 1 and says what to fix: broken Droid entry, Droid log line, unset Slack variable', async () => {
    const settings = join(h.home, '.factory', 'settings.json');
    writeJson(settings, {
      hooks: { Stop: [{ matcher: null, hooks: [{ type: 'command', command: `${h.hookdBin} hook` }] }] },
    });
    mkdirSync(join(h.home, '.factory', 'logs'), { recursive: true });
    writeFileSync(
      join(h.home, '.factory', 'logs', 'droid-log-single.log'),
      `[2099-01-01T00:00:00.000Z] WARN: Invalid hooks in settings.json, ignoring | Context: ${JSON.stringify({ path: settings })}\n`,
    );
    writeJson(env.HOOKD_CONFIG!, {
      notify: {
        channels: { team: { type: 'slack', webhookUrl: '${SLACK_WEBHOOK_URL}' } },
        rules: [{ on: 'Stop', channels: ['team'] }],
      },
    });
    const json = await doctor(['--json']);
    expect(json.code).toBe(1);
    const results = parse(json.stdout);
    expect(results.get('droid-settings-user')!.status).toBe('fail');
    expect(results.get('droid-settings-user')!.detail).toContain(
      `${settings}: hooks.Stop[0].matcher: error: matcher must be a string, not null`,
    );
    expect(results.get('droid-log')!.status).toBe('fail');
    expect(results.get('droid-log')!.detail).toContain('last at 2099-01-01T00:00:00.000Z');
    expect(results.get('channel:team')!.status).toBe('fail');
    expect(results.get('channel:team')!.detail).toContain(
      'SLACK_WEBHOOK_URL (used in notify.channels.team.webhookUrl)',
    );
    // Every failure says how to fix it.
    for (const r of results.values()) if (r.status === 'fail') expect(r.fix, r.id).toBeTruthy();

    const human = await doctor([], { NO_COLOR: '1' });
    expect(human.code).toBe(1);
    expect(human.stdout).not.toContain('\u001b[');
    expect(human.stdout).toContain('✗ Droid settings (user): ');
    expect(human.stdout).toContain('✗ Channel team (slack): environment variable not set');
    expect(human.stdout).toContain('    fix: export SLACK_WEBHOOK_URL=...');
    expect(human.stdout).toMatch(/\n\d+ ok, \d+ warnings?, 3 failed, \d+ skipped\n$/);
    // Not a terminal: no progress line.
    expect(human.stderr).toBe('');
  });

  it('--send-test delivers a real notification to a loopback webhook', async () => {
    const bodies: string[] = [];
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.method === 'POST') bodies.push(body);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
    writeJson(env.HOOKD_CONFIG!, {
      notify: {
        channels: { hook: { type: 'webhook', url: '${HOOK_URL}' } },
        rules: [{ on: 'Stop', channels: ['hook'] }],
      },
    });
    writeJson(join(h.home, '.factory', 'settings.json'), wiredSettings(`${h.hookdBin} hook`));
    const ran = await doctor(['--json', '--send-test'], { HOOK_URL: url });
    const results = parse(ran.stdout);
    expect(results.get('channel:hook')).toMatchObject({ status: 'ok' });
    expect(results.get('channel:hook')!.detail).toContain('test notification delivered');
    expect(bodies).toHaveLength(1);
    expect(JSON.parse(bodies[0]!)).toMatchObject({
      notification: { title: 'hookd doctor: test notification' },
    });
    expect(ran.code).toBe(0);
  });

  it('checks the API key against the platform: accepted, rejected', async () => {
    const api = { HOOKD_API_URL: sim.baseUrl, HOOKD_APP_URL: sim.appUrl };
    const accepted = parse((await doctor(['--json'], { ...api, HOOKD_API_KEY: sim.keys.manager })).stdout);
    expect(accepted.get('api')!.status).toBe('ok');
    const rejected = await doctor(['--json'], { ...api, HOOKD_API_KEY: 'fk-wrong-key-123' });
    expect(rejected.code).toBe(1);
    expect(parse(rejected.stdout).get('api')).toMatchObject({ status: 'fail' });
    expect(rejected.stdout).not.toContain('fk-wrong-key-123');
  });

  it('refuses a --timeout that is not a positive number', async () => {
    const ran = await doctor(['--timeout', '0']);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('--timeout 0 is not a positive number of milliseconds');
  });

  it('has --help with examples', async () => {
    const help = await doctor(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--send-test');
    expect(help.stdout).toContain('Examples:');
  });
});

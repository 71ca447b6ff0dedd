import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../src/platform-api/simulator/index.js';
import { check, doctor, makeDoctorHome, writeJson, type DoctorHome } from './doctor-env.js';

let sim: Simulator;
let h: DoctorHome;

beforeAll(async () => {
  sim = await startSimulator({ seed: 'doctor' });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  h = makeDoctorHome();
});
afterEach(() => {
  sim.clearFaults();
  h.cleanup();
});

const withKey = (key: string) => ({
  ...h.env,
  HOOKD_API_URL: sim.baseUrl,
  HOOKD_APP_URL: sim.appUrl,
  HOOKD_API_KEY: key,
});

describe('doctor: API key', () => {
  it('is ok when the platform accepts the key, and never shows the key', async () => {
    const result = check(await doctor(h, { env: withKey(sim.keys.member) }), 'api');
    expect(result.status).toBe('ok');
    expect(result.detail).toMatch(
      new RegExp(
        `^key from HOOKD_API_KEY accepted by ${sim.baseUrl} \\(GET /api/v0/computers: \\d+ computer\\(s\\)\\)$`,
      ),
    );
    expect(JSON.stringify(result)).not.toContain(sim.keys.member);
    expect(sim.requests.at(-1)).toMatchObject({ method: 'GET', path: '/api/v0/computers' });
  });

  it('fails a key the platform rejects (401), with the fix', async () => {
    const result = check(await doctor(h, { env: withKey('fk-not-a-real-key') }), 'api');
    expect(result.status).toBe('fail');
    expect(result.detail).toBe(`${sim.baseUrl} refused the key from HOOKD_API_KEY (401: invalid or revoked)`);
    expect(result.fix).toContain('create a new one in the API-keys settings page');
    expect(JSON.stringify(result)).not.toContain('fk-not-a-real-key');
  });

  it('fails a key that is not allowed (403)', async () => {
    sim.injectFault({ path: '/api/v0/computers', status: 403, body: { title: 'Forbidden', detail: 'no' } });
    const result = check(await doctor(h, { env: withKey(sim.keys.member) }), 'api');
    expect(result).toMatchObject({ status: 'fail' });
    expect(result.detail).toContain('(403: not allowed)');
  });

  it('fails when the API does not answer in time, without retrying', async () => {
    sim.injectFault({ path: '/api/v0/computers', delayMs: 2000 });
    const before = sim.requests.length;
    const result = check(await doctor(h, { env: withKey(sim.keys.member), timeoutMs: 200 }), 'api');
    expect(result.status).toBe('fail');
    expect(result.detail).toContain(`cannot reach ${sim.baseUrl}`);
    expect(sim.requests.length - before).toBe(1);
  });

  it('skips without a key and says how to set one', async () => {
    const result = check(await doctor(h), 'api');
    expect(result.status).toBe('skip');
    expect(result.fix).toContain('export HOOKD_API_KEY=');
  });

  it('uses api.keyFile, and fails a key file others can read', async () => {
    const keyFile = join(h.root, 'api-key');
    writeFileSync(keyFile, `${sim.keys.owner}\n`);
    chmodSync(keyFile, 0o600);
    writeJson(h.env.HOOKD_CONFIG!, { api: { keyFile, baseUrl: sim.baseUrl, appUrl: sim.appUrl } });
    const ok = check(await doctor(h), 'api');
    expect(ok.status).toBe('ok');
    expect(ok.detail).toContain(`key from api.keyFile ${keyFile} accepted`);
    chmodSync(keyFile, 0o644);
    const open = check(await doctor(h), 'api');
    expect(open.status).toBe('fail');
    expect(open.fix).toBe(`restrict it to its owner: chmod 600 ${keyFile}`);
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/platform-api/simulator/index.js';
import { addDays, utcDay } from '../../src/platform-api/dates.js';
import { HOOKD_BIN } from '../helpers/fixtures.js';
import { isolatedEnv, makeTempDir } from '../helpers/temp.js';

// `hookd api` and `hookd simulator` as real child processes of the built CLI, against an in-process
// simulator on 127.0.0.1.

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

const children = new Set<ChildProcess>();

function run(args: string[], env: Record<string, string>, cwd: string, stdin?: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HOOKD_BIN, ...args], {
      env,
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      children.delete(child);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(stdin);
  });
}

afterEach(() => {
  for (const child of children) if (child.pid && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  children.clear();
});

beforeAll(() => {
  if (!existsSync(HOOKD_BIN)) throw new Error(`${HOOKD_BIN} is missing: run npm run build first`);
});

describe('hookd api against the simulator', () => {
  let sim: Simulator;
  let tmp: ReturnType<typeof makeTempDir>;
  let env: Record<string, string>;
  const yesterday = () => addDays(utcDay(new Date()), -1);
  const hookd = (args: string[], extra: Record<string, string> = {}, stdin?: string) =>
    run(['api', ...args], { ...env, ...extra }, tmp.dir, stdin);

  beforeEach(async () => {
    tmp = makeTempDir('hkd-api-');
    sim = await startSimulator({ seed: 'e2e', provisionStepMs: 50 });
    env = isolatedEnv(tmp.dir, {
      HOOKD_API_URL: sim.baseUrl,
      HOOKD_APP_URL: sim.appUrl,
      HOOKD_API_KEY: sim.keys.owner,
      NO_COLOR: '1',
    });
    delete env.FACTORY_API_KEY;
  });
  afterEach(async () => {
    await sim.close();
    tmp.cleanup();
  });

  it('analytics tokens grouped by model, as JSON', async () => {
    const start = addDays(yesterday(), -2);
    const r = await hookd([
      'analytics',
      'tokens',
      '--start',
      start,
      '--end',
      yesterday(),
      '--group-by',
      'model',
      '--json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout) as {
      data: { date: string; group_key: string }[];
      meta: { start_date: string };
    };
    expect(body.meta.start_date).toBe(start);
    expect(body.data.length).toBeGreaterThan(3);
    expect(body.data.every((row) => typeof row.group_key === 'string')).toBe(true);
    expect(sim.requests[0]!.query).toContain('group_by=model');
  });

  it('analytics as a table, and the exit codes of a member key (3) and of today (2, nothing sent)', async () => {
    const table = await hookd(['analytics', 'activity', '--days', '3']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^DATE\s+DAU\s+WAU\s+MAU/);
    expect(table.stdout.trim().split('\n')).toHaveLength(4);

    const member = await hookd(['analytics', 'tokens', '--days', '1'], { HOOKD_API_KEY: sim.keys.member });
    expect(member.code).toBe(3);
    expect(member.stderr).toContain('403');
    expect(member.stderr).not.toContain(sim.keys.member);

    const before = sim.requests.length;
    const today = utcDay(new Date());
    const early = await hookd(['analytics', 'tokens', '--start', yesterday(), '--end', today]);
    expect(early.code).toBe(2);
    expect(early.stderr).toContain('24-hour lag');
    expect(early.stderr).toContain('Nothing was sent');
    expect(sim.requests.length).toBe(before);
  });

  it('analytics users --all --jsonl follows every page', async () => {
    const r = await hookd(['analytics', 'users', '--days', '5', '--limit', '4', '--all', '--jsonl']);
    expect(r.code).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { user_id: string; date: string });
    const keys = rows.map((row) => `${row.user_id}/${row.date}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(sim.requests.filter((q) => q.path.endsWith('/users')).length).toBeGreaterThan(2);
  });

  it('readiness list --all --jsonl', async () => {
    const r = await hookd(['readiness', 'list', '--all', '--limit', '10', '--jsonl']);
    expect(r.code).toBe(0);
    const ids = r.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { reportId: string }).reportId);
    expect(ids).toHaveLength(sim.state.reports.length);
    expect(new Set(ids).size).toBe(ids.length);
    expect(sim.requests.every((q) => q.host === 'app')).toBe(true);
  });

  it('computers: create, get by name, retry-install, not found (5)', async () => {
    const created = await hookd(['computers', 'create', '--name', 'box', '--remote-user', 'dev', '--json']);
    expect(created.code).toBe(0);
    const computer = JSON.parse(created.stdout) as { id: string; status: string };
    expect(computer.status).toBe('provisioning');

    const byName = await hookd(['computers', 'get', '--name', 'box']);
    expect(byName.code).toBe(0);
    expect(byName.stdout).toMatch(new RegExp(`id\\s+${computer.id}`));

    const broken = sim.state.computers.find((c) => c.name === 'broken-deps')!;
    const retried = await hookd(['computers', 'retry-install', broken.id]);
    expect(retried.code).toBe(0);
    expect(retried.stdout).toMatch(/status\s+provisioning/);

    const missing = await hookd(['computers', 'get', 'cmp_nope']);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain('404');

    const invalid = await hookd(['computers', 'create', '--name', 'x'.repeat(64), '--remote-user', 'dev']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('name: must be 1-63 characters');
  });

  it('sessions update tags and messages get', async () => {
    const session = [...sim.state.sessions.values()][0]!;
    const updated = await hookd([
      'sessions',
      'update',
      session.sessionId,
      '--tag',
      'reviewed',
      '--tag',
      'team:web',
      '--json',
    ]);
    expect(updated.code).toBe(0);
    expect(
      (JSON.parse(updated.stdout) as { sessionSettings: { tags: unknown } }).sessionSettings.tags,
    ).toEqual([{ name: 'reviewed' }, { name: 'team:web' }]);
    const message = session.messages[0]!;
    const got = await hookd(['messages', 'get', session.sessionId, message.id as string]);
    expect(got.code).toBe(0);
    expect(got.stdout).toContain(`role     user`);
    expect(got.stdout).toContain((message.content as { text: string }[])[0]!.text);
  });

  it('users list --all --json and controls history with a cursor note', async () => {
    const users = await hookd(['users', 'list', '--all', '--json']);
    expect(users.code).toBe(0);
    expect((JSON.parse(users.stdout) as unknown[]).length).toBe(sim.state.users.length);

    const history = await hookd(['controls', 'history', '--limit', '5'], { HOOKD_API_KEY: sim.keys.manager });
    expect(history.code).toBe(0);
    const lines = history.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/REVISION\s+UPDATED\s+BY\s+CHANGED/);
    expect(lines).toHaveLength(6);
    expect(history.stderr).toMatch(/more results: rerun with --cursor \S+/);
  });

  it('limits set --file: both updated and errors are shown; a partial failure exits 1', async () => {
    const file = join(tmp.dir, 'limits.csv');
    const known = sim.state.users[0]!.loginEmail;
    writeFileSync(file, `email,limit\n${known},500\nghost@acme.example,10\n`);
    const r = await hookd(['limits', 'set', '--file', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`${known.replace('.', '\\.')}\\s+limit 500`));
    expect(r.stdout).toMatch(/ghost@acme\.example\s+error: No user/);
    expect(r.stderr).toContain('1 of 2 credit limits were not set');
    expect(sim.state.creditLimits.get(known)).toBe(500);

    const bad = join(tmp.dir, 'bad.csv');
    writeFileSync(bad, 'a@acme.example,lots\n');
    const refused = await hookd(['limits', 'set', '--file', bad]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('line 1');
  });

  it('server failures exit 4 (retries from the config file), missing keys and unsafe key files exit 3', async () => {
    writeFileSync(env.HOOKD_CONFIG!, JSON.stringify({ api: { retries: 0, timeoutMs: 5000 } }));
    sim.injectFault({
      path: '/api/v0/computers',
      status: 503,
      body: { title: 'Unavailable', detail: 'maintenance' },
    });
    const down = await hookd(['computers', 'list']);
    expect(down.code).toBe(4);
    expect(down.stderr).toContain('maintenance');
    expect(sim.requests).toHaveLength(1);

    const noKey = await hookd(['computers', 'list'], { HOOKD_API_KEY: '' });
    expect(noKey.code).toBe(3);
    expect(noKey.stderr).toContain('no API key');

    const keyFile = join(tmp.dir, 'key');
    writeFileSync(keyFile, `${sim.keys.owner}\n`);
    chmodSync(keyFile, 0o644);
    writeFileSync(env.HOOKD_CONFIG!, JSON.stringify({ api: { keyFile } }));
    const unsafe = await hookd(['computers', 'list'], { HOOKD_API_KEY: '' });
    expect(unsafe.code).toBe(3);
    expect(unsafe.stderr).toContain(`chmod 600 ${keyFile}`);
    expect(unsafe.stderr).not.toContain(sim.keys.owner);
    chmodSync(keyFile, 0o600);
    const safe = await hookd(['computers', 'list', '--json'], { HOOKD_API_KEY: '' });
    expect(safe.code).toBe(0);
    expect(sim.requests.at(-1)!.role).toBe('Owner');
  });

  it.skipIf(!existsSync('/usr/bin/script'))(
    '--all shows a page counter on a terminal (stderr), erased at the end',
    async () => {
      // util-linux `script` gives the CLI a pseudo-terminal, so stderr is a TTY.
      const command = [process.execPath, HOOKD_BIN, 'api', 'users', 'list', '--all', '--limit', '20']
        .map((a) => `'${a}'`)
        .join(' ');
      const r = await new Promise<Ran>((resolve, reject) => {
        const child = spawn('/usr/bin/script', ['-qec', command, '/dev/null'], { env, cwd: tmp.dir });
        children.add(child);
        let stdout = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => {
          children.delete(child);
          resolve({ code, stdout, stderr: '' });
        });
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('fetched 20 (page 1)');
      expect(r.stdout).toContain(`fetched ${sim.state.users.length} (page 3)`);
      expect(r.stdout).toContain('\r\u001b[K');
      expect(r.stdout).toContain('EMAIL');
    },
  );

  it('has help with examples', async () => {
    const r = await hookd(['computers', 'create', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Examples:');
    expect(r.stdout).toContain('hookd api computers create --name box');
    expect(r.stdout).toContain('A managed computer');
  });
});

describe('hookd simulator', () => {
  it('prints one JSON line once listening, serves the API, and exits cleanly on SIGTERM', async () => {
    const tmp = makeTempDir('hkd-sim-');
    try {
      const env = isolatedEnv(tmp.dir);
      const child = spawn(process.execPath, [HOOKD_BIN, 'simulator', '--seed', 'e2e'], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.add(child);
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(out.split('\n')[0]!);
        });
        child.on('exit', (code) => reject(new Error(`simulator exited early with ${code}`)));
      });
      const info = JSON.parse(line) as { baseUrl: string; appUrl: string; keys: Record<string, string> };
      expect(Object.keys(info.keys).sort()).toEqual(['manager', 'member', 'owner']);
      expect(info.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${info.appUrl}/api/organization/maturity-level-reports?limit=1`, {
        headers: { Authorization: `Bearer ${info.keys.member}` },
      });
      expect(res.status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      tmp.cleanup();
    }
  });
});

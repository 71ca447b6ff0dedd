import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOOKD_BIN, REPO_DIR } from '../helpers/fixtures.js';
import { makeTempDir } from '../helpers/temp.js';
import { killHard } from '../helpers/procs.js';

const NOTIFIER_MARK = 'NODE-NOTIFIER-LOADED';

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

let dir: string;
let cleanup: () => void;
let started: number[] = [];

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir('hkd-e2e-'));
});
afterEach(() => {
  for (const pid of started) killHard(pid);
  started = [];
  cleanup();
});

/** A preload that reports any attempt to load node-notifier (the demo must never load it). */
function notifierDetector(): string {
  const file = join(dir, 'detect-notifier.cjs');
  writeFileSync(
    file,
    `const Module = require('node:module');
const load = Module._load;
Module._load = function (request, ...rest) {
  if (String(request).includes('node-notifier')) process.stderr.write('${NOTIFIER_MARK}\\n');
  return load.call(this, request, ...rest);
};
`,
  );
  return file;
}

function run(args: string[], env: Record<string, string>, cwd = dir): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid) started.push(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** The user's world as the demo finds it: an empty home and XDG dirs, a user config it must not read. */
function userEnv(): { env: Record<string, string>; home: string; tmp: string; marker: string } {
  const home = join(dir, 'home');
  const tmp = join(dir, 'tmp');
  mkdirSync(home);
  mkdirSync(tmp);
  const marker = join(dir, 'user-config-hook-ran');
  const userConfig = join(dir, 'user-config.json');
  writeFileSync(
    userConfig,
    JSON.stringify({
      hooks: { Stop: [{ hooks: [{ type: 'command', command: `touch "${marker}"` }] }] },
    }),
  );
  return {
    home,
    tmp,
    marker,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_RUNTIME_DIR: join(home, 'run'),
      TMPDIR: tmp,
      HOOKD_CONFIG: userConfig,
    },
  };
}

/** Pids of live processes whose command line or environment mentions `text` (our own processes only). */
function processesMentioning(text: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    for (const file of ['cmdline', 'environ']) {
      try {
        if (readFileSync(`/proc/${pid}/${file}`, 'latin1').includes(text)) {
          found.push(pid);
          break;
        }
      } catch {}
    }
  }
  return found;
}

describe('hookd demo (the built CLI)', () => {
  it('the detector sees node-notifier being loaded (so its silence below means something)', async () => {
    const ran = await run(
      ['--require', notifierDetector(), '-e', "require('node-notifier')"],
      { PATH: process.env.PATH ?? '' },
      REPO_DIR,
    );
    expect(ran.stderr).toContain(NOTIFIER_MARK);
  });

  it('plays the session: commands, notifications and the ledger; touches nothing outside its temp root and leaves no process', async () => {
    const { env, home, tmp, marker } = userEnv();
    const ran = await run(['--require', notifierDetector(), HOOKD_BIN, 'demo', '--fast'], env);
    expect(ran.stderr).toBe('');
    expect([ran.code, ran.signal]).toEqual([0, null]);
    const out = ran.stdout;

    // The commands that ran, with their exit codes.
    expect(out).toMatch(/PreToolUse Execute echo hi +✓ guard exit 0 \d+ms \[blocking\]/);
    expect(out).toMatch(/PostToolUse Execute echo hi +✓ command-log exit 0 \d+ms/);
    expect(out).toMatch(/16 Stop +✓ stop-echo exit 0 \d+ms "turn finished after 1207 ms"/);
    expect(out).toContain('── Commands logged by hooks/log-commands.mjs');
    expect(out).toMatch(/\necho hi {2}exit 0\n/);

    // The notifications, as the console channel printed them.
    expect(out).toContain(
      '┌ Finished: Echo, a file and a sub-agent in demo (main)\n│ All done: ran `echo hi`, created hook-demo.txt and ran a sub-agent.\n',
    );
    expect(out).toContain(
      '┌ Needs your permission: Execute\n│ Echo, a file and a sub-agent in demo (main)\n',
    );
    expect(out).toContain('┌ Needs your permission: Create\n');
    expect(out).toContain('┌ Sub-agent finished: Tiny sub task\n│ subagent finished\n');
    expect(out).toContain('┌ Sub-agent finished: Worker: Tiny sub task\n│ subagent finished\n');
    expect(out).toContain('┌ Session ended: other\n');

    // The ledger, and the platform simulator that supplied a message and took the tags.
    expect(out).toMatch(/ENDED +SESSION +PROJECT +TITLE +REASON/);
    expect(out).toMatch(/48e23316 +demo +Echo, a file and a sub-agent +other/);
    expect(out).toMatch(/9414a522 +demo +↳ Worker: Tiny sub task +other/);
    expect(out).toMatch(/GET +\/api\/v0\/sessions\/9414a522…\/messages\/b73abe42… +200/);
    expect(out).toContain('session 48e23316 on the platform is now tagged "hookd"');
    expect(out).toContain('hookd install');

    // Nothing of the user's: their config's hook never ran, their home and temp dir stay empty.
    expect(existsSync(marker)).toBe(false);
    expect(readdirSync(home)).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
    expect(processesMentioning(dir)).toEqual([]);
  });

  it('--json prints a machine-readable summary, and nothing else', async () => {
    const { env, home, tmp } = userEnv();
    const ran = await run([HOOKD_BIN, 'demo', '--fast', '--json'], env);
    expect([ran.code, ran.stderr]).toEqual([0, '']);
    const summary = JSON.parse(ran.stdout) as {
      events: { name: string; handoff: string }[];
      commands: { name: string; exitCode: number }[];
      notifications: { title: string; body: string; rule: string }[];
      ledger: { sessionId: string; title: string; isSubagent: boolean }[];
      drained: boolean;
      keptAt: string | null;
    };
    expect(summary.events).toHaveLength(19);
    expect(summary.events.every((e) => e.handoff === 'acked')).toBe(true);
    expect(summary.commands.map((c) => `${c.name}:${c.exitCode}`)).toEqual([
      'guard:0',
      'command-log:0',
      'stop-echo:0',
      'stop-echo:0',
    ]);
    expect(summary.notifications.map((n) => n.title).sort()).toEqual(
      [
        'Finished: Echo, a file and a sub-agent in demo (main)',
        'Needs your permission: Create',
        'Needs your permission: Execute',
        'Session ended: other',
        'Sub-agent finished: Tiny sub task',
        'Sub-agent finished: Worker: Tiny sub task',
      ].sort(),
    );
    expect(summary.ledger.map((r) => [r.sessionId.slice(0, 8), r.title, r.isSubagent]).sort()).toEqual([
      ['48e23316', 'Echo, a file and a sub-agent', false],
      ['9414a522', 'Worker: Tiny sub task', true],
    ]);
    expect([summary.drained, summary.keptAt]).toEqual([true, null]);
    expect(readdirSync(home)).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('--keep leaves the temp root and says where', async () => {
    const { env, tmp } = userEnv();
    const ran = await run([HOOKD_BIN, 'demo', '--fast', '--keep'], env);
    expect(ran.code).toBe(0);
    const [root] = readdirSync(tmp);
    expect(root).toMatch(/^hookd-demo-/);
    expect(ran.stdout).toContain(`Everything is kept in ${join(tmp, root!)}.`);
    expect(readdirSync(join(tmp, root!)).sort()).toEqual(['config.json', 'data', 'home', 'run', 'state']);
  });
});

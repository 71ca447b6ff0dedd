import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SIMULATOR_SHELL_EXAMPLE } from '../../src/cli/commands/run/simulator.js';
import { HOOKD_BIN } from '../helpers/fixtures.js';
import { runHookd } from '../helpers/run-hookd.js';
import { isolatedEnv, makeTempDir } from '../helpers/temp.js';

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
const groups: number[] = [];

beforeEach(() => {
  tmp = makeTempDir();
  env = isolatedEnv(tmp.dir, { NO_COLOR: '1' });
});
afterEach(() => {
  for (const pid of groups.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {}
  }
  tmp.cleanup();
});

describe('hookd validate on what is not a file', () => {
  it('says a directory is a directory, with the file to name instead', async () => {
    const dir = join(tmp.dir, 'conf.d');
    mkdirSync(dir);
    const ran = await runHookd(['validate', dir], { env });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`cannot read ${dir}: it is a directory, not a file`);
    expect(ran.stderr).toContain(`${dir}/config.json`);
    expect(ran.stderr).not.toContain('permissions');
  });

  it('says a symlink loop is a loop', async () => {
    const a = join(tmp.dir, 'a.json');
    const b = join(tmp.dir, 'b.json');
    symlinkSync(b, a);
    symlinkSync(a, b);
    const ran = await runHookd(['validate', a], { env });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('it is a symbolic link loop');
  });

  it('reports a config path that is a directory instead of crashing', async () => {
    const dir = join(tmp.dir, 'config.json');
    mkdirSync(dir);
    const ran = await runHookd(['validate'], { env: { ...env, HOOKD_CONFIG: dir } });
    expect(ran.stderr).not.toContain('unexpected error');
    expect(ran.stderr).toContain('it is a directory, not a file');
    expect(ran.code).toBe(2);
  });
});

describe('hookd completion', () => {
  it('--help shows help, not the script', async () => {
    const ran = await runHookd(['completion', '--help'], { env });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('Print a shell completion script');
    expect(ran.stdout).toContain('hookd completion >> ~/.bashrc');
    expect(ran.stdout).not.toContain('begin-hookd-completions');
  });

  it('prints a script that completes command names', async () => {
    const script = await runHookd(['completion'], { env });
    expect(script.code).toBe(0);
    expect(script.stdout).toContain('begin-hookd-completions');
    const words = await runHookd(['--get-yargs-completions', 'hookd', 'do'], { env });
    expect(words.stdout.split('\n')).toContain('doctor');
  });
});

describe('hookd simulator --help example', () => {
  it('runs as written: the shell gets the exports and hookd api reaches the simulator', async () => {
    const help = await runHookd(['simulator', '--help'], { env });
    expect(help.stdout).toContain(`\n  ${SIMULATOR_SHELL_EXAMPLE}`);
    const bin = join(tmp.dir, 'bin');
    mkdirSync(bin);
    symlinkSync(HOOKD_BIN, join(bin, 'hookd'));
    const script = `${SIMULATOR_SHELL_EXAMPLE}\nhookd api computers list --json\nkill %1\nwait\n`;
    const child = spawn('bash', ['-c', script], {
      cwd: tmp.dir,
      env: { ...env, PATH: `${bin}:${process.env.PATH}` },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    groups.push(child.pid!);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toMatchObject({ code: 0 });
    const listed = JSON.parse(stdout) as { computers: unknown[] };
    expect(listed.computers.length).toBeGreaterThan(0);
  });
});

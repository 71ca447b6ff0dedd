import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli-run.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function env(): { dir: string; env: Record<string, string> } {
  const temp = makeTempDir('hkd-cli-');
  cleanups.push(temp.cleanup);
  return { dir: temp.dir, env: isolatedEnv(temp.dir) };
}

describe('main(argv, io): a command run in-process', () => {
  it('prints the version and help on the given stdout, not the process', async () => {
    const { env: e } = env();
    expect(await runCli(['--version'], { env: e })).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^\d+\.\d+\.\d+/),
      stderr: '',
    });
    const help = await runCli([], { env: e });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('hookd <command> [options]');
  });

  it('reports a usage error on the given stderr with exit 2 and leaves the process exit code alone', async () => {
    const { env: e } = env();
    const before = process.exitCode;
    const ran = await runCli(['no-such-command'], { env: e });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('hookd:');
    expect(ran.stdout).toBe('');
    expect(process.exitCode).toBe(before);
  });

  it("returns a command's failure as its exit code and reads the env it is given", async () => {
    const { dir, env: e } = env();
    const file = join(dir, 'bad.json');
    writeFileSync(file, '{"hooks": 5}');
    const bad = await runCli(['validate', file], { env: e });
    expect(bad.code).toBe(1);
    expect(bad.stderr + bad.stdout).toMatch(/hooks/);
  });

  it('runs two commands at once, each with its own output', async () => {
    const a = env();
    const b = env();
    const [x, y] = await Promise.all([
      runCli(['--version'], { env: a.env }),
      runCli(['schema'], { env: b.env }),
    ]);
    expect(x.stdout).not.toContain('$schema');
    expect(y.stdout).toContain('$schema');
  });
});

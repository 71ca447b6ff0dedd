import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
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

describe('main(argv, io): path arguments resolve against the io directory', () => {
  // Each run happens in `io.cwd`, a directory that is not the process's own: a relative path that
  // resolved against process.cwd() would name a file that is not there.
  function project(): { dir: string; env: Record<string, string>; cwd: string } {
    const { dir, env: e } = env();
    const cwd = join(dir, 'project');
    mkdirSync(cwd, { recursive: true });
    expect(process.cwd()).not.toBe(cwd);
    return { dir, env: e, cwd };
  }

  it.each([
    ['validate <file>', ['validate', 'bad.json'], 1, /hooks/],
    ['emit --from <file>', ['emit', '--from', 'event.json', '--print'], 0, /"hook_event_name": ?"Stop"/],
    ['explain <file>', ['explain', './event.json', '--json'], 0, /"Stop"/],
    ['replay <file>', ['replay', 'events.jsonl'], 0, /^Stop /m],
  ])('%s reads the file in the io directory', async (_name, argv, code, out) => {
    const { env: e, cwd } = project();
    writeFileSync(join(cwd, 'bad.json'), '{"hooks": 5}');
    const event = { hook_event_name: 'Stop', session_id: 's1', cwd, stop_hook_active: false };
    writeFileSync(join(cwd, 'event.json'), JSON.stringify(event));
    writeFileSync(join(cwd, 'events.jsonl'), JSON.stringify(event) + '\n');
    const ran = await runCli(argv, { env: e, cwd });
    expect(ran.stderr + ran.stdout).not.toMatch(/ENOENT|cannot read|does not exist/);
    expect(ran.code).toBe(code);
    expect(ran.stdout + ran.stderr).toMatch(out);
  });

  it('install --scope project writes the settings of the io directory, and --file resolves there', async () => {
    const { env: e, cwd } = project();
    const here = await runCli(['install', '--scope', 'project', '--transport', 'node'], { env: e, cwd });
    expect(here.stderr).toBe('');
    expect(here.code).toBe(0);
    expect(existsSync(join(cwd, '.factory', 'settings.json'))).toBe(true);
    const local = await runCli(
      ['install', '--agent', 'claude', '--file', 'local.json', '--transport', 'node'],
      { env: e, cwd },
    );
    expect(local.code).toBe(0);
    expect(existsSync(join(cwd, 'local.json'))).toBe(true);
  });

  it('emit without --cwd puts the io directory in the payload', async () => {
    const { env: e, cwd } = project();
    const ran = await runCli(['emit', 'Stop', '--print'], { env: e, cwd });
    expect(ran.code).toBe(0);
    expect((JSON.parse(ran.stdout) as { cwd: string }).cwd).toBe(cwd);
  });
});

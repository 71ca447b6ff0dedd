import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOOKD_BIN } from '../../helpers/fixtures.js';
import { useCliSandbox } from '../../helpers/cli-sandbox.js';
import { runHookd, type Ran } from '../../helpers/run-hookd.js';
import { runCli } from '../../helpers/cli-run.js';
import { INSTALL_AGENTS } from '../../../src/install/agents.js';
import { adapterFor } from '../../../src/agents/adapters/registry.js';

// What a new user meets in the first hour with the built `hookd`: help, the version, pipes, exit codes.

const packageVersion = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

const box = useCliSandbox();

const writeConfig = (config: unknown) => writeFileSync(box.env.HOOKD_CONFIG!, JSON.stringify(config));

/**
 * Runs the built hookd with its stdout a pipe whose reading end is closed before hookd writes a byte,
 * as `hookd ... | head -1` leaves it once head has its line.
 */
function runIntoClosedPipe(args: string[]): Promise<Ran> {
  const child = spawn(process.execPath, [HOOKD_BIN, ...args], {
    env: box.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  box.pids.push(child.pid!);
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout: '', stderr, pid: child.pid! }));
  });
}

describe('a closed pipe on stdout (hookd ... | head)', () => {
  it('ends every printing command quietly, with no stack', async () => {
    // Records for `hookd logs` to print: the hook run in-process writes them as the built one does.
    for (let i = 0; i < 3; i++) {
      const ran = await runCli(['hook', '--agent', 'droid'], {
        env: box.env,
        stdin: JSON.stringify({ session_id: 's1', hook_event_name: 'PostToolUse', tool_name: 'Execute' }),
      });
      expect(ran.code).toBe(0);
    }
    expect((await runCli(['logs'], { env: box.env })).stdout.trim().split('\n')).toHaveLength(3);
    for (const args of [
      ['logs'],
      ['logs', '--json'],
      ['schema'],
      ['config'],
      ['sessions', '--json'],
      ['emit', 'Stop', '--print'],
      ['--help'],
    ]) {
      const ran = await runIntoClosedPipe(args);
      expect(ran.stderr, args.join(' ')).toBe('');
      expect(ran.code, args.join(' ')).toBe(0);
    }
  });
});

describe('hookd demo into a closed pipe', () => {
  it('stops, cleans up after itself and exits quietly', async () => {
    const tmpdir = join(box.dir, 'tmp');
    mkdirSync(tmpdir);
    box.env.TMPDIR = tmpdir;
    const ran = await runIntoClosedPipe(['demo', '--fast']);
    expect(ran.stderr).toBe('');
    expect(readdirSync(tmpdir)).toEqual([]);
  });
});

describe('help and version', () => {
  it('`hookd` alone shows the help', async () => {
    const ran = await runCli([], { env: box.env });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('hookd <command> [options]');
    expect(ran.stdout).toContain('hookd install');
    expect(ran.stdout).toContain('Examples:');
    expect(ran.stderr).toBe('');
  });

  it('-v, --version and `hookd version` print the version', async () => {
    for (const args of [['-v'], ['--version'], ['version']]) {
      const ran = await runCli(args, { env: box.env });
      expect(ran.stderr, args.join(' ')).toBe('');
      expect(ran.code, args.join(' ')).toBe(0);
      expect(ran.stdout, args.join(' ')).toBe(`${packageVersion}\n`);
    }
  });

  it('the help names every agent hookd installs into, with its settings file', async () => {
    const top = await runCli(['--help'], { env: box.env });
    const install = await runCli(['install', '--help'], { env: box.env });
    const agentHelp = /--agent\s+([\s\S]*?)\[choices/.exec(install.stdout)?.[1]?.replace(/\s+/g, ' ');
    for (const agent of INSTALL_AGENTS) {
      const { displayName } = adapterFor(agent);
      expect(top.stdout.replace(/\s+/g, ' '), agent).toContain(displayName);
      expect(agentHelp, agent).toContain(`${displayName} (~/`);
    }
  });

  it('`hookd version` and -v are in the help', async () => {
    const ran = await runCli(['--help'], { env: box.env });
    expect(ran.stdout).toMatch(/\n {2}hookd version +/);
    expect(ran.stdout).toMatch(/-v, --version/);
  });
});

/** Every command path under `hookd`, read from the "Commands:" sections of the help, with its help. */
async function commandPaths(prefix: string[] = []): Promise<{ path: string[]; help: string }[]> {
  const ran = await runCli([...prefix, '--help'], { env: box.env });
  expect(ran.code, `${prefix.join(' ')} --help: ${ran.stderr}`).toBe(0);
  const own = { path: prefix, help: ran.stdout };
  const section = /\nCommands:\n([\s\S]*?)\n\n/.exec(ran.stdout);
  if (!section) return [own];
  const paths = prefix.length > 0 ? [own] : [];
  for (const line of section[1]!.split('\n')) {
    const words = /^ {2}hookd ((?:[a-z][\w-]* ?)+)/.exec(line)?.[1]?.trim().split(' ');
    if (!words || words.length <= prefix.length) continue;
    const name = words[prefix.length]!;
    if (name === 'completion' && prefix.length === 0) {
      const completion = await runCli(['completion', '--help'], { env: box.env });
      expect(completion.code, 'completion --help').toBe(0);
      paths.push({ path: ['completion'], help: completion.stdout });
      continue;
    }
    paths.push(...(await commandPaths([...prefix, name])));
  }
  return paths;
}

describe('every command has help with examples', () => {
  it('`--help` of each command and subcommand shows at least one example', async () => {
    // Each command's help is read once, where the walk through the tree asks for it.
    const paths = await commandPaths();
    // The tree is all there: top-level commands and the subcommands of outbox, daemon, api, sessions.
    expect(paths.map((p) => p.path.join(' '))).toEqual(
      expect.arrayContaining(['outbox list', 'outbox retry', 'outbox purge', 'daemon restart', 'version']),
    );
    const without = paths.filter((p) => !/\nExamples:\n {2}hookd /.test(p.help)).map((p) => p.path.join(' '));
    expect(without).toEqual([]);
  });
});

describe('hookd ack: exit codes as documented', () => {
  it('a session that is not waiting is "not found" (5); an empty ack is fine (0)', async () => {
    const none = await runCli(['ack'], { env: box.env });
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toContain('nothing waits for an answer');
    const missing = await runCli(['ack', '1f4975ab'], { env: box.env });
    expect(missing.stderr).toContain('nothing waits for an answer in session 1f4975ab');
    expect(missing.code).toBe(5);
  });
});

describe('hookd hook on a terminal', () => {
  it('says at once what it is waiting for, on stderr', async () => {
    // `script` gives the hook a pseudo-terminal on stdin; the read gives up after 1 ms without input,
    // so without the line nothing at all would be printed before it exits.
    const child = spawn(
      'script',
      [
        '-qec',
        `${JSON.stringify(process.execPath)} ${JSON.stringify(HOOKD_BIN)} hook --agent droid`,
        '/dev/null',
      ],
      { env: { ...box.env, HOOKD_STDIN_TIMEOUT_MS: '1' }, stdio: ['pipe', 'pipe', 'pipe'], detached: true },
    );
    box.pids.push(child.pid!);
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(output).toMatch(/hookd hook reads one event/);
    expect(output).toContain('hookd emit');
  });
});

describe('hookd emit tells what the agent gets', () => {
  const pre = ['emit', 'PreToolUse', '--tool', 'Execute', '--command', 'ls', '--no-daemon'];

  async function realHook(): Promise<Ran> {
    const payload = await runCli([...pre, '--print'], { env: box.env });
    return runHookd(['hook', '--agent', 'droid'], { env: box.env, stdin: payload.stdout.trim() });
  }

  it("a command's exit 1 under Droid: exit 1 and its stderr, as the real hook answers", async () => {
    writeConfig({
      hooks: {
        PreToolUse: [{ matcher: 'Execute', hooks: [{ type: 'command', command: 'echo oops >&2; exit 1' }] }],
      },
    });
    const real = await realHook();
    expect(real.code).toBe(1);
    expect(real.stderr).toBe('oops\n');
    const emitted = await runCli(pre, { env: box.env });
    expect(emitted.stdout).toContain('agent gets exit 1, stderr: oops');
    expect(emitted.stdout).not.toContain('agent gets exit 0');
    const json = JSON.parse((await runCli([...pre, '--json'], { env: box.env })).stdout) as {
      reply: { exitCode: number };
    };
    expect(json.reply.exitCode).toBe(real.code);
  });

  it('a block (exit 2) and a JSON answer: the same exit code and output as the real hook', async () => {
    writeConfig({
      hooks: {
        PreToolUse: [
          { matcher: 'Execute', hooks: [{ type: 'command', command: 'echo no >&2; exit 2', name: 'deny' }] },
        ],
      },
    });
    expect((await realHook()).code).toBe(2);
    expect((await runCli(pre, { env: box.env })).stdout).toContain('agent gets exit 2 from deny, stderr: no');
    writeConfig({
      hooks: {
        PreToolUse: [
          {
            matcher: 'Execute',
            hooks: [{ type: 'command', command: `echo '{"decision":"approve"}'`, name: 'ok' }],
          },
        ],
      },
    });
    const real = await realHook();
    expect(real.code).toBe(0);
    expect((await runCli(pre, { env: box.env })).stdout).toContain(
      `agent gets exit 0 from ok, stdout: ${real.stdout.trim()}`,
    );
  });
});

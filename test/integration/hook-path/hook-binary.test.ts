import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DROID_EVENTS } from '../../../src/events/names.js';
import { droidFixtures, fixture } from '../../helpers/fixtures.js';
import { runHookd } from '../../helpers/run-hookd.js';
import { runCli } from '../../helpers/cli-run.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';
import { isAlive, killHard, readPid, waitFor } from '../../helpers/procs.js';

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let project: string;
const leftovers: number[] = [];

beforeEach(() => {
  tmp = makeTempDir();
  project = join(tmp.dir, 'project');
  mkdirSync(project);
  env = isolatedEnv(tmp.dir, { HOOKD_DAEMON: '0' });
});
afterEach(() => {
  for (const pid of leftovers.splice(0)) killHard(pid);
  tmp.cleanup();
});

function writeConfig(config: unknown): void {
  writeFileSync(env.HOOKD_CONFIG!, JSON.stringify(config));
}

function payload(path: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ ...fixture(path), cwd: project, ...extra });
}

function logRecords(): Record<string, unknown>[] {
  const file = join(env.XDG_STATE_HOME!, 'hookd', 'logs', 'hookd.log');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const cmd = (command: string, more: Record<string, unknown> = {}) => ({ type: 'command', command, ...more });

describe('hookd hook as the agent runs it', () => {
  it('runs every real fixture payload with the right stdin, env and cwd, exits 0 and prints nothing', async () => {
    // A shell recorder (no Node start per event): the bytes on its stdin, its directory and the event's
    // variables, in files the test reads after each event; one line per run in `$CAP.runs`.
    const cap = join(tmp.dir, 'capture');
    const recorder =
      'cat > "$CAP.stdin"; pwd -P > "$CAP.pwd"; echo run >> "$CAP.runs"; ' +
      'printf "%s\\n" "$hook_event_name" "$session_id" "${tool_name-}" "$HOOKD_EVENT" > "$CAP.env"';
    writeConfig({
      hooks: Object.fromEntries(
        DROID_EVENTS.map((e) => [e, [{ hooks: [cmd(recorder, { env: { CAP: cap } })] }]]),
      ),
    });
    const fixtures = droidFixtures();
    for (const [i, f] of fixtures.entries()) {
      const raw = JSON.stringify({ ...f.payload, cwd: project });
      // The first through the built program as a process; the rest through the same command in this
      // process (the agent's side of every event of every agent: events-agents-matrix.test.ts).
      const ran =
        i === 0 ? await runHookd(['hook'], { env, stdin: raw }) : await runCli(['hook'], { env, stdin: raw });
      expect(ran.code, f.file).toBe(0);
      expect(ran.stdout, f.file).toBe('');
      expect(readFileSync(`${cap}.stdin`, 'utf8'), f.file).toBe(raw);
      expect(readFileSync(`${cap}.pwd`, 'utf8'), f.file).toBe(`${project}\n`);
      const [ev, sid, tool, hookd] = readFileSync(`${cap}.env`, 'utf8').split('\n');
      expect(ev, f.file).toBe(f.payload.hook_event_name);
      expect(hookd, f.file).toBe(f.payload.hook_event_name);
      expect(sid, f.file).toBe(f.payload.session_id);
      expect(tool || null, f.file).toBe((f.payload.tool_name as string | undefined) ?? null);
      for (const part of ['stdin', 'pwd', 'env']) rmSync(`${cap}.${part}`);
    }
    expect(readFileSync(`${cap}.runs`, 'utf8')).toBe('run\n'.repeat(fixtures.length));
    const eventRecords = logRecords().filter((r) => r.kind === 'event');
    expect(eventRecords).toHaveLength(fixtures.length);
    expect(eventRecords.every((r) => r.commands === 1 && r.failed === 0)).toBe(true);
  });

  it.each([
    ['empty', '', 'empty'],
    ['not JSON', '{"hook_event_name": "Stop"', 'not-json'],
    ['not an object', '[1, 2, 3]', 'not-object'],
    ['binary', Buffer.from([0x00, 0x01, 0xff, 0x7b]), 'binary'],
  ])('keeps %s input in the dead-letter folder, logs why and exits 0', async (_name, input, reason) => {
    writeConfig({ hooks: { Stop: [{ hooks: [cmd('exit 2', { blocking: true })] }] } });
    const ran = await runHookd(['hook'], { env, stdin: input });
    expect(ran).toMatchObject({ code: 0, stdout: '' });
    const record = logRecords().find((r) => r.kind === 'bad-input');
    expect(record).toMatchObject({ level: 50, reason });
    const dir = join(env.XDG_STATE_HOME!, 'hookd', 'dead-letter');
    const kept = readdirSync(dir).filter((n) => n.endsWith('.bin'));
    expect(kept).toHaveLength(1);
    expect(readFileSync(join(dir, kept[0]!))).toEqual(Buffer.from(input));
  });

  it('rejects input over the size limit without reading it all, and exits 0', async () => {
    const big = JSON.stringify({ hook_event_name: 'Stop', pad: 'x'.repeat(300_000) });
    const ran = await runHookd(['hook'], { env: { ...env, HOOKD_MAX_STDIN_BYTES: '100000' }, stdin: big });
    expect(ran.code).toBe(0);
    expect(logRecords().find((r) => r.kind === 'bad-input')).toMatchObject({
      reason: 'too-big',
      bytes: 100_000,
    });
  });

  it('does not wait forever for an agent that never closes stdin', async () => {
    const ran = await runHookd(['hook'], {
      env: { ...env, HOOKD_STDIN_TIMEOUT_MS: '300' },
      stdin: '{"hook_event_name":',
      closeStdin: false,
    });
    expect(ran.code).toBe(0);
    expect(logRecords().find((r) => r.kind === 'bad-input')).toMatchObject({ reason: 'timeout' });
  });

  it('bounds the dead-letter folder', async () => {
    // In this process: the test above has the built program write a dead letter.
    for (let i = 0; i < 4; i++)
      await runCli(['hook'], { env: { ...env, HOOKD_DEAD_LETTER_MAX: '2' }, stdin: `not json ${i}` });
    const kept = readdirSync(join(env.XDG_STATE_HOME!, 'hookd', 'dead-letter')).filter((n) =>
      n.endsWith('.bin'),
    );
    expect(kept).toHaveLength(2);
  });

  it('exits 0 silently whatever non-blocking commands do (exit 1/2/3/127, timeouts), and logs each result', async () => {
    writeConfig({
      hooks: {
        PreToolUse: [
          {
            matcher: 'Execute',
            hooks: [
              cmd('echo one >&2; exit 1', { name: 'one', blocking: false }),
              cmd('echo two >&2; exit 2', { name: 'two', blocking: false }),
              cmd('exit 3', { name: 'three', blocking: false }),
              cmd('no-such-program-hookd', { name: 'missing', blocking: false }),
              cmd('sleep 20', { name: 'hang', timeout: 0.3, blocking: false }),
            ],
          },
        ],
      },
    });
    const ran = await runHookd(['hook'], { env, stdin: payload('jsonrpc/03-PreToolUse-Execute.json') });
    expect(ran).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const commands = Object.fromEntries(
      logRecords()
        .filter((r) => r.kind === 'command')
        .map((r) => [r.name, r]),
    );
    expect(commands.one).toMatchObject({ exitCode: 1, stderrTail: 'one\n', level: 40 });
    expect(commands.two).toMatchObject({ exitCode: 2 });
    expect(commands.three).toMatchObject({ exitCode: 3 });
    expect(commands.missing).toMatchObject({ exitCode: 127 });
    expect(commands.hang).toMatchObject({
      timedOut: true,
      killedBy: 'timeout',
      signal: 'SIGTERM',
      timeoutMs: 300,
    });
  });

  it("passes a blocking command's exit 2 and stderr to the agent", async () => {
    writeConfig({
      hooks: {
        PreToolUse: [
          {
            matcher: 'Execute',
            hooks: [
              cmd('echo "not this one" >&2; exit 2', { name: 'plain', blocking: false }),
              cmd('echo "dangerous command" >&2; exit 2', { name: 'guard', blocking: true }),
            ],
          },
        ],
      },
    });
    const ran = await runHookd(['hook'], { env, stdin: payload('jsonrpc/03-PreToolUse-Execute.json') });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe('dangerous command\n');
    expect(ran.stdout).toBe('');
  });

  it('passes a blocking JSON decision on stdout; the first decision in config order wins', async () => {
    const deny = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'first',
      },
    });
    writeConfig({
      hooks: {
        PreToolUse: [
          { hooks: [cmd('sleep 0.3; exit 0', { name: 'slow-ok', blocking: true })] },
          { hooks: [cmd(`sleep 0.2; echo '${deny}'`, { name: 'first', blocking: true })] },
          { hooks: [cmd('echo second >&2; exit 2', { name: 'second', blocking: true })] },
        ],
      },
    });
    const ran = await runHookd(['hook'], { env, stdin: payload('jsonrpc/03-PreToolUse-Execute.json') });
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual(JSON.parse(deny));
  });

  it('ignores a blocking command that timed out (fail open)', async () => {
    writeConfig({
      hooks: {
        Stop: [{ hooks: [cmd('echo block >&2; sleep 20; exit 2', { blocking: true, timeout: 0.3 })] }],
      },
    });
    const ran = await runHookd(['hook'], { env, stdin: payload('jsonrpc/16-Stop.json') });
    expect(ran).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it("passes context commands' stdout to the agent for SessionStart", async () => {
    writeConfig({
      hooks: {
        SessionStart: [
          {
            hooks: [
              cmd('echo "branch: main"', { context: true }),
              cmd('echo "not context"', { blocking: false }),
            ],
          },
        ],
      },
    });
    const ran = await runHookd(['hook'], { env, stdin: payload('jsonrpc/01-SessionStart-startup.json') });
    expect(ran).toMatchObject({ code: 0, stdout: 'branch: main\n' });
  });

  it('kills a hanging command and its grandchildren at the timeout; hookd returns promptly', async () => {
    const pidFile = join(tmp.dir, 'gc.pid');
    writeConfig({
      hooks: {
        Stop: [{ hooks: [cmd(`trap '' TERM; sleep 60 & echo $! > ${pidFile}; sleep 60`, { timeout: 0.5 })] }],
      },
    });
    const ran = await runHookd(['hook'], {
      env: { ...env, HOOKD_DEBUG: '0' },
      stdin: payload('jsonrpc/16-Stop.json'),
    });
    const gc = readPid(pidFile);
    if (gc) leftovers.push(gc);
    expect(ran.code).toBe(0);
    expect(gc).toBeDefined();
    expect(await waitFor(() => !isAlive(gc!))).toBe(true);
    expect(logRecords().find((r) => r.kind === 'command')).toMatchObject({
      timedOut: true,
      signal: 'SIGKILL',
    });
  });

  it('returns while a background child still holds stdout', async () => {
    const pidFile = join(tmp.dir, 'bg.pid');
    writeConfig({ hooks: { Stop: [{ hooks: [cmd(`sleep 60 & echo $! > ${pidFile}; echo started`)] }] } });
    const ran = await runHookd(['hook'], { env, stdin: payload('jsonrpc/16-Stop.json') });
    const bg = readPid(pidFile);
    if (bg) leftovers.push(bg);
    expect(ran.code).toBe(0);
    expect(logRecords().find((r) => r.kind === 'command')).toMatchObject({
      exitCode: 0,
      stdoutTail: 'started\n',
    });
  });

  it('runs identical commands once, and sequentially for events listed in sequentialEvents', async () => {
    const out = join(tmp.dir, 'order.txt');
    writeConfig({
      settings: { sequentialEvents: ['Stop'] },
      hooks: {
        Stop: [
          { hooks: [cmd(`sleep 0.3; echo a >> ${out}`), cmd(`echo b >> ${out}`)] },
          { hooks: [cmd(`echo b >> ${out}`)] },
        ],
      },
    });
    await runHookd(['hook'], { env, stdin: payload('jsonrpc/16-Stop.json') });
    expect(readFileSync(out, 'utf8')).toBe('a\nb\n');
  });

  it('fails open on an invalid config: exit 0, a log line naming the problem', async () => {
    writeFileSync(
      env.HOOKD_CONFIG!,
      '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "exit 2", "blocking": "yes"}]}]}}',
    );
    const ran = await runHookd(['hook'], { env, stdin: payload('jsonrpc/16-Stop.json') });
    expect(ran).toMatchObject({ code: 0, stdout: '' });
    expect(logRecords().find((r) => r.kind === 'config')).toMatchObject({
      level: 50,
      path: 'hooks.Stop[0].hooks[0].blocking',
    });
  });

  it('does nothing at all with HOOKD=0', async () => {
    const marker = join(tmp.dir, 'ran');
    writeConfig({ hooks: { Stop: [{ hooks: [cmd(`touch ${marker}; exit 2`, { blocking: true })] }] } });
    const ran = await runHookd(['hook'], {
      env: { ...env, HOOKD: '0' },
      stdin: payload('jsonrpc/16-Stop.json'),
    });
    expect(ran).toMatchObject({ code: 0, stdout: '' });
    expect(existsSync(marker)).toBe(false);
  });

  it('traces to stderr with HOOKD_DEBUG=1 and never logs secrets', async () => {
    writeConfig({
      hooks: {
        Stop: [
          {
            hooks: [
              cmd('echo "token ghp_abcdefghijklmnopqrstuvwxyz0123456789" >&2; exit 1', { blocking: false }),
            ],
          },
        ],
      },
    });
    const ran = await runHookd(['hook'], {
      env: { ...env, HOOKD_DEBUG: '1' },
      stdin: payload('jsonrpc/16-Stop.json'),
    });
    expect(ran.code).toBe(0);
    expect(ran.stderr).toContain('"kind":"command"');
    const log = readFileSync(join(env.XDG_STATE_HOME!, 'hookd', 'logs', 'hookd.log'), 'utf8');
    expect(log).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(ran.stderr).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
  });

  it('merges the trusted project config found in the agent project dir', async () => {
    const marker = join(tmp.dir, 'project-ran');
    writeConfig({ hooks: {} });
    mkdirSync(join(project, '.hookd'));
    writeFileSync(
      join(project, '.hookd', 'config.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [cmd(`touch ${marker}`)] }] } }),
    );
    expect((await runCli(['trust', project], { env })).code).toBe(0);
    await runHookd(['hook'], {
      env: { ...env, FACTORY_PROJECT_DIR: project },
      stdin: payload('jsonrpc/16-Stop.json'),
    });
    expect(existsSync(marker)).toBe(true);
  });
});

import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES_DIR, HOOKD_BIN, REPO_DIR } from '../helpers/fixtures.js';
import { runHookd } from '../helpers/run-hookd.js';
import { isolatedEnv, makeTempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let project: string;

beforeEach(() => {
  tmp = makeTempDir();
  project = join(tmp.dir, 'project');
  mkdirSync(project);
  env = isolatedEnv(tmp.dir, { HOOKD_DAEMON: '0', NO_COLOR: '1' });
});
afterEach(() => tmp.cleanup());

const cmd = (command: string, more: Record<string, unknown> = {}) => ({ type: 'command', command, ...more });
const write = (config: unknown) => writeFileSync(env.HOOKD_CONFIG!, JSON.stringify(config));

describe('hookd emit', () => {
  it('builds a realistic payload, runs it through the hook path and shows what ran', async () => {
    write({
      hooks: {
        PreToolUse: [
          {
            matcher: 'Execute',
            commandRegex: 'rm -rf',
            hooks: [cmd('echo "no way" >&2; exit 2', { name: 'guard', blocking: true })],
          },
          { matcher: 'Create', hooks: [cmd('true', { name: 'never' })] },
        ],
      },
    });
    const ran = await runHookd(
      ['emit', 'PreToolUse', '--tool', 'Execute', '--command', 'rm -rf /tmp/x', '--cwd', project],
      { env },
    );
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('PreToolUse Execute');
    expect(ran.stdout).toMatch(/⊘ guard {2}exit 2 .*\[blocking\]/);
    expect(ran.stdout).toContain('stderr| no way');
    expect(ran.stdout).toContain('entry 1 skipped: matcher "Create" does not match tool_name "Execute"');
    expect(ran.stdout).toContain('agent gets exit 2 from guard, stderr: no way');
  });

  it('prints JSON for scripts, and the bare payload with --print', async () => {
    write({ hooks: { Notification: [{ notification_type: 'idle_prompt', hooks: [cmd('echo idle')] }] } });
    const ran = await runHookd(
      ['emit', 'Notification', '--type', 'idle_prompt', '--json', '--cwd', project],
      { env },
    );
    const report = JSON.parse(ran.stdout) as {
      commands: { stdout: string; exitCode: number }[];
      event: { name: string };
    };
    expect(report.event.name).toBe('Notification');
    expect(report.commands).toEqual([expect.objectContaining({ exitCode: 0, stdout: 'idle\n' })]);
    const printed = await runHookd(
      ['emit', 'Stop', '--print', '--field', 'stop_hook_active=true', '--session', 'abc'],
      { env },
    );
    expect(JSON.parse(printed.stdout)).toMatchObject({
      hook_event_name: 'Stop',
      session_id: 'abc',
      stop_hook_active: true,
    });
  });

  it('runs a recorded payload with --from and explains a missing event', async () => {
    write({ hooks: { Stop: [{ hooks: [cmd('cat')] }] } });
    const ran = await runHookd(['emit', '--from', join(FIXTURES_DIR, 'jsonrpc', '16-Stop.json'), '--json'], {
      env,
      cwd: project,
    });
    const report = JSON.parse(ran.stdout) as { commands: { stdout: string; spawnError: string | null }[] };
    // The fixture's cwd (/home/dev/projects/demo) does not exist here: the command still runs, in the
    // fallback dir, and gets the payload on stdin.
    expect(report.commands[0]?.spawnError ?? null).toBeNull();
    expect(JSON.parse(report.commands[0]!.stdout)).toMatchObject({ hook_event_name: 'Stop' });
    const usage = await runHookd(['emit'], { env });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('name an event or give --from');
  });
});

describe('hookd replay', () => {
  it('replays a recorded stream in order and counts failures', async () => {
    const out = join(tmp.dir, 'order.txt');
    write({
      hooks: {
        PreToolUse: [{ hooks: [cmd(`echo "$tool_name" >> ${out}`)] }],
        Stop: [{ hooks: [cmd('exit 1')] }],
      },
    });
    const lines = readFileSync(join(FIXTURES_DIR, 'exec-session.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.stringify({ ...(JSON.parse(l) as object), cwd: project }));
    const file = join(tmp.dir, 'session.jsonl');
    writeFileSync(file, `${lines.join('\n')}\nnot json\n`);
    const ran = await runHookd(['replay', file], { env });
    expect(ran.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('Execute\nCreate\nTask\n');
    expect(ran.stdout).toMatch(/14 event\(s\) replayed, 2 command failure\(s\), 1 bad line\(s\)/);
    expect(ran.stderr).toContain(`${file}:15: skipped`);
  });
});

describe('hookd config, validate, schema', () => {
  it('prints the effective config with the origin of each hook entry', async () => {
    write({ hooks: { Stop: [{ hooks: [cmd('user-cmd', { name: 'u' })] }] } });
    mkdirSync(join(project, '.hookd'));
    writeFileSync(
      join(project, '.hookd', 'config.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [cmd('project-cmd', { timeout: 3 })] }] } }),
    );
    // A project file applies once the user trusted it (docs/configuration.md, "Project configs and trust").
    expect((await runHookd(['trust', project], { env })).code).toBe(0);
    const ran = await runHookd(['config', '--project', project, '--json'], { env });
    const out = JSON.parse(ran.stdout) as {
      config: { hooks: { Stop: unknown[] } };
      entryOrigins: { Stop: string[] };
    };
    expect(out.config.hooks.Stop).toHaveLength(2);
    expect(out.entryOrigins.Stop).toEqual([env.HOOKD_CONFIG, join(project, '.hookd', 'config.json')]);
    const text = await runHookd(['config', '--project', project], { env });
    expect(text.stdout).toContain(`Stop[1]  from ${join(project, '.hookd', 'config.json')}`);
    expect(text.stdout).toContain('project-cmd  (timeout=3s, blocking)');
  });

  it('validate exits 1 and lists every problem; 0 on a good file', async () => {
    const bad = join(tmp.dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({
        hooks: { Stop: [{ matcher: '[', hooks: [{ type: 'command', command: 'x', timeot: 5 }] }] },
      }),
    );
    const ran = await runHookd(['validate', bad], { env });
    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain('hooks.Stop[0].matcher: invalid pattern');
    expect(ran.stdout).toContain('did you mean "timeout"?');
    expect(ran.stdout).toContain('2 problem(s) found.');
    const good = await runHookd(['validate', join(REPO_DIR, 'hooks', 'config.example.json')], { env });
    expect(good.code).toBe(0);
    const json = await runHookd(['validate', bad, '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: false });
  });

  it('schema prints the committed JSON Schema', async () => {
    const ran = await runHookd(['schema'], { env });
    expect(JSON.parse(ran.stdout)).toEqual(JSON.parse(readFileSync(join(REPO_DIR, 'schema.json'), 'utf8')));
  });
});

describe('hookd logs', () => {
  it('--follow prints new records as they are written, until it is stopped', async () => {
    write({ hooks: { Stop: [{ hooks: [cmd('exit 0', { name: 'quick' })] }] } });
    await runHookd(['emit', 'Stop', '--session', 'before', '--cwd', project], { env });
    const child = spawn(process.execPath, [HOOKD_BIN, 'logs', '--follow', '--json', '--lines', '1'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      // The follower prints only records written after it started: it has started once it printed the
      // last record from before (it starts following in the same step).
      await waitFor(() => out.includes('"before"'), 10_000, 'the record from before');
      await runHookd(['emit', 'Stop', '--session', 'followed', '--cwd', project], { env });
      await waitFor(() => out.includes('"followed"'), 10_000, 'the followed record');
      const records = out
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { sessionId?: string; kind?: string });
      expect(records.some((r) => r.sessionId === 'followed' && r.kind === 'command')).toBe(true);
      // --lines 1: of the records written before it started, only the last one is shown.
      expect(records.filter((r) => r.sessionId === 'before')).toHaveLength(1);
    } finally {
      child.kill('SIGTERM');
    }
    const code = await new Promise((r) => child.on('close', r));
    expect(code).toBe(0);
  });
  it('shows events and command results readably, filtered by session, and as JSON', async () => {
    write({ hooks: { Stop: [{ hooks: [cmd('echo oops >&2; exit 4', { name: 'failing' })] }] } });
    await runHookd(['emit', 'Stop', '--session', 'sess-one', '--cwd', project], { env });
    await runHookd(['emit', 'Stop', '--session', 'sess-two', '--cwd', project], { env });
    const ran = await runHookd(['logs', '--session', 'sess-one'], { env });
    expect(ran.stdout).toContain('failing exited 4');
    expect(ran.stdout).toContain('stderr| oops');
    expect(ran.stdout).not.toContain('sess-two');
    const json = await runHookd(['logs', '--json', '--level', 'warn'], { env });
    const records = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: number });
    expect(records.length).toBe(2);
    expect(records.every((r) => r.level >= 40)).toBe(true);
  });
});

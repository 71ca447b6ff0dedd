import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hookdLogRecords } from '../../helpers/agent-hook.js';
import { HOOKD_BIN } from '../../helpers/fixtures.js';
import { killHard } from '../../helpers/procs.js';
import { collectRun, runHookd, type Ran } from '../../helpers/run-hookd.js';
import { runCli } from '../../helpers/cli-run.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';

// A guard marked "onError": "block" fails closed when hookd cannot read the event: too big, not closed
// in time, not JSON. Every case runs the built `hookd hook`, as the agent does, with real stdin pipes.

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let project: string;
const started: number[] = [];

beforeEach(() => {
  tmp = makeTempDir();
  project = join(tmp.dir, 'project');
  mkdirSync(project);
  env = isolatedEnv(tmp.dir, { CLAUDE_PROJECT_DIR: project });
});
afterEach(() => {
  for (const pid of started.splice(0)) killHard(pid);
  tmp.cleanup();
});

const MiB = 1024 * 1024;
const stateDir = () => join(env.XDG_STATE_HOME!, 'hookd');
const logs = () => hookdLogRecords(env);
const guardsNotRun = () => logs().filter((r) => r.kind === 'command' && r.outcome === 'guard not run');

/** A guard that counts and hashes its stdin into a file, says so on stderr and blocks. */
function guardCommand(out: string): string {
  return `node -e 'const b=require("fs").readFileSync(0);require("fs").writeFileSync(${JSON.stringify(out)},b.length+" "+require("crypto").createHash("sha256").update(b).digest("hex"));process.stderr.write("guard read "+b.length+" bytes\\n");process.exit(2)'`;
}

function writeConfig(hooks: Record<string, unknown>, more: Record<string, unknown> = {}): void {
  writeFileSync(env.HOOKD_CONFIG!, JSON.stringify({ hooks, ...more }));
}

const guard = (command: string, name = 'guard') => ({
  type: 'command',
  name,
  command,
  onError: 'block',
});

/** The usual setup: a fail-closed guard on PreToolUse for Write and Bash, and one on Stop. */
function failClosedConfig(out = join(tmp.dir, 'guard-read')): string {
  writeConfig({
    PreToolUse: [{ matcher: 'Write|Bash', hooks: [guard(guardCommand(out))] }],
    Stop: [{ hooks: [guard('echo "stop guard ran" >&2; exit 2', 'stop-guard')] }],
  });
  return out;
}

function preToolUse(toolInput: Record<string, unknown>, tool = 'Write'): Record<string, unknown> {
  return {
    session_id: 's-1',
    transcript_path: '/home/dev/.claude/projects/p/s-1.jsonl',
    cwd: project,
    permission_mode: 'bypassPermissions',
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: toolInput,
    tool_use_id: 'toolu_1',
  };
}

/** Starts `hookd hook` with stdin left open after `written`; the test ends it by its pid. */
function runOpen(args: string[], written: string, extraEnv: Record<string, string>): Promise<Ran> {
  const child = spawn(process.execPath, [HOOKD_BIN, ...args], {
    env: { ...env, ...extraEnv },
    cwd: project,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  started.push(child.pid!);
  return collectRun(child, { stdin: written, closeStdin: false });
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('a large event (a Write of a large file)', () => {
  it('runs the guard of a 10 MiB Write with the whole bytes on its stdin, from a private file removed after', async () => {
    const out = failClosedConfig();
    const payload = Buffer.from(
      JSON.stringify(preToolUse({ file_path: join(project, 'big.txt'), content: 'x'.repeat(10 * MiB) })),
    );
    const ran = await runHookd(['hook', '--agent', 'claude'], { env, stdin: payload, cwd: project });
    expect(ran.stderr).toBe(`guard read ${payload.length} bytes\n`);
    expect(ran.code).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe(`${payload.length} ${sha256(payload)}`);
    // The copy was a private file and is gone; nothing was dead-lettered.
    expect(readdirSync(join(stateDir(), 'stdin'))).toEqual([]);
    expect(existsSync(join(stateDir(), 'dead-letter'))).toBe(false);
    const event = logs().find((r) => r.kind === 'event');
    expect(event).toMatchObject({
      event: 'PreToolUse',
      tool: 'Write',
      bytes: payload.length,
      decidedBy: 'guard',
    });
  });

  it('keeps the copy 0600 in a 0700 folder while the commands run', async () => {
    const seen = join(tmp.dir, 'modes');
    const spill = join(stateDir(), 'stdin');
    writeConfig({
      PreToolUse: [{ hooks: [guard(`stat -c %a "${spill}" "${spill}"/*.json > ${seen}; exit 0`)] }],
    });
    const payload = JSON.stringify(preToolUse({ file_path: '/x', content: 'y'.repeat(2 * MiB) }));
    const ran = await runHookd(['hook', '--agent', 'claude'], {
      env: { ...env, HOOKD_STDIN_MEMORY_BYTES: String(MiB) },
      stdin: payload,
    });
    expect(ran.code).toBe(0);
    expect(readFileSync(seen, 'utf8').trim().split('\n')).toEqual(['700', '600']);
    expect(readdirSync(spill)).toEqual([]);
  });

  it('hands the daemon a bounded copy: long strings cut with a marker, the event kept', async () => {
    writeConfig(
      { PreToolUse: [{ hooks: [{ type: 'command', command: 'exit 0' }] }] },
      { daemon: { autoStart: false } },
    );
    const content = 'z'.repeat(3 * MiB);
    const payload = JSON.stringify(preToolUse({ file_path: '/x', content }));
    const ran = await runHookd(['hook', '--agent', 'claude'], {
      env: { ...env, HOOKD_DAEMON: '1', HOOKD_STDIN_MEMORY_BYTES: String(MiB) },
      stdin: payload,
    });
    expect(ran.code).toBe(0);
    const spool = join(stateDir(), 'spool');
    const [file] = readdirSync(spool).filter((n) => n.endsWith('.json'));
    const line = readFileSync(join(spool, file!), 'utf8');
    expect(line.length).toBeLessThan(256 * 1024);
    const message = JSON.parse(line) as {
      event: {
        name: string;
        payload: { tool_name: string; tool_input: { file_path: string; content: string } };
      };
    };
    expect(message.event.name).toBe('PreToolUse');
    expect(message.event.payload.tool_name).toBe('Write');
    expect(message.event.payload.tool_input.file_path).toBe('/x');
    expect(message.event.payload.tool_input.content).toMatch(/^z{1000,}… \(\d+ (characters|bytes), cut\)$/);
  });

  it('blocks with "guard not run" when the event is over the size limit', async () => {
    failClosedConfig();
    const payload = JSON.stringify(preToolUse({ file_path: '/x', content: 'x'.repeat(2 * MiB) }));
    const ran = await runHookd(['hook', '--agent', 'claude'], {
      env: { ...env, HOOKD_MAX_STDIN_BYTES: String(MiB), HOOKD_STDIN_MEMORY_BYTES: String(MiB / 4) },
      stdin: payload,
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(
      `hookd: guard could not run (hookd could not read this PreToolUse event: stdin is larger than ${MiB} bytes); it is marked "onError": "block", so hookd blocks\n`,
    );
    expect(guardsNotRun()).toMatchObject([
      { level: 50, event: 'PreToolUse', name: 'guard', reason: 'too-big' },
    ]);
    expect(logs().find((r) => r.kind === 'bad-input')).toMatchObject({
      reason: 'too-big',
      event: 'PreToolUse',
      eventFrom: 'input',
      tool: 'Write',
    });
    expect(readdirSync(join(stateDir(), 'stdin'))).toEqual([]);
  });

  it('blocks when the private copy cannot be written, and says why', async () => {
    failClosedConfig();
    mkdirSync(stateDir(), { recursive: true, mode: 0o700 });
    writeFileSync(join(stateDir(), 'stdin'), 'not a folder');
    const payload = JSON.stringify(preToolUse({ file_path: '/x', content: 'x'.repeat(2 * MiB) }));
    const ran = await runHookd(['hook', '--agent', 'claude'], {
      env: { ...env, HOOKD_STDIN_MEMORY_BYTES: String(MiB) },
      stdin: payload,
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/could not be kept on disk/);
    expect(guardsNotRun()).toHaveLength(1);
  });
});

describe('stdin not closed in time', () => {
  it('blocks a PreToolUse whose agent leaves stdin open', async () => {
    failClosedConfig();
    const ran = await runOpen(
      ['hook', '--agent', 'claude'],
      '{"session_id":"s-1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf',
      { HOOKD_STDIN_TIMEOUT_MS: '300' },
    );
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(
      /^hookd: guard could not run \(hookd could not read this PreToolUse event: stdin was not closed/,
    );
    expect(guardsNotRun()).toMatchObject([{ reason: 'timeout', event: 'PreToolUse' }]);
  });

  it('lets a Stop go on (exit 0): exit 2 would make the agent continue', async () => {
    failClosedConfig();
    const ran = await runOpen(['hook', '--agent', 'claude', '--event', 'Stop'], '{"hook_event_name":"St', {
      HOOKD_STDIN_TIMEOUT_MS: '300',
    });
    expect(ran).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(logs().find((r) => r.kind === 'bad-input')).toMatchObject({ reason: 'timeout', event: 'Stop' });
    expect(guardsNotRun()).toEqual([]);
  });
});

describe('input that is not JSON', () => {
  it('blocks with --event PreToolUse', async () => {
    failClosedConfig();
    const ran = await runHookd(['hook', '--agent', 'droid', '--event', 'PreToolUse'], {
      env,
      stdin: 'this is not JSON',
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/hookd could not read this PreToolUse event: stdin is not JSON/);
    expect(logs().find((r) => r.kind === 'bad-input')).toMatchObject({ eventFrom: 'command line' });
  });

  it('quotes nothing of the input raw: escape sequences and bidi overrides become \\u escapes', async () => {
    failClosedConfig();
    const hostile = 'x\u001b]0;pwned\u0007\u001b[2J\u202eevil';
    const ran = await runHookd(['hook', '--agent', 'claude', '--event', 'PreToolUse'], {
      env,
      stdin: hostile,
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(
      /^hookd: guard could not run \(hookd could not read this PreToolUse event: stdin is not JSON/,
    );
    expect(ran.stderr).toContain('\\u001b');
    const raw = [...ran.stderr].filter((c) => /[\p{Cc}\p{Cf}]/u.test(c) && c !== '\n');
    expect(raw).toEqual([]);
  });

  it('accepts --event=PreToolUse before --agent, and ignores an --event that is no event name', async () => {
    failClosedConfig();
    const first = await runHookd(['hook', '--event=PreToolUse', '--agent=claude'], { env, stdin: '{oops' });
    expect(first.code).toBe(2);
    const second = await runHookd(['hook', '--agent', 'claude', '--event', 'Pre Tool;Use'], {
      env,
      stdin: JSON.stringify(preToolUse({ command: 'ls' }, 'Bash')),
    });
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/^guard read \d+ bytes\n$/);
    expect(logs().find((r) => r.kind === 'event-flag')).toMatchObject({ level: 40, value: 'Pre Tool;Use' });
  });

  it('never blocks an unreadable Stop or SubagentStop', async () => {
    writeConfig({
      Stop: [{ hooks: [guard('exit 2', 'stop-guard')] }],
      SubagentStop: [{ hooks: [guard('exit 2', 'sub-guard')] }],
      PreToolUse: [{ hooks: [guard('exit 2')] }],
    });
    for (const event of ['Stop', 'SubagentStop']) {
      const ran = await runHookd(['hook', '--agent', 'droid', '--event', event], {
        env,
        stdin: '{"stop_hook',
      });
      expect(ran, event).toMatchObject({ code: 0, stdout: '', stderr: '' });
      const named = await runHookd(['hook', '--agent', 'droid'], {
        env,
        stdin: `{"hook_event_name":"${event}","stop_hook_active":tru`,
      });
      expect(named, event).toMatchObject({ code: 0, stdout: '', stderr: '' });
    }
    expect(guardsNotRun()).toEqual([]);
  });

  it('unknown event: blocks when a fail-closed guard exists for an event other than Stop, else not', async () => {
    writeConfig({ Stop: [{ hooks: [guard('exit 2', 'stop-guard')] }] });
    const onlyStop = await runHookd(['hook', '--agent', 'claude'], { env, stdin: '\u0000\u0001binary' });
    expect(onlyStop.code).toBe(0);
    writeConfig({
      Stop: [{ hooks: [guard('exit 2', 'stop-guard')] }],
      UserPromptSubmit: [{ hooks: [guard('exit 2', 'prompt-guard')] }],
    });
    const ran = await runHookd(['hook', '--agent', 'claude'], { env, stdin: '\u0000\u0001binary' });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(
      `hookd: prompt-guard could not run (hookd could not read this event, nor tell which event it is: stdin is not UTF-8 text (8 bytes)); it is marked "onError": "block", so hookd blocks\n`,
    );
  });

  it('does not block when what it read rules the guard out (another tool)', async () => {
    failClosedConfig();
    const ran = await runHookd(['hook', '--agent', 'claude'], {
      env,
      stdin: '{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/x"',
    });
    expect(ran.code).toBe(0);
    expect(guardsNotRun()).toEqual([]);
  });

  it("blocks for a trusted project's fail-closed guard", async () => {
    writeConfig({});
    mkdirSync(join(project, '.hookd'));
    writeFileSync(
      join(project, '.hookd', 'config.json'),
      JSON.stringify({ hooks: { PreToolUse: [{ hooks: [guard('exit 0', 'project-guard')] }] } }),
    );
    const untrusted = await runHookd(['hook', '--agent', 'claude', '--event', 'PreToolUse'], {
      env,
      stdin: '{',
    });
    expect(untrusted.code).toBe(0);
    expect((await runCli(['trust', project], { env })).code).toBe(0);
    const ran = await runHookd(['hook', '--agent', 'claude', '--event', 'PreToolUse'], { env, stdin: '{' });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/^hookd: project-guard could not run/);
    expect(guardsNotRun()).toMatchObject([{ origin: 'project' }]);
  });
});

describe('a string that fakes a key', () => {
  const fake = 'see {"hook_event_name":"Stop"} and "hook_event_name": "Stop"';

  it('reads the real event name, not one inside the content, when the input is cut', async () => {
    failClosedConfig();
    const whole = JSON.stringify(preToolUse({ file_path: '/x', content: `${fake}${'x'.repeat(1000)}` }));
    const ran = await runOpen(['hook', '--agent', 'claude'], whole.slice(0, whole.indexOf('xxxx')), {
      HOOKD_STDIN_TIMEOUT_MS: '300',
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/could not read this PreToolUse event/);
  });

  it('does not take Stop from the content when the real name comes after it', async () => {
    failClosedConfig();
    const payload = {
      tool_name: 'Write',
      tool_input: { file_path: '/x', content: `${fake}${'x'.repeat(1000)}` },
      hook_event_name: 'PreToolUse',
    };
    const whole = JSON.stringify(payload);
    const ran = await runOpen(['hook', '--agent', 'claude'], whole.slice(0, whole.indexOf('xxxx')), {
      HOOKD_STDIN_TIMEOUT_MS: '300',
    });
    // The event is unknown: a fail-closed guard of another event than Stop exists, so it blocks.
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/could not read this event, nor tell which event it is/);
  });
});

describe('a UTF-8 byte order mark', () => {
  it('is read as JSON: the guard runs and decides, with the bytes as the agent sent them', async () => {
    const out = failClosedConfig();
    const payload = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(JSON.stringify(preToolUse({ command: 'ls' }, 'Bash'))),
    ]);
    const ran = await runHookd(['hook', '--agent', 'claude'], { env, stdin: payload });
    expect(ran).toMatchObject({ code: 2, stderr: `guard read ${payload.length} bytes\n` });
    expect(readFileSync(out, 'utf8')).toBe(`${payload.length} ${sha256(payload)}`);
    expect(logs().find((r) => r.kind === 'bad-input')).toBeUndefined();
    // And one that allows lets the tool run.
    writeConfig({ PreToolUse: [{ hooks: [guard('exit 0')] }] });
    const allowed = await runHookd(['hook', '--agent', 'claude'], { env, stdin: payload });
    expect(allowed).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('is read as JSON past the in-memory limit too', async () => {
    const out = failClosedConfig();
    const payload = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(JSON.stringify(preToolUse({ file_path: '/x', content: 'q'.repeat(2 * MiB) }))),
    ]);
    const ran = await runHookd(['hook', '--agent', 'claude'], {
      env: { ...env, HOOKD_STDIN_MEMORY_BYTES: String(MiB) },
      stdin: payload,
    });
    expect(ran.code).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe(`${payload.length} ${sha256(payload)}`);
  });
});

import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DROID_EVENTS } from '../../src/events/names.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLAUDE_FIXTURES_DIR, HOOKD_BIN } from '../helpers/fixtures.js';
import { killHard } from '../helpers/procs.js';
import { runHookd } from '../helpers/run-hookd.js';
import { isolatedEnv, makeTempDir } from '../helpers/temp.js';

// The built CLI: `hookd install | uninstall | import` against settings files in a throwaway HOME.

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
const started = new Set<number>();
const droidSettings = () => join(env.HOME!, '.factory', 'settings.json');
const claudeSettings = () => join(env.HOME!, '.claude', 'settings.json');

function writeJson(file: string, value: unknown): string {
  mkdirSync(join(file, '..'), { recursive: true });
  const text = JSON.stringify(value, null, 2) + '\n';
  writeFileSync(file, text);
  return text;
}

async function hookd(...args: string[]) {
  const ran = await runHookd(args, { env, cwd: tmp.dir });
  started.add(ran.pid);
  return ran;
}

/** Runs an installed hook command the way the agent does: `sh -c`, the payload on stdin, then closed. */
function runAsAgent(command: string, payload: string, extraEnv: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn('sh', ['-c', command], {
      env: { ...env, ...extraEnv },
      cwd: tmp.dir,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    started.add(child.pid!);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(payload);
  });
}

beforeEach(() => {
  tmp = makeTempDir('hkd-inst-');
  env = isolatedEnv(tmp.dir);
});

afterEach(() => {
  for (const pid of started) killHard(pid);
  started.clear();
  tmp.cleanup();
});

describe('hookd install / uninstall (built CLI)', () => {
  it('wires the absolute path of the running hookd into all nine Droid events, once', async () => {
    const original = writeJson(droidSettings(), {
      theme: 'dark',
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say hi' }] }] },
    });
    const dry = await hookd('install', '--transport', 'node', '--all-events', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('Would install hookd for Droid (user scope)');
    expect(dry.stdout).toContain(`+++ ${droidSettings()}`);
    expect(readFileSync(droidSettings(), 'utf8')).toBe(original);

    const first = await hookd('install', '--transport', 'node', '--all-events', '--json');
    expect(first.code).toBe(0);
    const result = JSON.parse(first.stdout);
    expect(result).toMatchObject({
      changed: true,
      command: `${process.execPath} ${HOOKD_BIN} hook --agent droid`,
    });
    const data = JSON.parse(readFileSync(droidSettings(), 'utf8'));
    expect(Object.keys(data.hooks)).toHaveLength(9);
    expect(data.hooks.Stop[0]).toEqual({ hooks: [{ type: 'command', command: 'say hi' }] });
    expect(data.hooks.Stop[1]).toEqual({
      matcher: '',
      hooks: [
        {
          type: 'command',
          command: `${process.execPath} ${HOOKD_BIN} hook --agent droid --event Stop`,
          timeout: 60,
        },
      ],
    });
    expect(readFileSync(result.backup, 'utf8')).toBe(original);

    const second = await hookd('install', '--transport', 'node', '--all-events');
    expect(second.stdout).toContain('already installed');
    expect(readdirSync(join(env.HOME!, '.factory')).filter((n) => n.includes('hookd-backup'))).toHaveLength(
      1,
    );

    const removed = await hookd('uninstall');
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain('Removed 9 hookd hooks');
    expect(readFileSync(droidSettings(), 'utf8')).toBe(original);
  });

  it('by default wires the fast client for every event a guard or a notification can use, and says which path each takes', async () => {
    writeJson(env.HOOKD_CONFIG!, {
      notify: { rules: [{ on: 'Stop', channels: ['desktop'] }] },
      ledger: { enabled: false },
    });
    const ran = await hookd('install', '--json');
    expect(ran.code, ran.stderr).toBe(0);
    const result = JSON.parse(ran.stdout);
    expect(result.transport).toBe('fast');
    // All nine: the config decides at run time, so a guard added later needs no new install.
    expect(result.paths).toEqual(
      DROID_EVENTS.map((event) => ({
        event,
        transport: 'fast',
        matcher: '',
        reasons: event === 'Stop' ? ['rules'] : [],
      })),
    );
    const data = JSON.parse(readFileSync(droidSettings(), 'utf8'));
    expect(Object.keys(data.hooks)).toEqual([...DROID_EVENTS]);
    // The native client npm run build compiled (CI has a compiler), naming the entry's event.
    expect(data.hooks.Stop[0].hooks[0].command).toMatch(
      /^HOOKD_NODE=\S+ \S+\/dist\/hookd-client --agent droid --event Stop$/,
    );
    expect(result.client).toBe('native');
    const text = await hookd('install', '--transport', 'node');
    expect(text.stdout).toContain(`updated:   ${DROID_EVENTS.join(', ')}`);
    expect(text.stdout).toContain(`node:      ${DROID_EVENTS.join(', ')}`);
    // What the Node path costs, and how to narrow it.
    expect(text.stdout).toContain(
      'note: the Node path is wired: each wired event starts Node (about 80 ms an event); `--events` narrows which events are wired',
    );
    const narrow = await hookd('install', '--transport', 'node', '--events', 'PreToolUse', '--dry-run');
    expect(narrow.stdout).toContain('node:      PreToolUse');
  });

  it('refuses a settings file Droid already rejects, naming the entry, exit 1', async () => {
    const broken = writeJson(droidSettings(), { hooks: { PreToolUse: [{ matcher: 5, hooks: [] }] } });
    const ran = await hookd('install');
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(
      'hooks.PreToolUse[0].matcher: error: matcher must be a string, not a number',
    );
    expect(ran.stderr).toContain('Fix the entries listed above');
    expect(readFileSync(droidSettings(), 'utf8')).toBe(broken);
  });

  it('refuses a read-only file (exit 1) and bad flags (exit 2)', async () => {
    const original = writeJson(droidSettings(), {});
    chmodSync(droidSettings(), 0o444);
    const ro = await hookd('install');
    expect(ro.code).toBe(1);
    expect(ro.stderr).toMatch(/read-only \(mode 0444\); nothing was changed/);
    expect(readFileSync(droidSettings(), 'utf8')).toBe(original);
    const bad = await hookd('install', '--events', 'Stop,Bogus');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown Droid event: Bogus');
  });

  it('import moves hook commands into the hookd config, and hookd then runs them', async () => {
    const marker = join(tmp.dir, 'marker');
    writeJson(droidSettings(), {
      hooks: {
        Stop: [
          {
            hooks: [
              { type: 'command', command: `cat > /dev/null; echo "ran $hook_event_name" >> ${marker}` },
            ],
          },
        ],
      },
    });
    const ran = await hookd('import');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('Moved 1 hook entry');
    const config = JSON.parse(readFileSync(env.HOOKD_CONFIG!, 'utf8'));
    expect(config.hooks.Stop).toHaveLength(1);
    const settings = JSON.parse(readFileSync(droidSettings(), 'utf8'));
    const command = settings.hooks.Stop[0].hooks[0].command as string;
    expect(command).toBe(`${process.execPath} ${HOOKD_BIN} hook --agent droid --event Stop`);
    const payload = JSON.stringify({
      session_id: 's1',
      cwd: tmp.dir,
      hook_event_name: 'Stop',
      stop_hook_active: false,
    });
    const agent = await runAsAgent(command, payload, { FACTORY_PROJECT_DIR: tmp.dir });
    expect(agent.code).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe('ran Stop\n');
  });
});

describe('Claude Code (built CLI)', () => {
  it('installs into ~/.claude/settings.json and hookd hands every Claude payload to its commands as sent', async () => {
    const ran = await hookd(
      'install',
      '--agent',
      'claude',
      '--timeout',
      '600',
      '--transport',
      'node',
      '--all-events',
    );
    expect(ran.code).toBe(0);
    const settings = JSON.parse(readFileSync(claudeSettings(), 'utf8'));
    expect(settings.hooks.Stop[0].hooks[0]).toEqual({
      type: 'command',
      command: `${process.execPath} ${HOOKD_BIN} hook --agent claude --event Stop`,
      timeout: 600,
    });

    const out = join(tmp.dir, 'seen.jsonl');
    const record = `node -e 'const fs=require("fs");fs.appendFileSync(process.argv[1], JSON.stringify({stdin: fs.readFileSync(0,"utf8"), ev: process.env.hook_event_name})+"\\n")' ${out}`;
    writeJson(env.HOOKD_CONFIG!, {
      hooks: Object.fromEntries(
        Object.keys(settings.hooks).map((e) => [e, [{ hooks: [{ type: 'command', command: record }] }]]),
      ),
    });

    // Every payload the real Claude Code 2.1.330 sent in the print and stream scenarios, for the events
    // `hookd install` wires.
    const payloads = ['print', 'stream'].flatMap((scenario) =>
      readdirSync(join(CLAUDE_FIXTURES_DIR, scenario))
        .filter((n) => /^\d\d-.*\.json$/.test(n))
        .sort()
        .map((n) => ({
          name: `${scenario}/${n}`,
          raw: readFileSync(join(CLAUDE_FIXTURES_DIR, scenario, n), 'utf8'),
        }))
        .filter((f) => settings.hooks[(JSON.parse(f.raw) as { hook_event_name: string }).hook_event_name]),
    );
    const events = new Set(
      payloads.map((f) => (JSON.parse(f.raw) as { hook_event_name: string }).hook_event_name),
    );
    for (const e of ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Notification', 'Stop'])
      expect(events).toContain(e);
    for (const e of ['SubagentStop', 'PreCompact', 'SessionEnd']) expect(events).toContain(e);
    for (const f of payloads) {
      // the agent runs hooks in the session's cwd, which must exist here
      const payload = JSON.stringify({ ...JSON.parse(f.raw), cwd: tmp.dir });
      const event = JSON.parse(payload).hook_event_name as string;
      const command = settings.hooks[event][0].hooks[0].command as string;
      const agent = await runAsAgent(command, payload, { CLAUDE_PROJECT_DIR: tmp.dir });
      expect(agent.code, `${f.name}: ${agent.stderr}`).toBe(0);
      expect(agent.stdout, f.name).toBe('');
    }
    const seen = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { stdin: string; ev: string });
    expect(seen).toHaveLength(payloads.length);
    for (const [i, s] of seen.entries())
      expect(JSON.parse(s.stdin)).toEqual({ ...JSON.parse(payloads[i]!.raw), cwd: tmp.dir });
    const post = seen.find((s) => s.ev === 'PostToolUse' && s.stdin.includes('"tool_name":"Bash"'));
    expect(JSON.parse(post!.stdin).tool_response).toEqual({
      stdout: 'hi',
      stderr: '',
      interrupted: false,
      isImage: false,
      noOutputExpected: false,
    });

    const removed = await hookd('uninstall', '--agent', 'claude');
    expect(removed.code).toBe(0);
    expect(readFileSync(claudeSettings(), 'utf8')).toBe('{}\n');
  });
});

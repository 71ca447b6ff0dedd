import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Explanation } from '../../src/explain/explain-event.js';
import { claudeFixture } from '../helpers/claude-fixtures.js';
import { CLAUDE_FIXTURES_DIR, FIXTURES_DIR } from '../helpers/fixtures.js';
import { runHookd } from '../helpers/run-hookd.js';
import { isolatedEnv, makeTempDir } from '../helpers/temp.js';

// `hookd emit` and `hookd explain` with --agent droid|claude (built CLI, real processes): the event is
// built as that agent sends it and processed as `hookd hook --agent X` does.

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let project: string;
/** What each guard read on its stdin; a guard that never ran leaves no file. */
let claudeSeen: string;
let droidSeen: string;

const writeConfig = (config: unknown) => writeFileSync(env.HOOKD_CONFIG!, JSON.stringify(config));

beforeEach(() => {
  tmp = makeTempDir();
  project = join(tmp.dir, 'project');
  mkdirSync(project);
  env = isolatedEnv(tmp.dir, { NO_COLOR: '1' });
  claudeSeen = join(tmp.dir, 'claude-seen.json');
  droidSeen = join(tmp.dir, 'droid-seen.json');
  // No matcher: only the entries' "agent" keeps a guard from running for the other agent's event.
  writeConfig({
    hooks: {
      PreToolUse: [
        {
          agent: 'claude',
          commandRegex: 'rm -rf',
          hooks: [
            {
              type: 'command',
              name: 'claude-guard',
              command: `cat > ${claudeSeen}; echo "claude guard: no rm -rf" >&2; exit 2`,
            },
          ],
        },
        {
          agent: 'droid',
          commandRegex: 'rm -rf',
          hooks: [
            {
              type: 'command',
              name: 'droid-guard',
              command: `cat > ${droidSeen}; echo "droid guard: no rm -rf" >&2; exit 2`,
            },
          ],
        },
      ],
    },
  });
});
afterEach(() => tmp.cleanup());

const hookd = (...args: string[]) => runHookd(args, { env, cwd: project });
/** Run inside the other agent's session, whose variables would make hookd guess that agent. */
const insideDroid = (...args: string[]) =>
  runHookd(args, { env: { ...env, FACTORY_PROJECT_DIR: project }, cwd: project });
const insideClaude = (...args: string[]) =>
  runHookd([...args, '--session', 'outer'], {
    env: { ...env, CLAUDE_CODE_SESSION_ID: 'outer' },
    cwd: project,
  });

interface ReportJson {
  event: { name: string; agent: string };
  commands: { name: string; exitCode: number }[];
  skipped: { entry: number; reason: string }[];
  reply: { exitCode: number; stdout: string; stderr: string; decidedBy?: string };
}

describe('hookd emit --agent', () => {
  it('claude: a Claude-shaped Bash call blocked by the claude guard; the droid guard never runs', async () => {
    // From a terminal of a Droid session: named, the agent is not guessed from its variables.
    const ran = await insideDroid('emit', 'PreToolUse', '--agent', 'claude', '--command', 'rm -rf /');
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('PreToolUse Bash  agent claude  session ');
    expect(ran.stdout).toMatch(/⊘ claude-guard {2}exit 2 /);
    expect(ran.stdout).toContain(`entry 1 skipped: agent "droid" is not this event's (claude)`);
    expect(ran.stdout).toContain('agent gets exit 2 from claude-guard, stderr: claude guard: no rm -rf');
    expect(ran.stdout).not.toContain('droid guard');
    expect(existsSync(droidSeen)).toBe(false);
    // The guard got the event as Claude Code sends it: its tool, a tool-use id, and the trailing newline.
    const raw = readFileSync(claudeSeen, 'utf8');
    expect(raw.endsWith('}\n')).toBe(true);
    expect(JSON.parse(raw)).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'rm -rf /' },
      tool_use_id: expect.stringMatching(/^toolu_/),
      permission_mode: 'default',
    });
  });

  it('droid (the default, or named): the droid guard blocks an Execute call; the claude guard never runs', async () => {
    // A built event is Droid's, also where Claude Code's variables name the same session.
    const ran = await insideClaude('emit', 'PreToolUse', '--command', 'rm -rf /');
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('PreToolUse Execute  agent droid  session ');
    expect(ran.stdout).toContain(`entry 0 skipped: agent "claude" is not this event's (droid)`);
    expect(ran.stdout).toContain('agent gets exit 2 from droid-guard, stderr: droid guard: no rm -rf');
    expect(existsSync(claudeSeen)).toBe(false);
    const raw = readFileSync(droidSeen, 'utf8');
    expect(raw.endsWith('}')).toBe(true); // Droid sends no trailing newline
    expect(JSON.parse(raw)).toMatchObject({ tool_name: 'Execute', tool_input: { command: 'rm -rf /' } });

    const named = await hookd('emit', 'PreToolUse', '--agent', 'droid', '--command', 'rm -rf /', '--json');
    const report = JSON.parse(named.stdout) as ReportJson;
    expect(report.event).toMatchObject({ name: 'PreToolUse', agent: 'droid' });
    expect(report.commands.map((c) => [c.name, c.exitCode])).toEqual([['droid-guard', 2]]);
    expect(report.skipped).toEqual([{ entry: 0, reason: `agent "claude" is not this event's (droid)` }]);
    expect(report.reply).toMatchObject({ exitCode: 2, stderr: 'droid guard: no rm -rf\n' });
    expect(existsSync(claudeSeen)).toBe(false);
  });

  it('decides as the named agent does: Droid takes the first decision, Claude Code lets deny win', async () => {
    const decide = (decision: string) =>
      `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"${decision}"}}'`;
    writeConfig({
      hooks: {
        PreToolUse: [
          {
            hooks: [
              { type: 'command', name: 'allows', command: decide('allow') },
              { type: 'command', name: 'denies', command: decide('deny') },
            ],
          },
        ],
      },
    });
    const replies: Record<string, ReportJson['reply']> = {};
    for (const agent of ['droid', 'claude']) {
      const inOther = agent === 'claude' ? insideDroid : insideClaude;
      const ran = await inOther('emit', 'PreToolUse', '--agent', agent, '--json');
      replies[agent] = (JSON.parse(ran.stdout) as ReportJson).reply;
    }
    expect(replies.droid).toMatchObject({ exitCode: 0, decidedBy: 'allows' });
    expect(replies.claude).toMatchObject({ exitCode: 0, decidedBy: 'denies' });
    expect(replies.claude!.stdout).toContain('"permissionDecision":"deny"');
  });

  it('--print builds the payload Claude Code sends, key for key, and Droid as before', async () => {
    const keysOf = (text: string) => Object.keys(JSON.parse(text) as object);
    const claude = await hookd('emit', 'Stop', '--agent', 'claude', '--print', '--session', 'abc');
    expect(keysOf(claude.stdout)).toEqual(Object.keys(claudeFixture('tui/17-Stop.json')));
    expect(JSON.parse(claude.stdout)).toMatchObject({
      session_id: 'abc',
      cwd: project,
      transcript_path: join(
        env.HOME!,
        '.claude',
        'projects',
        project.replace(/[^A-Za-z0-9]/g, '-'),
        'abc.jsonl',
      ),
      stop_hook_active: false,
      background_tasks: [],
    });
    const droid = await hookd('emit', 'Stop', '--print');
    expect(keysOf(droid.stdout)).toEqual(
      keysOf(readFileSync(join(FIXTURES_DIR, 'jsonrpc', '16-Stop.json'), 'utf8')),
    );
    // An event only Claude Code has is built as it sends it.
    const ask = await hookd('emit', 'PermissionRequest', '--agent', 'claude', '--tool', 'Write', '--print');
    expect(keysOf(ask.stdout)).toEqual(Object.keys(claudeFixture('stream/07-PermissionRequest-Write.json')));
  });

  it('refuses an agent it does not know, with the choices (usage error)', async () => {
    for (const command of ['emit', 'explain']) {
      const ran = await hookd(command, 'PreToolUse', '--agent', 'cursor');
      expect(ran.code).toBe(2);
      expect(ran.stderr).toContain('Given: "cursor", Choices: "droid", "claude", "codex", "gemini"');
      expect(ran.stdout).toBe('');
    }
    expect(existsSync(claudeSeen) || existsSync(droidSeen)).toBe(false);
  });

  it('has --agent in --help, with examples', async () => {
    const emit = await hookd('emit', '--help');
    expect(emit.stdout).toContain('--agent');
    expect(emit.stdout).toContain('hookd emit PreToolUse --agent claude --command');
    expect(emit.stdout).toContain('PermissionRequest');
    const explain = await hookd('explain', '--help');
    expect(explain.stdout).toContain('--agent');
    expect(explain.stdout).toContain('hookd explain PreToolUse --agent claude --json');
  });
});

describe('hookd explain --agent', () => {
  it("lists the other agent's entry as not run, with route.ts's reason, and the path under that agent only", async () => {
    const installed = await hookd('install');
    expect(installed.code, installed.stderr).toBe(0);

    const ran = await insideDroid(
      'explain',
      'PreToolUse',
      '--agent',
      'claude',
      '--command',
      'rm -rf /',
      '--json',
    );
    expect(ran.code, ran.stderr).toBe(0);
    const x = JSON.parse(ran.stdout) as Explanation;
    expect(x.event).toMatchObject({
      name: 'PreToolUse',
      agent: 'claude',
      agentFrom: '--agent',
      matcher: { field: 'tool_name', value: 'Bash' },
    });
    expect(x.commands.run.map((c) => c.name)).toEqual(['claude-guard']);
    expect(x.commands.notRun).toEqual([
      { entry: 1, reason: `agent "droid" is not this event's (claude)`, commands: ['droid-guard'] },
    ]);
    // Droid is wired by the install, Claude Code is not: only Claude's path is told, and it says so.
    expect(x.paths).toEqual([expect.objectContaining({ agent: 'claude', path: 'not wired' })]);

    const droid = JSON.parse(
      (await insideClaude('explain', 'PreToolUse', '--command', 'rm -rf /', '--json')).stdout,
    ) as Explanation;
    expect(droid.event).toMatchObject({ agent: 'droid', agentFrom: 'built' });
    expect(droid.commands.notRun).toEqual([
      { entry: 0, reason: `agent "claude" is not this event's (droid)`, commands: ['claude-guard'] },
    ]);
    expect(droid.paths?.map((p) => p.agent)).toEqual(['droid']);

    const people = await hookd('explain', 'PreToolUse', '--agent', 'claude', '--command', 'rm -rf /');
    expect(people.stdout).toContain('PreToolUse  tool_name "Bash"  agent claude (--agent)  session ');
    expect(people.stdout).toContain(
      `  - entry 1 (droid-guard) not run: agent "droid" is not this event's (claude)`,
    );
    expect(existsSync(claudeSeen) || existsSync(droidSeen)).toBe(false);
  });

  it("reads a matcher as the named agent does: Claude Code's list of names, Droid's pattern", async () => {
    writeConfig({
      hooks: {
        PreToolUse: [{ matcher: 'Bash,Write', hooks: [{ type: 'command', command: 'true', name: 'list' }] }],
      },
    });
    const asClaude = JSON.parse(
      (await hookd('explain', 'PreToolUse', '--agent', 'claude', '--json')).stdout,
    ) as Explanation;
    expect(asClaude.commands.run.map((c) => c.name)).toEqual(['list']);
    const asDroid = JSON.parse(
      (await hookd('explain', 'PreToolUse', '--agent', 'droid', '--tool', 'Bash', '--json')).stdout,
    ) as Explanation;
    expect(asDroid.commands.notRun).toEqual([
      { entry: 0, reason: 'matcher "Bash,Write" does not match tool_name "Bash"', commands: ['list'] },
    ]);
  });

  it('guesses the agent of a recorded payload, and --agent overrides the guess', async () => {
    const file = join(CLAUDE_FIXTURES_DIR, 'auto', '03-PreToolUse-Bash.json');
    const guessed = JSON.parse((await hookd('explain', file, '--json')).stdout) as Explanation;
    expect(guessed.event).toMatchObject({ agent: 'claude', agentFrom: 'guessed' });
    expect(guessed.commands.run.map((c) => c.name)).toEqual(['claude-guard']);
    expect((await hookd('explain', file)).stdout).toContain('agent claude (guessed; --agent to say)');

    const named = JSON.parse(
      (await hookd('explain', file, '--agent', 'droid', '--json')).stdout,
    ) as Explanation;
    expect(named.event).toMatchObject({ agent: 'droid', agentFrom: '--agent' });
    expect(named.commands.run.map((c) => c.name)).toEqual(['droid-guard']);
    expect(existsSync(claudeSeen) || existsSync(droidSeen)).toBe(false);
  });
});

import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../../src/agents/adapters/registry.js';
import { AGENT_IDS, type AgentId } from '../../../src/agents/ids.js';
import { runCli } from '../../helpers/cli-run.js';
import { HOOKD_BIN, REPO_DIR } from '../../helpers/fixtures.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';

// Events x agents: every hook payload the real binaries sent (test/fixtures), run through `hookd hook
// --agent <agent>` as `hookd install` wires it, with the variables that agent sets. For each one: the
// event hookd names it (and the canonical event it stands for), the agent and the session id the
// commands see, which config entries ran (the catch-all and the one for that agent, never another
// agent's), and the answer in the shape that agent reads. Every payload runs in-process through the CLI
// without `--agent` (an entry the agent reads from another agent's file: hookd tells the agent from the
// payload and its variables); the first payload of each event of each agent runs again with `--agent` as
// install writes it, and for each agent a context event and a blocked tool call run through the built
// program as real processes (the agent's view: exit code, stdout, stderr).

const FIXTURES = join(REPO_DIR, 'test', 'fixtures');

/** Where each agent's recorded hook payloads are: numbered files in folders, and JSON-lines captures. */
const SOURCES: Record<AgentId, { dirs: string[]; lines: string[]; files: string[] }> = {
  droid: {
    dirs: ['droid-0.225.2/exec', 'droid-0.225.2/jsonrpc'],
    lines: ['droid-0.225.2-interrupt/hooks.jsonl'],
    files: [
      'droid-0.225.2-permission/pre-tool-use.json',
      'droid-0.225.2-permission/notification-permission-prompt.json',
    ],
  },
  claude: {
    dirs: ['print', 'stream', 'extras', 'auto', 'tui'].map((s) => `claude-code-2.1.330/${s}`),
    lines: ['claude-code-2.1.330-interrupt/hooks.jsonl'],
    files: ['pre-tool-use.json', 'permission-request.json', 'permission-request-ask-rule.json'].map(
      (f) => `claude-code-2.1.330-permission/${f}`,
    ),
  },
  codex: { dirs: ['codex-0.171.0'], lines: [], files: [] },
  gemini: { dirs: ['gemini-cli-0.61.0'], lines: [], files: [] },
  // Copilot's PermissionRequest payloads are of its own camelCase shape: hookd does not wire that event.
  copilot: {
    dirs: ['copilot-1.0.102/tools'],
    lines: [],
    files: [
      '01-SessionStart',
      '02-UserPromptSubmit',
      '03-PreToolUse-Bash',
      '05-PostToolUse-Bash',
      '06-PreToolUse-Bash',
      '08-PostToolUse-Bash',
      '09-PreToolUse-Bash',
      '11-PostToolUse-Bash',
      '12-Stop',
      '13-SessionEnd',
    ].map((f) => `copilot-1.0.102/claude-dialect/${f}.json`),
  },
};

/** Gemini's events that hookd runs under a Claude Code name (its config is written in those names). */
const GEMINI_AS: Record<string, string> = {
  BeforeTool: 'PreToolUse',
  AfterTool: 'PostToolUse',
  BeforeAgent: 'UserPromptSubmit',
  AfterAgent: 'Stop',
  PreCompress: 'PreCompact',
};

/** The canonical event of each recorded event name; absent: an event of that agent alone. */
const SHARED = {
  SessionStart: 'session-start',
  UserPromptSubmit: 'prompt',
  PreToolUse: 'before-tool',
  PostToolUse: 'after-tool',
  Stop: 'stop',
  SubagentStop: 'subagent-stop',
  PreCompact: 'before-compact',
  SessionEnd: 'session-end',
} as const;
const CANONICAL: Record<AgentId, Record<string, string>> = {
  droid: { ...SHARED, Notification: 'notification' },
  claude: {
    ...SHARED,
    Notification: 'notification',
    PermissionRequest: 'permission',
    PostToolUseFailure: 'tool-failed',
    StopFailure: 'stop-failed',
    SubagentStart: 'subagent-start',
    PostCompact: 'after-compact',
  },
  codex: SHARED,
  gemini: {
    SessionStart: 'session-start',
    BeforeAgent: 'prompt',
    BeforeTool: 'before-tool',
    AfterTool: 'after-tool',
    AfterAgent: 'stop',
    PreCompress: 'before-compact',
    SessionEnd: 'session-end',
  },
  copilot: SHARED,
};

/** The events whose plain stdout the agent gives the model as context (Gemini: as JSON). */
const CONTEXT: Record<AgentId, string[]> = {
  droid: ['SessionStart', 'UserPromptSubmit'],
  claude: ['SessionStart', 'UserPromptSubmit'],
  codex: ['SessionStart', 'UserPromptSubmit'],
  gemini: ['SessionStart', 'BeforeAgent'],
  copilot: ['SessionStart', 'UserPromptSubmit'],
};

/** The tool-call event a guard blocks, in the agent's name. */
const BEFORE_TOOL: Record<AgentId, string> = {
  droid: 'PreToolUse',
  claude: 'PreToolUse',
  codex: 'PreToolUse',
  gemini: 'BeforeTool',
  copilot: 'PreToolUse',
};

interface Recorded {
  agent: AgentId;
  /** Where it was recorded: `file` or `file:line`. */
  from: string;
  payload: Record<string, unknown>;
  /** The agent's name of the event. */
  native: string;
}

function recorded(agent: AgentId): Recorded[] {
  const out: Recorded[] = [];
  const add = (from: string, text: string) => {
    const payload = JSON.parse(text) as Record<string, unknown>;
    out.push({ agent, from, payload, native: String(payload.hook_event_name) });
  };
  const source = SOURCES[agent];
  for (const dir of source.dirs)
    for (const name of readdirSync(join(FIXTURES, dir)).sort())
      if (/^\d\d-.*\.json$/.test(name))
        add(`${dir}/${name}`, readFileSync(join(FIXTURES, dir, name), 'utf8'));
  for (const file of source.lines)
    readFileSync(join(FIXTURES, file), 'utf8')
      .split('\n')
      .forEach((line, i) => line.trim() && add(`${file}:${i + 1}`, line));
  for (const file of source.files) add(file, readFileSync(join(FIXTURES, file), 'utf8'));
  return out;
}

const ALL = AGENT_IDS.flatMap(recorded);
/** hookd's name of a recorded event: Gemini's mapped ones by their Claude Code name, others as sent. */
const hookdName = (r: Recorded) => (r.agent === 'gemini' ? (GEMINI_AS[r.native] ?? r.native) : r.native);

let tmp: { dir: string; cleanup: () => void };
let env: Record<string, string>;
let project: string;

/** Each entry appends `<agent>|<event>|<session>|<tag>` to the run's $MATRIX_LOG. */
const recorder = (tag: string) =>
  `printf '%s|%s|%s|${tag}\\n' "$HOOKD_AGENT" "$HOOKD_EVENT" "$HOOKD_SESSION_ID" >> "$MATRIX_LOG"`;
/** The catch-all entry also blocks when the run asks it to, and prints context. */
const CATCH_ALL = `${recorder('all')}; if [ -n "$MATRIX_BLOCK" ]; then echo 'matrix says no' >&2; exit 2; fi; echo 'matrix context'`;

/** The variables the agent sets for its hooks (as recorded), with the project moved to the test's. */
function agentEnv(r: Recorded): Record<string, string> {
  const session = String(r.payload.session_id);
  switch (r.agent) {
    case 'droid':
      return { FACTORY_PROJECT_DIR: project, DROID_PROJECT_DIR: project, CLAUDE_PROJECT_DIR: project };
    case 'claude':
      return { CLAUDE_CODE_SESSION_ID: session, CLAUDE_PROJECT_DIR: project };
    case 'codex':
      return {};
    case 'gemini':
      return { GEMINI_SESSION_ID: session, GEMINI_PROJECT_DIR: project, CLAUDE_PROJECT_DIR: project };
    case 'copilot':
      return { COPILOT_CLI: '1', COPILOT_PROJECT_DIR: project, CLAUDE_PROJECT_DIR: project };
  }
}

let runs = 0;
/** One run's input: the payload (its cwd the test's project), env and a log of its own. */
function prepare(r: Recorded, block: boolean) {
  const log = join(tmp.dir, `run-${++runs}.log`);
  writeFileSync(log, '');
  const runEnv = { ...env, ...agentEnv(r), MATRIX_LOG: log, ...(block ? { MATRIX_BLOCK: '1' } : {}) };
  const stdin = JSON.stringify({ ...r.payload, cwd: project });
  return { log, runEnv, stdin };
}

function lines(log: string): string[] {
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

/** What the agent must get back, in its own shape. */
function expectReply(r: Recorded, ran: { code: number; stdout: string; stderr: string }, block: boolean) {
  if (block && r.agent === 'copilot') {
    // Copilot shows the model no stderr of an exit 2: the block goes out as a JSON deny with the reason.
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(ran.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'matrix says no',
      },
    });
    return;
  }
  if (block) {
    expect(ran).toMatchObject({ code: 2, stdout: '', stderr: 'matrix says no\n' });
    return;
  }
  expect(ran.code).toBe(0);
  const context = CONTEXT[r.agent].includes(r.native);
  if (r.agent === 'gemini') {
    // Gemini reads every byte of stdout as JSON: nothing, or one object.
    expect(ran.stdout).toBe(
      context ? `${JSON.stringify({ hookSpecificOutput: { additionalContext: 'matrix context' } })}\n` : '',
    );
    if (ran.stdout) expect(JSON.parse(ran.stdout)).toBeTypeOf('object');
  } else expect(ran.stdout).toBe(context ? 'matrix context\n' : '');
}

/** The entries that ran: the catch-all and the one for this agent, each once, with what they saw. */
function expectEntries(r: Recorded, log: string) {
  const seen = `${r.agent}|${hookdName(r)}|${String(r.payload.session_id)}`;
  expect(lines(log).sort()).toEqual([`${seen}|${r.agent}`, `${seen}|all`].sort());
}

beforeAll(() => {
  tmp = makeTempDir('hkmx-');
  project = join(tmp.dir, 'project');
  mkdirSync(project);
  env = isolatedEnv(tmp.dir);
  const names = [...new Set(ALL.map(hookdName))];
  const command = (c: string) => ({ type: 'command', command: c, timeout: 30 });
  const hooks = Object.fromEntries(
    names.map((name) => [
      name,
      [
        { hooks: [command(CATCH_ALL)] },
        ...AGENT_IDS.map((agent) => ({ agent, hooks: [command(recorder(agent))] })),
      ],
    ]),
  );
  writeFileSync(env.HOOKD_CONFIG!, JSON.stringify({ hooks }));
});

afterAll(() => tmp.cleanup());

describe('the recorded payloads', () => {
  it('cover every agent, and each payload is one of its events', () => {
    for (const agent of AGENT_IDS) {
      const mine = ALL.filter((r) => r.agent === agent);
      expect(mine.length, agent).toBeGreaterThan(5);
      for (const r of mine) expect(ADAPTERS[agent].events, `${r.from}`).toContain(r.native);
    }
  });

  it.each(AGENT_IDS)(
    "README's table of agents names %s's version the payloads were recorded with",
    (agent) => {
      const { displayName, fixtures } = ADAPTERS[agent];
      const readme = readFileSync(join(REPO_DIR, 'README.md'), 'utf8');
      const row = readme.split('\n').find((l) => l.startsWith(`| ${displayName} `));
      expect(row?.split('|').map((c) => c.trim())[2]).toBe(fixtures.version);
      expect(SOURCES[agent].dirs[0]).toMatch(new RegExp(`^${fixtures.folder}(/|$)`));
    },
  );

  it.each(AGENT_IDS)("%s's docs name every event it has no recorded payload for", (agent) => {
    const seen = new Set(ALL.filter((r) => r.agent === agent).map((r) => r.native));
    const missing = ADAPTERS[agent].events.filter((e) => !seen.has(e));
    const doc = readFileSync(join(REPO_DIR, ADAPTERS[agent].docs), 'utf8');
    const at = doc.indexOf('\n- **Events without a recorded payload**');
    expect(at, ADAPTERS[agent].docs).toBeGreaterThan(0);
    const next = doc.indexOf('\n- ', at + 1);
    const line = doc.slice(at, next < 0 ? undefined : next);
    const named = [...line.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]);
    expect(named.sort()).toEqual([...missing].sort());
  });

  it.each(ALL.map((r) => [r.agent, r.native, r.from, r] as const))(
    '%s %s is its canonical event (%s)',
    (agent, native, _from, r) => {
      expect(ADAPTERS[agent].canonicalEvents[native], r.from).toBe(CANONICAL[agent][native]);
    },
  );
});

/**
 * One payload through `hookd hook` in this process, checked: without `--agent` (hookd tells the agent
 * from the event) or with it, as install writes it.
 */
async function throughCli(r: Recorded, block: boolean, agent?: AgentId) {
  const input = prepare(r, block);
  const args = agent ? ['hook', '--agent', agent] : ['hook'];
  const ran = await runCli(args, { env: input.runEnv, stdin: input.stdin, cwd: project });
  expectReply(r, ran, block);
  expectEntries(r, input.log);
}

describe.each(AGENT_IDS)(
  '%s: every recorded payload through `hookd hook`, agent told from the event',
  (agent) => {
    const mine = recorded(agent);
    it.each(mine.map((r) => [r.native, r.from, r] as const))('%s (%s)', (_native, _from, r) =>
      throughCli(r, false),
    );
    const before = mine.filter((r) => r.native === BEFORE_TOOL[agent]);
    it.each(before.map((r) => [r.from, r] as const))('a blocking guard blocks %s', (_from, r) =>
      throughCli(r, true),
    );
  },
);

/** The built program's processes still running: killed by pid after the file. */
const running = new Set<ReturnType<typeof spawn>>();
afterAll(() => {
  for (const child of running) if (child.pid) process.kill(child.pid, 'SIGKILL');
});

/** The built program as a process, as the agent starts it (the Node path). */
function runBuilt(agent: AgentId, input: ReturnType<typeof prepare>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolveRun, reject) => {
    const child = spawn(process.execPath, [HOOKD_BIN, 'hook', '--agent', agent], {
      env: input.runEnv,
      cwd: project,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.on('close', () => running.delete(child));
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input.stdin);
  });
}

describe.each(AGENT_IDS)('%s: each event with --agent, as install wires it', (agent) => {
  const mine = recorded(agent);
  const firsts = mine.filter((r, i) => mine.findIndex((o) => o.native === r.native) === i);
  const cases = [
    ...firsts.map((r) => [r.native, r.from, r, false] as const),
    ...firsts
      .filter((r) => r.native === BEFORE_TOOL[agent])
      .map((r) => [`${r.native} blocked`, r.from, r, true] as const),
  ];
  it.each(cases)('%s (%s)', (_what, _from, r, block) => throughCli(r, block, agent));

  // The agent's view of the built program: an event whose stdout is context, and a tool call a guard
  // blocks (each agent's own reply shape for both).
  const context = firsts.find((r) => r.native === CONTEXT[agent][0])!;
  const blocked = firsts.find((r) => r.native === BEFORE_TOOL[agent])!;
  it.each([
    [context.native, context.from, context, false],
    [`${blocked.native} blocked`, blocked.from, blocked, true],
  ] as const)('%s through the built program (%s)', async (_what, _from, r, block) => {
    const input = prepare(r, block);
    const ran = await runBuilt(agent, input);
    expectReply(r, ran, block);
    expectEntries(r, input.log);
  });
});

/**
 * The shared test table of "run one event" (docs/architecture.md: both paths share one implementation
 * and one test table): a config, an event of an agent, and what the agent must get back. Every transport
 * that runs events (the Node path `hookd hook`, the fast client through the daemon) is run against it:
 * test/integration/daemon/fast-path-table.test.ts. A row names the agent's recorded payload by event.
 */

export interface HookCase {
  name: string;
  agent: 'droid' | 'claude';
  event: 'PreToolUse' | 'UserPromptSubmit' | 'Stop';
  /** `hooks` of the user config, for this event. */
  entries: unknown[];
  /** What the agent gets: exit code, stdout, stderr (a RegExp for text with a variable part). */
  expect: { code: number; stdout: string; stderr: string | RegExp };
  /** How many commands hookd.log says the event ran (its `kind: "event"` record). */
  commands: number;
}

const cmd = (command: string, more: Record<string, unknown> = {}) => ({ type: 'command', command, ...more });
const json = (value: unknown) => `echo '${JSON.stringify(value)}'`;
const decision = (permissionDecision: 'allow' | 'deny') => ({
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision,
    permissionDecisionReason: `said ${permissionDecision}`,
  },
});

export const HOOK_CASES: HookCase[] = [
  {
    name: 'a silent command',
    agent: 'droid',
    event: 'PreToolUse',
    entries: [{ hooks: [cmd('true')] }],
    expect: { code: 0, stdout: '', stderr: '' },
    commands: 1,
  },
  ...(['droid', 'claude'] as const).map((agent): HookCase => ({
    name: `${agent}: exit 2 blocks, with its stderr`,
    agent,
    event: 'PreToolUse',
    entries: [{ matcher: 'Execute|Bash', hooks: [cmd("echo 'no shell today' >&2; exit 2")] }],
    expect: { code: 2, stdout: '', stderr: 'no shell today\n' },
    commands: 1,
  })),
  {
    name: 'a matcher that does not match runs nothing',
    agent: 'droid',
    event: 'PreToolUse',
    entries: [{ matcher: 'Create', hooks: [cmd('exit 2')] }],
    expect: { code: 0, stdout: '', stderr: '' },
    commands: 0,
  },
  {
    name: '"blocking": false makes an exit 2 observe-only',
    agent: 'droid',
    event: 'PreToolUse',
    entries: [{ hooks: [cmd("echo 'x' >&2; exit 2", { blocking: false })] }],
    expect: { code: 0, stdout: '', stderr: '' },
    commands: 1,
  },
  {
    name: 'droid: exit 1 passes its stderr on',
    agent: 'droid',
    event: 'PreToolUse',
    entries: [{ hooks: [cmd('echo careful >&2; exit 1')] }],
    expect: { code: 1, stdout: '', stderr: 'careful\n' },
    commands: 1,
  },
  {
    name: 'claude: exit 1 is not shown',
    agent: 'claude',
    event: 'PreToolUse',
    entries: [{ hooks: [cmd('echo careful >&2; exit 1')] }],
    expect: { code: 0, stdout: '', stderr: '' },
    commands: 1,
  },
  {
    name: 'droid: the first JSON decision in config order wins',
    agent: 'droid',
    event: 'PreToolUse',
    entries: [
      { hooks: [cmd(json(decision('allow')))] },
      { hooks: [cmd(`sleep 0.1; ${json(decision('deny'))}`)] },
    ],
    expect: { code: 0, stdout: `${JSON.stringify(decision('allow'))}\n`, stderr: '' },
    commands: 2,
  },
  {
    name: 'claude: a JSON deny beats an earlier allow',
    agent: 'claude',
    event: 'PreToolUse',
    entries: [{ hooks: [cmd(json(decision('allow')))] }, { hooks: [cmd(json(decision('deny')))] }],
    expect: { code: 0, stdout: `${JSON.stringify(decision('deny'))}\n`, stderr: '' },
    commands: 2,
  },
  ...(['droid', 'claude'] as const).map((agent): HookCase => ({
    name: `${agent}: plain stdout of UserPromptSubmit is context, unless "context": false`,
    agent,
    event: 'UserPromptSubmit',
    entries: [{ hooks: [cmd('echo "branch: main"'), cmd('echo hidden', { context: false })] }],
    expect: { code: 0, stdout: 'branch: main\n', stderr: '' },
    commands: 2,
  })),
  {
    name: 'a guard that times out is not run; the agent goes on',
    agent: 'droid',
    event: 'PreToolUse',
    entries: [{ hooks: [cmd('sleep 20; exit 2', { name: 'slow', timeout: 0.3 })] }],
    expect: { code: 0, stdout: '', stderr: '' },
    commands: 1,
  },
  {
    name: '"onError": "block" fails closed on a timeout',
    agent: 'droid',
    event: 'PreToolUse',
    entries: [{ hooks: [cmd('sleep 20', { name: 'must-run', timeout: 0.3, onError: 'block' })] }],
    expect: { code: 2, stdout: '', stderr: /must-run could not run \(timed out after 300 ms\).*onError/ },
    commands: 1,
  },
  {
    name: 'a Stop command blocks with a reason',
    agent: 'droid',
    event: 'Stop',
    entries: [{ hooks: [cmd("echo 'tests are red' >&2; exit 2")] }],
    expect: { code: 2, stdout: '', stderr: 'tests are red\n' },
    commands: 1,
  },
];

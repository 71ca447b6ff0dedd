import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../helpers/temp.js';
import { ROOT } from '../daemon/process-helpers.js';
import {
  TRANSPORTS,
  handOffEnv,
  startHook,
  withDaemonDownThenUp,
  writeFastConfig,
} from '../daemon/fast-client-helpers.js';
import { runCli } from '../../helpers/cli-run.js';

// One hookd config whose guards name canonical tool kinds and agents, not tool names, fed the recorded
// tool calls of each real agent through `hookd hook --agent <agent>` and the native client, with the
// daemon down (the Node path runs the guard) and up (the daemon's fast path runs it).

const FIXTURES = join(ROOT, 'test/fixtures');
const recorded = (path: string) =>
  JSON.parse(readFileSync(join(FIXTURES, path), 'utf8')) as Record<string, unknown>;

type Agent = 'droid' | 'claude' | 'codex' | 'gemini';
/** Each agent's recorded shell call, and a recorded call of another kind where a run made one. */
const CALLS: Record<Agent, { shell: Record<string, unknown>; other?: Record<string, unknown> }> = {
  droid: {
    shell: recorded('droid-0.225.2/jsonrpc/03-PreToolUse-Execute.json'),
    other: recorded('droid-0.225.2/jsonrpc/06-PreToolUse-Create.json'),
  },
  claude: {
    shell: recorded('claude-code-2.1.330/tui/03-PreToolUse-Bash.json'),
    other: recorded('claude-code-2.1.330/tui/06-PreToolUse-Write.json'),
  },
  codex: { shell: recorded('codex-0.171.0/03-PreToolUse-Bash.json') },
  gemini: { shell: recorded('gemini-cli-0.61.0/07-BeforeTool-run_shell_command.json') },
};
const AGENTS = Object.keys(CALLS) as Agent[];

const shq = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

let tmp: { dir: string; cleanup: () => void };
let env: Record<string, string>;
let project: string;

/** The shell call of the agent with this command, or its other call, with the input as the agent sent it. */
function call(agent: Agent, command?: string): Record<string, unknown> {
  const { shell, other } = CALLS[agent];
  if (command === undefined) return { ...other!, cwd: project };
  return { ...shell, cwd: project, tool_input: { ...(shell.tool_input as object), command } };
}

async function run(wiring: keyof typeof TRANSPORTS, agent: Agent, event: Record<string, unknown>) {
  const hookEnv = { ...env, PATH: process.env.PATH ?? '/usr/bin:/bin', HOOKD_NODE: process.execPath };
  const ran = await startHook(TRANSPORTS[wiring](agent), {
    env: hookEnv,
    cwd: project,
    stdin: JSON.stringify(event),
  }).done;
  return { code: ran.code, stdout: ran.stdout.toString(), stderr: ran.stderr.toString() };
}

beforeAll(() => {
  tmp = makeTempDir('hkkind-');
  project = join(tmp.dir, 'p');
  mkdirSync(project);
  env = handOffEnv(tmp.dir);
  const refuse = (reason: string) => [{ type: 'command', command: `echo ${shq(reason)} >&2; exit 2` }];
  writeFastConfig(env, {
    PreToolUse: [
      { kinds: ['shell'], commandRegex: 'forbidden', hooks: refuse('no forbidden files') },
      { kinds: ['write', 'edit'], hooks: refuse('no writes today') },
      { agents: ['codex', 'gemini'], commandRegex: 'cloud', hooks: refuse('not from codex or gemini') },
    ],
  });
});

afterAll(() => tmp.cleanup());

withDaemonDownThenUp(
  () => env,
  () => {
    describe.each(Object.keys(TRANSPORTS) as (keyof typeof TRANSPORTS)[])(
      'through the %s transport',
      (wiring) => {
        it.each(AGENTS)('%s: the shell guard blocks its shell tool, with the reason', async (agent) => {
          expect(await run(wiring, agent, call(agent, 'touch forbidden.txt'))).toEqual({
            code: 2,
            stdout: '',
            stderr: 'no forbidden files\n',
          });
          // (stderr may carry a one-time notice of hookd's own, never the guard's reason)
          const fine = await run(wiring, agent, call(agent, 'echo fine'));
          expect(fine).toMatchObject({ code: 0, stdout: '' });
          expect(fine.stderr).not.toContain('no forbidden files');
        });

        it.each(AGENTS.filter((a) => CALLS[a].other))(
          '%s: a write guard blocks its write tool',
          async (agent) => {
            expect(await run(wiring, agent, call(agent))).toMatchObject({
              code: 2,
              stderr: 'no writes today\n',
            });
          },
        );

        it.each(AGENTS)('%s: an entry for Codex and Gemini runs only for them', async (agent) => {
          const ran = await run(wiring, agent, call(agent, 'cloud sync'));
          expect(ran.code).toBe(agent === 'codex' || agent === 'gemini' ? 2 : 0);
        });
      },
    );
  },
);

describe('hookd explain', () => {
  it.each(AGENTS)("%s: names the kind of the agent's tool that matched", async (agent) => {
    const file = join(tmp.dir, `${agent}-event.json`);
    writeFileSync(file, JSON.stringify(call(agent, 'touch forbidden.txt')));
    const ran = await runCli(['explain', file, '--agent', agent, '--json'], { env, cwd: project });
    expect(ran.code, ran.stderr).toBe(0);
    const report = JSON.parse(ran.stdout) as { commands: { run: { kind?: string }[] } };
    expect(report.commands.run.map((c) => c.kind)).toEqual(['shell']);
  });
});

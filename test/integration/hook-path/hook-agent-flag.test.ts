import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeFixture } from '../../helpers/claude-fixtures.js';
import { HOOKD_BIN } from '../../helpers/fixtures.js';
import { runHookd } from '../../helpers/run-hookd.js';
import { runCli } from '../../helpers/cli-run.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';

// `hookd hook --agent claude|droid`, the command `hookd install` writes: the agent is named, not guessed
// from an environment that an enclosing session (Claude Code started from a Droid session) passes
// through, and the call stays on the small hook bundle.

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let droidProject: string;
let claudeProject: string;

beforeEach(() => {
  tmp = makeTempDir();
  droidProject = join(tmp.dir, 'droid-project');
  claudeProject = join(tmp.dir, 'claude-project');
  mkdirSync(join(claudeProject, 'sub'), { recursive: true });
  mkdirSync(droidProject);
  env = isolatedEnv(tmp.dir, { HOOKD_DAEMON: '0' });
});
afterEach(() => tmp.cleanup());

const capture = () => join(tmp.dir, 'capture.jsonl');
/**
 * A shell command that appends what it saw (its label, HOOKD_AGENT, HOOKD_PROJECT_DIR, its directory and
 * its stdin) to $CAP as one record, ended by a line holding only RS (0x1e, never raw in JSON).
 */
const recorder = (label: string) =>
  `{ printf '%s\\n' '${label}' "$HOOKD_AGENT" "$HOOKD_PROJECT_DIR" "$(pwd -P)"; cat; printf '\\n\\036\\n'; } >> "$CAP"`;

function captured(): Record<string, string>[] {
  return readFileSync(capture(), 'utf8')
    .split('\n\u001e\n')
    .filter(Boolean)
    .map((record) => {
      const [label, agent, project, pwd, ...stdin] = record.split('\n');
      return { label: label!, agent: agent!, project: project!, pwd: pwd!, stdin: stdin.join('\n') };
    });
}

/** Claude Code started from a Droid session: Droid's variables pass through to Claude's hooks. */
function claudeInDroidEnv(sessionId: string): Record<string, string> {
  return {
    ...env,
    FACTORY_PROJECT_DIR: droidProject,
    DROID_PROJECT_DIR: droidProject,
    CLAUDE_PROJECT_DIR: claudeProject,
    CLAUDECODE: '1',
    CLAUDE_CODE_SESSION_ID: sessionId,
  };
}

/** A project's .hookd/config.json, trusted (`hookd trust`): an untrusted one would not apply at all. */
async function writeProjectConfig(dir: string, hooks: unknown): Promise<void> {
  mkdirSync(join(dir, '.hookd'));
  writeFileSync(join(dir, '.hookd', 'config.json'), JSON.stringify({ hooks }));
  const trusted = await runCli(['trust', dir], { env });
  expect(trusted.code, trusted.stderr).toBe(0);
}

describe('hookd hook --agent', () => {
  it('takes the agent from the command: Claude Code inside a Droid session gets Claude rules and its project config', async () => {
    const pre: Record<string, unknown> = {
      ...claudeFixture('print/03-PreToolUse-Bash.json'),
      cwd: join(claudeProject, 'sub'),
    };
    // The Claude project's config (keyed on CLAUDE_PROJECT_DIR, not the cwd after `cd sub`, and not the
    // enclosing Droid session's project) matches "Bash" by Claude's rule; "Bas" would match by Droid's.
    const entry = (label: string, matcher?: string) => ({
      ...(matcher !== undefined ? { matcher } : {}),
      hooks: [{ type: 'command', command: recorder(label), env: { CAP: capture() } }],
    });
    await writeProjectConfig(claudeProject, {
      PreToolUse: [entry('claude-list', 'Bash,Write'), entry('droid-prefix', 'Bas')],
    });
    await writeProjectConfig(droidProject, { PreToolUse: [entry('droid-project')] });
    const ran = await runHookd(['hook', '--agent', 'claude'], {
      env: claudeInDroidEnv(String(pre.session_id)),
      stdin: `${JSON.stringify(pre)}\n`,
      cwd: join(claudeProject, 'sub'),
    });
    expect(ran).toMatchObject({ code: 0, stdout: '' });
    const lines = captured();
    expect(lines.map((l) => l.label)).toEqual(['claude-list']);
    expect(lines[0]).toMatchObject({
      agent: 'claude',
      project: claudeProject,
      pwd: join(claudeProject, 'sub'),
    });
    expect(JSON.parse(lines[0]!.stdin!)).toEqual(pre);
  });

  it('accepts --agent=droid, and a bare hook still guesses', async () => {
    writeFileSync(
      env.HOOKD_CONFIG!,
      JSON.stringify({
        hooks: {
          Stop: [{ hooks: [{ type: 'command', command: recorder('stop'), env: { CAP: capture() } }] }],
        },
      }),
    );
    const stop: Record<string, unknown> = { ...claudeFixture('print/15-Stop.json'), cwd: claudeProject };
    await runHookd(['hook', '--agent=droid'], {
      env: claudeInDroidEnv('other'),
      stdin: JSON.stringify(stop),
    });
    await runHookd(['hook'], {
      env: claudeInDroidEnv(String(stop.session_id)),
      stdin: JSON.stringify(stop),
    });
    await runHookd(['hook'], { env: claudeInDroidEnv('another-session'), stdin: JSON.stringify(stop) });
    expect(captured().map((l) => l.agent)).toEqual(['droid', 'claude', 'droid']);
  });

  it.each([
    [['hook', '--agent', 'claude']],
    [['hook', '--agent=droid']],
    [['hook']],
    [['hook', '--agent', 'claude', '--event', 'Stop']],
    [['hook', '--event=Stop', '--agent=claude']],
  ])('%j runs on the hook bundle alone (no CLI, no yargs)', async (args) => {
    const out = join(tmp.dir, 'modules.json');
    const probe = join(tmp.dir, 'probe.cjs');
    writeFileSync(
      probe,
      `process.on('exit',()=>require('fs').writeFileSync(${JSON.stringify(out)},JSON.stringify(Object.keys(require.cache))))`,
    );
    // With the code cache off, so that the hook bundle is a required module the probe can see (through the
    // cache it is compiled from its own file by the dispatcher: code-cache.test.ts).
    const ran = await runHookd(args, {
      env: { ...env, NODE_OPTIONS: `--require ${probe}`, HOOKD_CODE_CACHE: '0' },
      stdin: JSON.stringify({ ...claudeFixture('print/15-Stop.json'), cwd: claudeProject }),
    });
    expect(ran.code).toBe(0);
    const loaded = (JSON.parse(readFileSync(out, 'utf8')) as string[]).map((f) =>
      f.slice(f.lastIndexOf('/') + 1),
    );
    expect(loaded).toContain('hook.cjs');
    expect(loaded).not.toContain('cli.cjs');
    // validate.cjs (zod) and config.cjs (reading the files afresh) are loaded only when the config
    // changed since its last check
    expect(
      loaded.filter((f) => !['hookd.cjs', 'hook.cjs', 'probe.cjs', 'validate.cjs', 'config.cjs'].includes(f)),
    ).toEqual([]);
    expect(HOOKD_BIN.endsWith('hookd.cjs')).toBe(true);
  });

  it('an unknown agent goes to the CLI, which says what is allowed', async () => {
    const ran = await runHookd(['hook', '--agent', 'cursor'], { env, stdin: '{}' });
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toMatch(/droid.*claude|Choices/i);
  });
});

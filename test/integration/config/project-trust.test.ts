import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixture } from '../../helpers/fixtures.js';
import { hookdLogRecords, runHookAsAgent } from '../../helpers/agent-hook.js';
import { runCli } from '../../helpers/cli-run.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let project: string;
let projectFile: string;

beforeEach(() => {
  tmp = makeTempDir();
  project = join(tmp.dir, 'repo');
  mkdirSync(join(project, '.hookd'), { recursive: true });
  projectFile = join(project, '.hookd', 'config.json');
  env = isolatedEnv(tmp.dir, { FACTORY_PROJECT_DIR: project });
});
afterEach(() => tmp.cleanup());

const cmd = (command: string, more: Record<string, unknown> = {}) => ({ type: 'command', command, ...more });
const stateDir = () => join(env.XDG_STATE_HOME!, 'hookd');
const trustFile = () => join(stateDir(), 'trust.json');

/** The user's guard: reads the event, takes a moment (longer than 10 ms), then blocks the tool call. */
const GUARD = cmd('cat >/dev/null; sleep 0.2; echo "blocked by the user guard" >&2; exit 2', {
  name: 'guard',
  blocking: true,
});

function writeUserConfig(config: unknown): void {
  writeFileSync(env.HOOKD_CONFIG!, JSON.stringify(config));
}
function writeProjectConfig(config: unknown): void {
  writeFileSync(projectFile, JSON.stringify(config));
}
function event(path: string): string {
  return JSON.stringify({ ...fixture(path), cwd: project });
}
const preToolUse = () => event('jsonrpc/03-PreToolUse-Execute.json');
const sessionStart = () => event('jsonrpc/01-SessionStart-startup.json');

/** The hostile repo: a tiny event budget, and a SessionStart command of its own. */
function writeHostileProject(marker: string): void {
  writeProjectConfig({
    settings: { eventBudgetSec: 0.01, commandTimeoutSec: 0.01, killGraceMs: 0 },
    hooks: { SessionStart: [{ hooks: [cmd(`touch ${marker}`)] }] },
  });
}

describe('project configs need trust', () => {
  it("ignores an untrusted project file: the user's guard still blocks, the repo's SessionStart command does not run", async () => {
    const marker = join(tmp.dir, 'repo-command-ran');
    writeUserConfig({ hooks: { PreToolUse: [{ matcher: 'Execute', hooks: [GUARD] }] } });
    writeHostileProject(marker);

    const guarded = await runHookAsAgent({ env, cwd: project, stdin: preToolUse() });
    expect(guarded.code).toBe(2);
    expect(guarded.stderr).toContain('blocked by the user guard');

    const started = await runHookAsAgent({ env, cwd: project, stdin: sessionStart() });
    expect(started.code).toBe(0);
    expect(existsSync(marker)).toBe(false);

    const untrusted = hookdLogRecords(env).filter((r) => r.kind === 'config-untrusted');
    expect(untrusted).toHaveLength(2);
    expect(untrusted[0]).toMatchObject({ level: 40, file: projectFile, trust: 'untrusted' });
    expect(String(untrusted[0]!.fix)).toContain(`hookd trust ${project}`);
  });

  it('runs a project file after `hookd trust`, and needs trust again once the file changes', async () => {
    const marker = join(tmp.dir, 'project-ran');
    writeUserConfig({ hooks: {} });
    writeProjectConfig({ hooks: { SessionStart: [{ hooks: [cmd(`touch ${marker}`)] }] } });

    const trusted = await runCli(['trust', project], { env });
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain(projectFile);
    await runHookAsAgent({ env, cwd: project, stdin: sessionStart() });
    expect(existsSync(marker)).toBe(true);

    const marker2 = join(tmp.dir, 'changed-ran');
    writeProjectConfig({ hooks: { SessionStart: [{ hooks: [cmd(`touch ${marker2}`)] }] } });
    await runHookAsAgent({ env, cwd: project, stdin: sessionStart() });
    expect(existsSync(marker2)).toBe(false);
    expect(hookdLogRecords(env).find((r) => r.kind === 'config-untrusted')).toMatchObject({
      trust: 'changed',
      file: projectFile,
    });

    await runCli(['trust', project], { env });
    await runHookAsAgent({ env, cwd: project, stdin: sessionStart() });
    expect(existsSync(marker2)).toBe(true);
  });

  it('finds the trust of a project reached through a symlinked dir', async () => {
    const marker = join(tmp.dir, 'project-ran');
    writeUserConfig({ hooks: {} });
    writeProjectConfig({ hooks: { SessionStart: [{ hooks: [cmd(`touch ${marker}`)] }] } });
    await runCli(['trust', project], { env });
    const link = join(tmp.dir, 'link-to-repo');
    symlinkSync(project, link);
    await runHookAsAgent({
      env: { ...env, FACTORY_PROJECT_DIR: link },
      cwd: link,
      stdin: JSON.stringify({ ...fixture('jsonrpc/01-SessionStart-startup.json'), cwd: link }),
    });
    expect(existsSync(marker)).toBe(true);
  });

  it("never lets a trusted project file loosen the user's guard: its settings apply to its own commands only", async () => {
    writeUserConfig({ hooks: { PreToolUse: [{ matcher: 'Execute', hooks: [GUARD] }] } });
    writeProjectConfig({
      settings: { eventBudgetSec: 0.01, commandTimeoutSec: 0.01, killGraceMs: 0, sequentialEvents: [] },
      hooks: {
        // The same command as the user's guard, switched off and non-blocking: must not change the user's.
        PreToolUse: [
          { matcher: 'Execute', hooks: [{ ...GUARD, blocking: false, enabled: false, timeout: 0.01 }] },
        ],
      },
    });
    expect((await runCli(['trust', project], { env })).code).toBe(0);
    const ran = await runHookAsAgent({ env, cwd: project, stdin: preToolUse() });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('blocked by the user guard');
    const commandRecord = hookdLogRecords(env).find((r) => r.kind === 'command');
    expect(commandRecord).toMatchObject({ name: 'guard', origin: 'user', timedOut: false });
  });

  it('does not let a trusted project entry switch on a command the user switched off', async () => {
    const marker = join(tmp.dir, 'switched-off-ran');
    const off = cmd(`touch ${marker}`, { name: 'off', enabled: false });
    writeUserConfig({ hooks: { Stop: [{ hooks: [off] }] } });
    writeProjectConfig({ hooks: { Stop: [{ hooks: [{ ...off, enabled: true }] }] } });
    await runCli(['trust', project], { env });
    await runHookAsAgent({ env, cwd: project, stdin: event('jsonrpc/16-Stop.json') });
    expect(existsSync(marker)).toBe(false);
  });

  it("applies a trusted project file's commandTimeoutSec to the project's own commands", async () => {
    writeUserConfig({ hooks: {} });
    writeProjectConfig({
      settings: { commandTimeoutSec: 0.2 },
      hooks: { Stop: [{ hooks: [cmd('sleep 20', { name: 'slow-project' })] }] },
    });
    await runCli(['trust', project], { env });
    const ran = await runHookAsAgent({ env, cwd: project, stdin: event('jsonrpc/16-Stop.json') });
    expect(ran.code).toBe(0);
    expect(hookdLogRecords(env).find((r) => r.kind === 'command')).toMatchObject({
      name: 'slow-project',
      origin: 'project',
      timedOut: true,
      timeoutMs: 200,
    });
  });

  it('hashes the project file only when it changed: a warm hook loads no node:crypto', async () => {
    writeUserConfig({ hooks: {} });
    writeProjectConfig({ hooks: {} });
    await runCli(['trust', project], { env });
    const report = join(tmp.dir, 'modules.txt');
    const preload = join(tmp.dir, 'modules.cjs');
    writeFileSync(
      preload,
      `process.on('exit', () => require('fs').appendFileSync(${JSON.stringify(report)}, process.moduleLoadList.some((m) => m.includes('crypto')) + '\\n'));`,
    );
    const traced = { ...env, NODE_OPTIONS: `--require ${preload}` };
    for (let i = 0; i < 3; i++)
      await runHookAsAgent({ env: traced, cwd: project, stdin: event('jsonrpc/16-Stop.json') });
    // The first run validates and hashes; the next ones are cache hits keyed by the file's fingerprint.
    expect(readFileSync(report, 'utf8').trim().split('\n')).toEqual(['true', 'false', 'false']);
  });

  it('validate --project says a project file is untrusted (exit 1), and valid once trusted', async () => {
    writeProjectConfig({ settings: { eventBudgetSec: 0.01 } });
    const before = await runCli(['validate', '--project', project], { env });
    expect(before.code).toBe(1);
    expect(before.stdout).toContain('not trusted');
    expect(before.stdout).toContain(`hookd trust ${project}`);
    const json = await runCli(['validate', '--project', project, '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({
      valid: true,
      trusted: false,
      untrusted: [{ file: projectFile, trust: 'untrusted' }],
    });
    await runCli(['trust', project], { env });
    const after = await runCli(['validate', '--project', project], { env });
    expect(after.code).toBe(0);
  });

  it('lists and revokes trust; --json gives the records', async () => {
    writeProjectConfig({ hooks: {} });
    await runCli(['trust', project], { env });
    const list = await runCli(['trust', '--list', '--json'], { env });
    const listed = JSON.parse(list.stdout) as { trusted: { file: string; sha256: string }[] };
    expect(listed.trusted).toHaveLength(1);
    expect(listed.trusted[0]!.file).toBe(projectFile);
    expect(listed.trusted[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
    const revoked = await runCli(['trust', '--revoke', project], { env });
    expect(revoked.code).toBe(0);
    const again = JSON.parse((await runCli(['trust', '--list', '--json'], { env })).stdout) as {
      trusted: unknown[];
    };
    expect(again.trusted).toEqual([]);
  });

  it('keeps the trust file private (0600 in a 0700 dir) and never writes through a planted symlink', async () => {
    writeProjectConfig({ hooks: {} });
    mkdirSync(stateDir(), { recursive: true });
    const victim = join(tmp.dir, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, trustFile());
    const ran = await runCli(['trust', project], { env });
    expect(ran.code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(lstatSync(trustFile()).isSymbolicLink()).toBe(false);
    expect(statSync(trustFile()).mode & 0o777).toBe(0o600);
    expect(statSync(stateDir()).mode & 0o777).toBe(0o700);
  });

  it('treats a corrupt trust file as nothing trusted, logs it and does not crash', async () => {
    const marker = join(tmp.dir, 'project-ran');
    writeUserConfig({ hooks: { PreToolUse: [{ matcher: 'Execute', hooks: [GUARD] }] } });
    writeProjectConfig({ hooks: { SessionStart: [{ hooks: [cmd(`touch ${marker}`)] }] } });
    await runCli(['trust', project], { env });
    writeFileSync(trustFile(), '{"v":1,"files":{"x":{"sha256":42}}}', { mode: 0o600 });
    const ran = await runHookAsAgent({ env, cwd: project, stdin: sessionStart() });
    expect(ran.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(hookdLogRecords(env).find((r) => r.kind === 'trust-file')).toMatchObject({ level: 50 });
    const guarded = await runHookAsAgent({ env, cwd: project, stdin: preToolUse() });
    expect(guarded.code).toBe(2);
  });

  it('does not trust a trust file others can write to', async () => {
    const marker = join(tmp.dir, 'project-ran');
    writeUserConfig({ hooks: {} });
    writeProjectConfig({ hooks: { SessionStart: [{ hooks: [cmd(`touch ${marker}`)] }] } });
    await runCli(['trust', project], { env });
    chmodSync(trustFile(), 0o666);
    await runHookAsAgent({ env, cwd: project, stdin: sessionStart() });
    expect(existsSync(marker)).toBe(false);
    expect(hookdLogRecords(env).find((r) => r.kind === 'trust-file')).toBeDefined();
  });

  it('hands one desktop notice per (file, hash) to the daemon for an untrusted file', async () => {
    writeUserConfig({ daemon: { autoStart: false }, hooks: {} });
    writeProjectConfig({ hooks: { SessionStart: [{ hooks: [cmd('true')] }] } });
    const daemonEnv = { ...env, HOOKD_DAEMON: '1' };
    await runHookAsAgent({ env: daemonEnv, cwd: project, stdin: sessionStart() });
    await runHookAsAgent({ env: daemonEnv, cwd: project, stdin: sessionStart() });
    writeProjectConfig({ hooks: { SessionStart: [{ hooks: [cmd('false')] }] } });
    await runHookAsAgent({ env: daemonEnv, cwd: project, stdin: sessionStart() });
    const spool = join(stateDir(), 'spool');
    const messages = readdirSync(spool)
      .filter((n) => n.endsWith('.json'))
      .sort()
      .map((n) => JSON.parse(readFileSync(join(spool, n), 'utf8')) as { notices?: { title: string }[] });
    expect(messages).toHaveLength(3);
    expect(messages.map((m) => m.notices?.length ?? 0)).toEqual([1, 0, 1]);
    expect(messages[0]!.notices![0]!.title).toContain('not trusted');
  });
});

describe('what the user writes with hookd is trusted', () => {
  it('hookd import --scope project records trust for the file it writes', async () => {
    mkdirSync(join(project, '.factory'), { recursive: true });
    const marker = join(tmp.dir, 'imported-ran');
    writeFileSync(
      join(project, '.factory', 'settings.json'),
      JSON.stringify({ hooks: { SessionStart: [{ hooks: [cmd(`touch ${marker}`)] }] } }),
    );
    writeUserConfig({ hooks: {} });
    const ran = await runCli(['import', '--agent', 'droid', '--scope', 'project', '--project', project], {
      env,
      cwd: project,
    });
    expect(ran.code, ran.stderr).toBe(0);
    await runHookAsAgent({ env, cwd: project, stdin: sessionStart() });
    expect(existsSync(marker)).toBe(true);
  });

  it('does not trust content that was in the project file before the import', async () => {
    mkdirSync(join(project, '.factory'), { recursive: true });
    const planted = join(tmp.dir, 'planted-ran');
    writeProjectConfig({ hooks: { SessionStart: [{ hooks: [cmd(`touch ${planted}`)] }] } });
    writeFileSync(
      join(project, '.factory', 'settings.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [cmd('true')] }] } }),
    );
    writeUserConfig({ hooks: {} });
    const ran = await runCli(['import', '--agent', 'droid', '--scope', 'project', '--project', project], {
      env,
      cwd: project,
    });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout + ran.stderr).toContain('hookd trust');
    await runHookAsAgent({ env, cwd: project, stdin: sessionStart() });
    expect(existsSync(planted)).toBe(false);
  });
});

describe('config and explain show trust', () => {
  it('config shows the trust state of the project file', async () => {
    writeUserConfig({ hooks: {} });
    writeProjectConfig({ hooks: {} });
    const text = await runCli(['config', '--project', project], { env });
    expect(text.stdout).toContain('NOT TRUSTED, ignored');
    const json = JSON.parse((await runCli(['config', '--project', project, '--json'], { env })).stdout) as {
      sources: { level: string; trust?: { state: string } }[];
    };
    expect(json.sources.find((s) => s.level === 'project')?.trust?.state).toBe('untrusted');
  });

  it('explain shows the trust state and does not list an untrusted command as one that would run', async () => {
    writeUserConfig({ hooks: {} });
    writeProjectConfig({ hooks: { SessionStart: [{ hooks: [cmd('echo from-repo')] }] } });
    const input = join(tmp.dir, 'event.json');
    writeFileSync(input, sessionStart());
    const ran = await runCli(['explain', input, '--json'], { env, cwd: project });
    const out = JSON.parse(ran.stdout) as {
      config: { files: { level: string; trust?: { state: string } }[] };
      commands: { run: unknown[] };
    };
    expect(out.config.files.find((f) => f.level === 'project')?.trust?.state).toBe('untrusted');
    expect(out.commands.run).toEqual([]);
  });
});

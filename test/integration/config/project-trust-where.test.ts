import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
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
import {
  handOffEnv,
  hookLogRecords,
  startFastDaemon,
  startHook,
  writeFastConfig,
} from '../daemon/fast-client-helpers.js';
import { waitFor } from '../daemon/helpers.js';
import { ensureBuilt, stopDaemon } from '../daemon/process-helpers.js';

// Trust is keyed on the project dir a config applies to, and on the config's bytes: a config reached
// through a symlink inside the project is never applied, whatever it points to.

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
/** A project the user trusted: its config runs `./check.sh`, a script of the project it runs in. */
let trusted: string;
/** A hostile repository with a `check.sh` of its own. */
let hostile: string;

const CONFIG = {
  hooks: { SessionStart: [{ hooks: [{ type: 'command', command: './check.sh', name: 'check' }] }] },
};

function makeProject(dir: string, withConfig: boolean): void {
  mkdirSync(dir, { recursive: true });
  const script = join(dir, 'check.sh');
  writeFileSync(script, `#!/bin/sh\ncat >/dev/null\ntouch "${dir}.ran"\n`);
  chmodSync(script, 0o755);
  if (withConfig) {
    mkdirSync(join(dir, '.hookd'), { recursive: true });
    writeFileSync(join(dir, '.hookd', 'config.json'), JSON.stringify(CONFIG));
  }
}

beforeEach(() => {
  tmp = makeTempDir();
  // Real paths: the trust records name real dirs.
  const root = realpathSync(tmp.dir);
  trusted = join(root, 'trusted');
  hostile = join(root, 'hostile');
  makeProject(trusted, true);
  makeProject(hostile, false);
  env = isolatedEnv(tmp.dir);
  writeFileSync(env.HOOKD_CONFIG!, JSON.stringify({ hooks: {} }));
});
afterEach(() => tmp.cleanup());

const trustFile = () => join(env.XDG_STATE_HOME!, 'hookd', 'trust.json');
const ran = (dir: string) => existsSync(`${dir}.ran`);

function sessionStart(dir: string, sessionId = 'session-1'): string {
  return JSON.stringify({
    ...fixture('jsonrpc/01-SessionStart-startup.json'),
    cwd: dir,
    session_id: sessionId,
  });
}

/** The built `hookd hook` run as the agent runs it, in `dir` as the agent's project dir. */
function hookIn(dir: string, sessionId?: string) {
  return runHookAsAgent({
    env: { ...env, FACTORY_PROJECT_DIR: dir },
    cwd: dir,
    stdin: sessionStart(dir, sessionId),
  });
}

async function trust(dir: string) {
  const result = await runCli(['trust', dir], { env });
  expect(result.code, result.stderr).toBe(0);
  return result;
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('a config reached through a symlink is never applied', () => {
  it('a repo whose .hookd/config.json links to a file trusted elsewhere: its command does not run', async () => {
    await trust(trusted);
    // The trusted project itself still runs its config (the test can see a command run).
    expect((await hookIn(trusted)).code).toBe(0);
    expect(ran(trusted)).toBe(true);

    mkdirSync(join(hostile, '.hookd'));
    symlinkSync(join(trusted, '.hookd', 'config.json'), join(hostile, '.hookd', 'config.json'));
    const result = await hookIn(hostile);
    expect(result.code).toBe(0);
    expect(ran(hostile)).toBe(false);
    const record = hookdLogRecords(env).find(
      (r) => r.kind === 'config-untrusted' && r.file === join(hostile, '.hookd', 'config.json'),
    );
    expect(record).toMatchObject({ trust: 'unsafe' });
    expect(String(record!.msg)).toContain('is a symlink');

    // `hookd emit` runs the event through the same code.
    const emitted = await runCli(['emit', 'SessionStart', '--no-daemon', '--cwd', hostile], {
      env: { ...env, FACTORY_PROJECT_DIR: hostile },
      cwd: hostile,
    });
    expect(emitted.code, emitted.stderr).toBe(0);
    expect(ran(hostile)).toBe(false);

    const shown = await runCli(['config', '--project', hostile], { env });
    expect(shown.stdout).toContain('NOT TRUSTED');
    expect(shown.stdout).toContain('is a symlink');
  });

  it('a repo whose .hookd folder links to a trusted project’s folder: its command does not run', async () => {
    await trust(trusted);
    symlinkSync(join(trusted, '.hookd'), join(hostile, '.hookd'));
    expect((await hookIn(hostile)).code).toBe(0);
    expect(ran(hostile)).toBe(false);
    const json = await runCli(['config', '--project', hostile, '--json'], { env });
    const source = (
      JSON.parse(json.stdout) as { sources: { level: string; trust?: { state: string; reason?: string } }[] }
    ).sources.find((s) => s.level === 'project');
    expect(source?.trust?.state).toBe('unsafe');
    expect(source?.trust?.reason).toContain(`${hostile}/.hookd is a symlink`);
  });

  it('hookd trust refuses a linked config, a linked .hookd folder and a config whose real path leaves the project', async () => {
    const outside = join(tmp.dir, 'outside.json');
    writeFileSync(outside, JSON.stringify(CONFIG));
    mkdirSync(join(hostile, '.hookd'));
    symlinkSync('../../outside.json', join(hostile, '.hookd', 'config.json'));
    const leaving = await runCli(['trust', hostile], { env });
    expect(leaving.code).toBe(1);
    expect(leaving.stderr).toContain(`${hostile}/.hookd/config.json is a symlink`);
    expect(leaving.stderr).toContain('outside the project');
    expect(leaving.stderr).toContain('regular file');
    expect(existsSync(trustFile())).toBe(false);

    // A link that stays inside the project is refused too: hookd follows no link inside a project.
    const inside = join(tmp.dir, 'inside');
    makeProject(inside, false);
    writeFileSync(join(inside, 'hookd.json'), JSON.stringify(CONFIG));
    mkdirSync(join(inside, '.hookd'));
    symlinkSync('../hookd.json', join(inside, '.hookd', 'config.json'));
    const within = await runCli(['trust', inside], { env });
    expect(within.code).toBe(1);
    expect(within.stderr).toContain('is a symlink');
    expect(within.stderr).not.toContain('outside the project');

    const linkedDir = join(tmp.dir, 'linked-dir');
    makeProject(linkedDir, false);
    symlinkSync(join(trusted, '.hookd'), join(linkedDir, '.hookd'));
    const folder = await runCli(['trust', linkedDir], { env });
    expect(folder.code).toBe(1);
    expect(folder.stderr).toContain(`${linkedDir}/.hookd is a symlink`);
    expect(existsSync(trustFile())).toBe(false);

    // And the hook does not apply any of them.
    for (const dir of [hostile, inside, linkedDir]) {
      await hookIn(dir);
      expect(ran(dir), dir).toBe(false);
    }
  });

  it('still finds the trust of a project reached through a symlinked project dir', async () => {
    await trust(trusted);
    const link = join(tmp.dir, 'link-to-trusted');
    symlinkSync(trusted, link);
    await runHookAsAgent({
      env: { ...env, FACTORY_PROJECT_DIR: link },
      cwd: link,
      stdin: sessionStart(link),
    });
    expect(ran(trusted)).toBe(true);
  });
});

describe('trust records of an older hookd (keyed by the config file)', () => {
  function writeOldRecords(files: Record<string, string>): void {
    mkdirSync(join(env.XDG_STATE_HOME!, 'hookd'), { recursive: true, mode: 0o700 });
    const records = Object.fromEntries(
      Object.entries(files).map(([file, sha]) => [
        file,
        { sha256: sha, trustedAt: '2025-01-02T03:04:05.000Z' },
      ]),
    );
    writeFileSync(trustFile(), JSON.stringify({ v: 1, files: records }), { mode: 0o600 });
  }

  it('carries a record over when the file is <dir>/.hookd/config.json and its bytes still match', async () => {
    const file = join(trusted, '.hookd', 'config.json');
    writeOldRecords({ [file]: sha256(file) });
    await hookIn(trusted);
    expect(ran(trusted)).toBe(true);

    const listed = JSON.parse((await runCli(['trust', '--list', '--json'], { env })).stdout) as {
      trusted: { dir: string; file: string; state: string }[];
      notCarriedOver: unknown[];
    };
    expect(listed.trusted).toEqual([expect.objectContaining({ dir: trusted, file, state: 'applies' })]);
    expect(listed.notCarriedOver).toEqual([]);

    // The next write of the trust file writes the new format, keyed by the project dir.
    const other = join(tmp.dir, 'other');
    makeProject(other, true);
    await trust(other);
    const written = JSON.parse(readFileSync(trustFile(), 'utf8')) as {
      v: number;
      projects: Record<string, { sha256: string }>;
    };
    expect(written.v).toBe(2);
    expect(Object.keys(written.projects).sort()).toEqual([realpathSync(other), trusted].sort());
    expect(written.projects[trusted]!.sha256).toBe(sha256(file));
  });

  it('reports the records it cannot carry over, keeps them, and drops one only on trust or revoke', async () => {
    // Changed since trusted.
    const changed = join(tmp.dir, 'changed');
    makeProject(changed, true);
    const changedFile = join(changed, '.hookd', 'config.json');
    const oldSha = sha256(changedFile);
    writeFileSync(changedFile, JSON.stringify({ hooks: {} }));
    // A file that is not a project's .hookd/config.json at all.
    const loose = join(tmp.dir, 'shared-hookd.json');
    writeFileSync(loose, JSON.stringify(CONFIG));
    // The trusted project's .hookd folder became a symlink.
    const moved = join(tmp.dir, 'moved');
    makeProject(moved, true);
    const movedFile = join(moved, '.hookd', 'config.json');
    const movedSha = sha256(movedFile);
    const elsewhere = join(tmp.dir, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'config.json'), readFileSync(movedFile));
    // The old record named the real path then; the folder is now a link to a copy.
    rmSync(join(moved, '.hookd'), { recursive: true });
    symlinkSync(elsewhere, join(moved, '.hookd'));

    writeOldRecords({
      [changedFile]: oldSha,
      [loose]: sha256(loose),
      [movedFile]: movedSha,
    });

    const list = await runCli(['trust', '--list', '--json'], { env });
    expect(list.code, list.stderr).toBe(0);
    const listed = JSON.parse(list.stdout) as {
      trusted: unknown[];
      notCarriedOver: { file: string; reason: string; fix: string }[];
    };
    expect(listed.trusted).toEqual([]);
    const byFile = Object.fromEntries(listed.notCarriedOver.map((r) => [r.file, r]));
    expect(Object.keys(byFile).sort()).toEqual([changedFile, loose, movedFile].sort());
    expect(byFile[changedFile]!.reason).toContain('changed since you trusted it');
    expect(byFile[changedFile]!.fix).toContain(`hookd trust ${changed}`);
    expect(byFile[loose]!.reason).toContain('not a project');
    expect(byFile[loose]!.fix).toContain(`hookd trust --revoke ${loose}`);
    expect(byFile[movedFile]!.reason).toContain(`${moved}/.hookd is a symlink`);

    const text = await runCli(['trust', '--list'], { env });
    expect(text.stdout).toContain('could not carry over');
    expect(text.stdout).toContain(changedFile);

    // Writing the trust file (trusting another project) keeps them.
    await trust(trusted);
    const kept = JSON.parse(readFileSync(trustFile(), 'utf8')) as {
      v: number;
      notCarriedOver: Record<string, unknown>;
    };
    expect(kept.v).toBe(2);
    expect(Object.keys(kept.notCarriedOver).sort()).toEqual([changedFile, loose, movedFile].sort());

    // Trusting the project again replaces its old record; revoking drops one.
    await trust(changed);
    expect((await runCli(['trust', '--revoke', loose], { env })).code).toBe(0);
    const after = JSON.parse(readFileSync(trustFile(), 'utf8')) as {
      notCarriedOver: Record<string, unknown>;
    };
    expect(Object.keys(after.notCarriedOver)).toEqual([movedFile]);
  });
});

describe('a project config whose trust lapsed says so once per session', () => {
  it('on stderr (exit 0), once per session, naming `hookd trust <dir>`', async () => {
    await trust(trusted);
    writeFileSync(
      join(trusted, '.hookd', 'config.json'),
      JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: './check.sh' }] }] } }),
    );
    const first = await hookIn(trusted, 'session-a');
    expect(first.code).toBe(0);
    expect(ran(trusted)).toBe(false);
    expect(first.stderr).toContain(`${trusted}/.hookd/config.json`);
    expect(first.stderr).toContain('changed since you trusted it');
    expect(first.stderr).toContain(`hookd trust ${trusted}`);
    expect(first.stderr.trim().split('\n')).toHaveLength(1);

    const again = await hookIn(trusted, 'session-a');
    expect([again.code, again.stderr]).toEqual([0, '']);

    const other = await hookIn(trusted, 'session-b');
    expect(other.code).toBe(0);
    expect(other.stderr).toContain(`hookd trust ${trusted}`);

    // The markers are private.
    const markers = join(env.XDG_STATE_HOME!, 'hookd', 'trust-lapses');
    expect(statSync(markers).mode & 0o777).toBe(0o700);
    expect(readdirSync(markers)).toHaveLength(2);

    // Trusted again: nothing more to say, the config applies.
    await trust(trusted);
    const trustedAgain = await hookIn(trusted, 'session-c');
    expect([trustedAgain.code, trustedAgain.stderr]).toEqual([0, '']);
    expect(ran(trusted)).toBe(true);
  });

  it('says it for a config that became a symlink, with the fix; a never-trusted project says nothing', async () => {
    await trust(trusted);
    renameSync(join(trusted, '.hookd', 'config.json'), join(trusted, 'hookd.json'));
    symlinkSync('../hookd.json', join(trusted, '.hookd', 'config.json'));
    const lapsed = await hookIn(trusted);
    expect(lapsed.code).toBe(0);
    expect(ran(trusted)).toBe(false);
    expect(lapsed.stderr).toContain('is a symlink');
    expect(lapsed.stderr).toContain(`hookd trust ${trusted}`);

    makeProject(hostile, true);
    const never = await hookIn(hostile);
    expect([never.code, never.stderr]).toEqual([0, '']);
  });
});

describe('the daemon runs events under the same rule (fast path)', () => {
  let daemon: ChildProcess | undefined;
  afterEach(async () => {
    await stopDaemon(daemon);
    daemon = undefined;
  });

  it('does not apply a linked config through the fast client either; the trusted project still runs', async () => {
    ensureBuilt();
    const fastEnv = handOffEnv(join(tmp.dir, 'f'));
    writeFastConfig(fastEnv, {});
    expect((await runCli(['trust', trusted], { env: fastEnv })).code).toBe(0);
    mkdirSync(join(hostile, '.hookd'));
    symlinkSync(join(trusted, '.hookd', 'config.json'), join(hostile, '.hookd', 'config.json'));
    daemon = await startFastDaemon(fastEnv);

    const run = (dir: string) =>
      startHook('fast', {
        env: { ...fastEnv, FACTORY_PROJECT_DIR: dir },
        cwd: dir,
        stdin: sessionStart(dir, `fast-${dir.length}`),
      }).done;
    expect((await run(trusted)).code).toBe(0);
    expect(ran(trusted)).toBe(true);
    const hostileRun = await run(hostile);
    expect(hostileRun.code).toBe(0);
    // The daemon ran it (not a fallback to the Node path; with no command to wait for, it may answer
    // first and run the event after): its event record comes last.
    const records = () => hookLogRecords(fastEnv);
    await waitFor(() => records().some((r) => r.kind === 'event' && r.cwd === hostile), 20_000, 'the event');
    expect(ran(hostile)).toBe(false);
    const record = records().find(
      (r) => r.kind === 'config-untrusted' && r.file === join(hostile, '.hookd', 'config.json'),
    );
    expect(record).toMatchObject({ trust: 'unsafe', pid: daemon.pid });
  });

  it('says a lapsed trust once per session through the fast client too (the answer waits for it)', async () => {
    ensureBuilt();
    const fastEnv = handOffEnv(join(tmp.dir, 'f'));
    writeFastConfig(fastEnv, {});
    expect((await runCli(['trust', trusted], { env: fastEnv })).code).toBe(0);
    writeFileSync(join(trusted, '.hookd', 'config.json'), JSON.stringify({ hooks: {} }));
    daemon = await startFastDaemon(fastEnv);
    const run = (stdin: string) =>
      startHook('fast', {
        env: { ...fastEnv, FACTORY_PROJECT_DIR: trusted },
        cwd: trusted,
        stdin,
      }).done;
    const first = await run(sessionStart(trusted, 'fast-lapse'));
    expect(first.code).toBe(0);
    expect(first.stderr.toString()).toContain(`hookd trust ${trusted}`);
    // The session resumed: the same bytes again right away would be one event sent twice (one answer).
    const resumed = { ...(JSON.parse(sessionStart(trusted, 'fast-lapse')) as object), source: 'resume' };
    const again = await run(JSON.stringify(resumed));
    expect([again.code, again.stderr.toString()]).toEqual([0, '']);
    // Both went through the daemon, which ran them (the second, with nothing to say, after its answer).
    const events = () => hookLogRecords(fastEnv).filter((r) => r.kind === 'event' && r.cwd === trusted);
    await waitFor(() => events().length === 2, 20_000, 'both events');
    expect(events().map((r) => r.pid)).toEqual([daemon.pid, daemon.pid]);
  });
});

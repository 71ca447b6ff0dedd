import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import { markedPids } from '../harness/droid/reap.js';
import { runRealDroid, type DroidRun } from '../helpers/droid.js';
import { isAlive } from '../helpers/procs.js';
import { makeTempDir } from '../helpers/temp.js';

// The harness itself, against the real Droid: a step with two tool calls in one message reaches Droid as
// two calls, and a process a hook leaves running in a session of its own does not outlive the run, in
// the sandbox and without it.

// Records each payload in a file of its own (the two calls' hooks run at once), and starts a sleeper that escapes the hook's process group and session.
const hookCmd = `setsid sh -c 'echo $$ >> "$PIDS"; exec sleep 300' </dev/null >/dev/null 2>&1 & cat > "$(mktemp -p "$CAP")"`;

describeWithAgent('droid', 'the Droid harness under the real Droid CLI 0.225.2', () => {
  let tmp: ReturnType<typeof makeTempDir>;
  const runs: Record<'sandboxed' | 'unisolated', DroidRun> = {} as never;
  const fileOf = (name: string, kind: string) => join(tmp.dir, `${name}.${kind}`);

  beforeAll(async () => {
    tmp = makeTempDir('hkd-hrn-');
    for (const name of ['sandboxed', 'unisolated'] as const) {
      mkdirSync(fileOf(name, 'payloads'));
      runs[name] = await runRealDroid({
        outDir: join(tmp.dir, name),
        env: {
          ...(process.env as Record<string, string>),
          CAP: fileOf(name, 'payloads'),
          PIDS: fileOf(name, 'pids'),
        },
        hooksJson: { PreToolUse: [{ matcher: '', hooks: [{ type: 'command', command: hookCmd }] }] },
        script: [
          {
            parallel: [
              { tool: 'shell', input: { command: 'echo first' } },
              { tool: 'shell', input: { command: 'echo second' } },
            ],
          },
          { text: 'Both ran.' },
        ],
        isolate: name === 'sandboxed',
        agentTimeoutSec: 90,
      });
    }
  });
  afterAll(() => tmp?.cleanup());

  it('runs as root in a namespace of its own, and otherwise says it is not isolated', () => {
    expect(runs.unisolated.isolated).toBe(false);
    expect(runs.unisolated.stderr).toContain('WARNING running without network isolation');
    if (process.getuid?.() === 0) expect(runs.sandboxed.isolated).toBe(true);
  });

  it('a parallel step reaches Droid as two tool calls in one message', () => {
    for (const run of Object.values(runs)) {
      expect(run.rc, run.stderr).toBe(0);
      const decisions = run.fakeModelLog
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { decision?: { kind: string; calls?: unknown[] } }).decision);
      expect(decisions.filter((d) => d?.kind === 'tool').map((d) => d!.calls!.length)).toEqual([2]);
      expect(JSON.parse(readFileSync(join(run.outDir, 'agent.stdout'), 'utf8'))).toMatchObject({
        result: 'Both ran.',
      });
    }
    for (const name of ['sandboxed', 'unisolated']) {
      const dir = fileOf(name, 'payloads');
      const commands = readdirSync(dir).map(
        (f) =>
          (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { tool_input: { command: string } }).tool_input
            .command,
      );
      expect(commands.sort()).toEqual(['echo first', 'echo second']);
    }
  });

  it('nothing a hook left running outlives the run', () => {
    for (const run of Object.values(runs)) expect(markedPids(run.runId)).toEqual([]);
    // Unisolated, the sleepers' pids are this machine's: each one was started, and each one is gone.
    const pids = readFileSync(fileOf('unisolated', 'pids'), 'utf8').trim().split('\n').map(Number);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(isAlive(pid), `sleeper ${pid}`).toBe(false);
    expect(readFileSync(fileOf('sandboxed', 'pids'), 'utf8').trim().split('\n')).toHaveLength(2);
  });
});

import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hookdLogRecords } from '../../helpers/agent-hook.js';
import { HOOKD_BIN } from '../../helpers/fixtures.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';

// Agent settings written by an older hookd run an older fast client: it takes the Node path (safely),
// and the Node path says so, once on the agent's stderr (only with an exit 0), in the log every time.

const ROOT = resolve(import.meta.dirname, '../../..');
const BASH_CLIENT = resolve(ROOT, 'bin/hookd-client.bash');
const NATIVE_CLIENT = resolve(ROOT, 'dist/hookd-client');
const EVENT = JSON.stringify({ session_id: 's1', hook_event_name: 'PostToolUse', tool_name: 'Execute' });

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
beforeEach(() => {
  tmp = makeTempDir('hkoc-');
  env = isolatedEnv(tmp.dir);
  writeFileSync(env.HOOKD_CONFIG!, '{}');
});
afterEach(() => tmp.cleanup());

/** The hook command as the agent runs it: `sh -c "<command>"`, the event on stdin. */
const run = (command: string, stdin = EVENT) =>
  spawnSync('/bin/sh', ['-c', command], { env, input: stdin, encoding: 'utf8', cwd: tmp.dir });
const node = `HOOKD_NODE=${process.execPath}`;
const olderRecords = () => hookdLogRecords(env).filter((r) => r.kind === 'old-client');

describe('an older fast client in the agent settings', () => {
  it('the retired bash client: said once on stderr, logged on every event', () => {
    const first = run(`${node} /bin/bash --posix ${BASH_CLIENT} --agent droid`);
    expect(first.status).toBe(0);
    expect(first.stderr).toMatch(
      /^hookd: the agent's settings run the retired bash fast client .*`hookd install`/,
    );
    const second = run(`${node} /bin/bash --posix ${BASH_CLIENT} --agent droid`);
    expect(second.stderr).toBe('');
    expect(olderRecords().map((r) => r.client)).toEqual(['bash', 'bash']);
  });

  it("a client of an older protocol (no protocol said) is named too; this hookd's client is not", () => {
    // What an older native client does when it falls back: exec the Node path, HOOKD_NODE set.
    const older = run(`${node} ${process.execPath} ${HOOKD_BIN} hook --agent droid`);
    expect(older.stderr).toMatch(/a fast client of an older hookd/);
    const current = run(`${node} ${NATIVE_CLIENT} --agent droid`);
    expect(current.status).toBe(0);
    expect(current.stderr).toBe('');
    expect(olderRecords()).toHaveLength(1);
    // The node transport (no HOOKD_NODE) is not a fast client at all.
    expect(run(`${process.execPath} ${HOOKD_BIN} hook --agent droid`).stderr).toBe('');
  });

  it("never in a block reason: with exit 2 the stderr is the guard's alone", () => {
    writeFileSync(
      env.HOOKD_CONFIG!,
      JSON.stringify({
        hooks: { PostToolUse: [{ hooks: [{ type: 'command', command: 'echo no >&2; exit 2' }] }] },
      }),
    );
    const blocked = run(`${node} /bin/bash --posix ${BASH_CLIENT} --agent droid`);
    expect({ code: blocked.status, stderr: blocked.stderr }).toEqual({ code: 2, stderr: 'no\n' });
    // Not said yet, so the next exit 0 says it.
    writeFileSync(env.HOOKD_CONFIG!, '{}');
    expect(run(`${node} /bin/bash --posix ${BASH_CLIENT} --agent droid`).stderr).toMatch(/retired bash/);
  });
});

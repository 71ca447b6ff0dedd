import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES_DIR, HOOKD_BIN } from '../../helpers/fixtures.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';

// What `hookd hook` loads of Node itself is start-up time on every event of the Node path: an ordinary
// event must not load the stream classes and `net` for a stdin that is a regular file (the fast client's
// copy when it falls back), nor perf_hooks, which the global `performance` loads.
let tmp: { dir: string; cleanup: () => void };
beforeEach(() => {
  tmp = makeTempDir('hkd-start-');
});
afterEach(() => tmp.cleanup());

/** Node's own modules the hook loaded past those `node -e 0` has, with stdin from `input`. */
async function loadedBy(
  input: { file: string } | { pipe: Buffer },
): Promise<{ code: number | null; loaded: string[] }> {
  const out = join(tmp.dir, 'modules.txt');
  const probe = join(tmp.dir, 'probe.cjs');
  writeFileSync(
    probe,
    `const base = new Set(process.moduleLoadList);` +
      `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.filter((m) => !base.has(m)).join('\\n')));`,
  );
  const env = { ...isolatedEnv(tmp.dir), HOOKD_DAEMON: '0', NODE_OPTIONS: `--require ${probe}` };
  const fd = 'file' in input ? openSync(input.file, 'r') : undefined;
  const child = spawn(process.execPath, [HOOKD_BIN, 'hook', '--agent', 'droid'], {
    env,
    stdio: [fd ?? 'pipe', 'ignore', 'ignore'],
  });
  try {
    if ('pipe' in input) child.stdin!.end(input.pipe);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    return { code, loaded: readFileSync(out, 'utf8').split('\n') };
  } finally {
    if (fd !== undefined) closeSync(fd);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

describe('what an ordinary event loads of Node', () => {
  const event = join(FIXTURES_DIR, 'jsonrpc', '16-Stop.json');

  it('a stdin that is a regular file is read without streams', async () => {
    const ran = await loadedBy({ file: event });
    expect(ran.code).toBe(0);
    expect(ran.loaded.filter((m) => /^NativeModule (stream|net|internal\/fs\/streams)$/.test(m))).toEqual([]);
  });

  it.each([['file'], ['pipe']])('with stdin from a %s, no perf_hooks', async (how) => {
    const ran = await loadedBy(how === 'file' ? { file: event } : { pipe: readFileSync(event) });
    expect(ran.code).toBe(0);
    expect(ran.loaded).not.toContain('NativeModule perf_hooks');
  });
});

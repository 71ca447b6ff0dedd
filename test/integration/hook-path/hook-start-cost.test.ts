import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hookdLogRecords } from '../../helpers/agent-hook.js';
import { FIXTURES_DIR, HOOKD_BIN } from '../../helpers/fixtures.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';

// What `hookd hook` loads of Node itself is start-up time on every event of the Node path: an ordinary
// event must not load the stream classes and `net` for a stdin that is a regular file (the fast client's
// copy when it falls back) or a pipe the agent wrote and closed, nor perf_hooks, which the global
// `performance` loads.
let tmp: { dir: string; cleanup: () => void };
beforeEach(() => {
  tmp = makeTempDir('hkd-start-');
});
afterEach(() => tmp.cleanup());

/** Node's own modules the hook loaded past those `node -e 0` has, with stdin from `input`. */
async function loadedBy(
  input: { file: string } | { pipe: Buffer } | { closedPipe: Buffer },
  options: { daemon?: boolean } = {},
): Promise<{ code: number | null; loaded: string[] }> {
  const out = join(tmp.dir, 'modules.txt');
  const probe = join(tmp.dir, 'probe.cjs');
  writeFileSync(
    probe,
    `const base = new Set(process.moduleLoadList);` +
      `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.filter((m) => !base.has(m)).join('\\n')));`,
  );
  const env = {
    ...isolatedEnv(tmp.dir),
    HOOKD_DAEMON: options.daemon ? '1' : '0',
    NODE_OPTIONS: `--require ${probe}`,
  };
  const fd =
    'file' in input
      ? openSync(input.file, 'r')
      : 'closedPipe' in input
        ? closedPipe(input.closedPipe)
        : undefined;
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

/**
 * The read end of a pipe that already holds `bytes` and whose writer has closed it, as an agent leaves
 * it: a FIFO opened for reading (without waiting), then for writing, written and closed.
 */
function closedPipe(bytes: Buffer): number {
  const fifo = join(tmp.dir, 'stdin.fifo');
  execFileSync('mkfifo', [fifo]);
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(fifo, constants.O_WRONLY);
  try {
    writeSync(writer, bytes);
  } finally {
    closeSync(writer);
  }
  return reader;
}

describe('what an ordinary event loads of Node', () => {
  const event = join(FIXTURES_DIR, 'jsonrpc', '16-Stop.json');

  it('a stdin that is a regular file is read without streams', async () => {
    const ran = await loadedBy({ file: event });
    expect(ran.code).toBe(0);
    expect(ran.loaded.filter((m) => /^NativeModule (stream|net|internal\/fs\/streams)$/.test(m))).toEqual([]);
  });

  it.runIf(process.platform === 'linux')(
    'a pipe the agent wrote and closed is read without streams',
    async () => {
      const ran = await loadedBy({ closedPipe: readFileSync(event) });
      expect(ran.code).toBe(0);
      expect(ran.loaded.filter((m) => /^NativeModule (stream|net|internal\/fs\/streams)$/.test(m))).toEqual(
        [],
      );
      expect(hookdLogRecords(isolatedEnv(tmp.dir)).find((r) => r.kind === 'event')).toMatchObject({
        event: 'Stop',
        bytes: readFileSync(event).length,
      });
    },
  );

  it('with the daemon down (no socket), the event is spooled without loading net', async () => {
    writeFileSync(join(tmp.dir, 'config.json'), JSON.stringify({ daemon: { autoStart: false } }));
    const ran = await loadedBy({ file: event }, { daemon: true });
    expect(ran.code).toBe(0);
    expect(ran.loaded.filter((m) => /^NativeModule (stream|net)$/.test(m))).toEqual([]);
    expect(hookdLogRecords(isolatedEnv(tmp.dir)).find((r) => r.kind === 'event')).toMatchObject({
      event: 'Stop',
      handoff: 'spooled',
    });
  });

  it.each([['file'], ['pipe']])('with stdin from a %s, no perf_hooks', async (how) => {
    const ran = await loadedBy(how === 'file' ? { file: event } : { pipe: readFileSync(event) });
    expect(ran.code).toBe(0);
    expect(ran.loaded).not.toContain('NativeModule perf_hooks');
  });
});

import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hookdLogRecords } from '../../helpers/agent-hook.js';
import { FIXTURES_DIR, HOOKD_BIN } from '../../helpers/fixtures.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';
import { spawnDaemon, stopDaemon } from '../daemon/process-helpers.js';
import { daemonFiles } from '../../../src/link/runtime-files.js';

// What `hookd hook` loads of Node itself is start-up time on every event of the Node path: an ordinary
// event must not load the stream classes and `net` for a stdin that is a regular file (the fast client's
// copy when it falls back) or a pipe the agent wrote and closed, nor perf_hooks, which the global
// `performance` loads. Nor does it create process.stdout or process.stderr (a stream each, over a pipe a
// socket): it writes its output with fs.writeSync.
let tmp: { dir: string; cleanup: () => void };
beforeEach(() => {
  tmp = makeTempDir('hkd-start-');
});
afterEach(() => tmp.cleanup());

/** Node's own modules the hook loaded past those `node -e 0` has, with stdin from `input`. */
async function loadedBy(
  input: { file: string } | { pipe: Buffer } | { closedPipe: Buffer },
  options: { daemon?: boolean } = {},
): Promise<{ code: number | null; loaded: string[]; streams: string[] }> {
  const out = join(tmp.dir, 'modules.txt');
  const streams = join(tmp.dir, 'streams.txt');
  const probe = join(tmp.dir, 'probe.cjs');
  writeFileSync(
    probe,
    `const base = new Set(process.moduleLoadList);` +
      `const touched = new Set();` +
      `for (const name of ['stdout', 'stderr']) {` +
      `  const own = Object.getOwnPropertyDescriptor(process, name);` +
      `  Object.defineProperty(process, name, { ...own, get() { touched.add(name); return own.get.call(process); } });` +
      `}` +
      `process.on('exit', () => {` +
      `  require('fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.filter((m) => !base.has(m)).join('\\n'));` +
      `  require('fs').writeFileSync(${JSON.stringify(streams)}, [...touched].join('\\n'));` +
      `});`,
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
    const touched = readFileSync(streams, 'utf8');
    return {
      code,
      loaded: readFileSync(out, 'utf8').split('\n'),
      streams: touched ? touched.split('\n') : [],
    };
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

  // Queued: left in the spool the daemon watches, without `net`; acked: over the socket, as with a daemon
  // that does not watch its spool (its spool-watch file removed here).
  it.each([['queued'], ['acked']])(
    'a hand-off to a running daemon (%s) leaves process.stdout and process.stderr uncreated',
    async (how) => {
      const env = { ...isolatedEnv(tmp.dir), HOOKD_DAEMON: '1' };
      const daemon = await spawnDaemon(env);
      try {
        if (how === 'acked') rmSync(daemonFiles(env).spoolWatch);
        const ran = await loadedBy({ file: event }, { daemon: true });
        expect(ran.code).toBe(0);
        expect(hookdLogRecords(isolatedEnv(tmp.dir)).find((r) => r.kind === 'event')).toMatchObject({
          event: 'Stop',
          handoff: how,
        });
        expect(ran.streams).toEqual([]);
        if (how === 'queued') expect(ran.loaded).not.toContain('NativeModule net');
      } finally {
        await stopDaemon(daemon);
      }
    },
  );

  // Node's child_process gives a child's stdin as a socket (as agents written in Node start hooks): Node
  // destroys such a stdin at its end, which would create process.stderr on the agent's descriptor.
  it.each([[false], [true]])(
    'a stdin that is a socket leaves process.stderr uncreated (daemon up: %s)',
    async (up) => {
      const daemon = up ? await spawnDaemon({ ...isolatedEnv(tmp.dir), HOOKD_DAEMON: '1' }) : undefined;
      try {
        const ran = await loadedBy({ pipe: readFileSync(event) }, { daemon: up });
        expect(ran.code).toBe(0);
        expect(hookdLogRecords(isolatedEnv(tmp.dir)).find((r) => r.kind === 'event')).toMatchObject({
          event: 'Stop',
          bytes: readFileSync(event).length,
          ...(up ? { handoff: 'queued' } : {}),
        });
        expect(ran.streams).toEqual([]);
      } finally {
        if (daemon) await stopDaemon(daemon);
      }
    },
  );

  it.each([['file'], ['pipe']])('with stdin from a %s, no perf_hooks', async (how) => {
    const ran = await loadedBy(how === 'file' ? { file: event } : { pipe: readFileSync(event) });
    expect(ran.code).toBe(0);
    expect(ran.loaded).not.toContain('NativeModule perf_hooks');
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSpawner, defaultSpawnerPath, type Spawner } from '../../../src/spawner/spawner.js';
import { runCommand, type RunCommandOptions, type SpawnLike } from '../../../src/runner/run-command.js';
import { isAlive, killHard, readPid, waitFor } from '../../helpers/procs.js';
import { makeTempDir } from '../../helpers/temp.js';
import {
  handOffEnv,
  onToolEvents,
  startFastDaemon,
  startHook,
  toolEvent,
  useClient,
  writeFastConfig,
} from './fast-client-helpers.js';
import { ensureBuilt, stopDaemon } from './process-helpers.js';

// The daemon's resident spawner (native/hookd-spawner.c, src/spawner/spawner.ts): runCommand through it
// must behave exactly as through node's child_process. The table runs every case both ways with the same
// assertions; the rest is what only the spawner has (its faults, its memory, its protocol checks).
// Every process started here is killed by pid (the commands' groups, the spawners).

const SPAWNER = defaultSpawnerPath();
const SH_PATH = process.env.PATH ?? '/usr/bin:/bin';
let tmp: ReturnType<typeof makeTempDir>;
const spawned: number[] = [];
const spawners: Spawner[] = [];
const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
const logger = {
  info: () => {},
  warn: (fields: Record<string, unknown>, message: string) => warnings.push({ fields, message }),
};

function newSpawner(options: Parameters<typeof createSpawner>[0] = {}): Spawner {
  const s = createSpawner({ logger, env: {}, ...options });
  spawners.push(s);
  return s;
}

beforeEach(() => {
  tmp = makeTempDir();
  warnings.length = 0;
});
afterEach(() => {
  for (const pid of spawned.splice(0)) killHard(pid);
  tmp.cleanup();
});
afterAll(async () => {
  for (const s of spawners) {
    const pid = s.pid();
    await s.close();
    killHard(pid);
  }
});

function run(spawnFn: SpawnLike | undefined, command: string, more: Partial<RunCommandOptions> = {}) {
  return runCommand({
    command,
    cwd: tmp.dir,
    env: { PATH: SH_PATH },
    stdin: Buffer.from('{"hook_event_name":"Stop"}'),
    timeoutMs: 30_000,
    killGraceMs: 300,
    maxOutputBytes: 64 * 1024,
    ...(spawnFn ? { spawn: spawnFn } : {}),
    ...more,
  }).then((result) => {
    if (result.pid) spawned.push(result.pid);
    return result;
  });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

it('the spawner was built (npm run build compiles native/hookd-spawner.c)', () => {
  expect(existsSync(SPAWNER)).toBe(true);
});

describe.each(['child_process', 'spawner'] as const)('runCommand through %s', (mode) => {
  let spawner: Spawner | undefined;
  let fn: SpawnLike | undefined;
  beforeAll(() => {
    if (mode === 'spawner') {
      spawner = newSpawner();
      fn = spawner.spawn;
    }
  });
  afterAll(() => {
    // Nothing in this block made the spawner give up.
    if (spawner) expect(spawner.mode()).toBe('spawner');
  });

  it.each([0, 1, 2, 3, 126, 255])('exit code %i', async (code) => {
    const result = await run(fn, `echo out; echo err >&2; exit ${code}`);
    expect(result).toMatchObject({ exitCode: code, signal: null, timedOut: false });
    expect(result.spawnError).toBeUndefined();
    expect(result.stdout.text()).toBe('out\n');
    expect(result.stderr.text()).toBe('err\n');
    expect(result.pid).toBeGreaterThan(0);
  });

  it('a command killed by a signal', async () => {
    const result = await run(fn, 'kill -USR1 $$');
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGUSR1', timedOut: false });
  });

  it('stdout and stderr byte for byte (NUL bytes, multibyte text, no final newline), past 1 MiB', async () => {
    const chunk = Buffer.from('a\0b€\n😀\r\t', 'utf8');
    const bytes = Buffer.concat(Array.from({ length: 100_000 }, () => chunk));
    writeFileSync(join(tmp.dir, 'blob'), bytes);
    const result = await run(fn, 'cat blob; cat blob >&2', { maxOutputBytes: 4 * 1024 * 1024 });
    expect(result.exitCode).toBe(0);
    expect(Buffer.from(result.stdout.text(), 'utf8').equals(bytes)).toBe(true);
    expect(Buffer.from(result.stderr.text(), 'utf8').equals(bytes)).toBe(true);
  });

  it('stdin byte for byte: 8 MiB of random bytes with NULs', async () => {
    const stdin = randomBytes(8 * 1024 * 1024);
    stdin[0] = 0;
    const result = await run(fn, 'sha256sum | cut -c1-64', { stdin });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.text()).toBe(`${sha(stdin)}\n`);
  });

  it('an empty stdin is an immediate EOF', async () => {
    const result = await run(fn, 'wc -c', { stdin: Buffer.alloc(0) });
    expect(result.stdout.text().trim()).toBe('0');
  });

  it('a command that does not read its 8 MiB stdin', async () => {
    const result = await run(fn, 'echo ignored', { stdin: Buffer.alloc(8 * 1024 * 1024, 0x61) });
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    expect(result.stdout.text()).toBe('ignored\n');
  });

  it('the environment exactly as given (hostile names and values are data, never shell text)', async () => {
    const env: Record<string, string> = {
      PATH: SH_PATH,
      HOSTILE: '$(touch pwned)`touch pwned2`;touch pwned3',
      MULTI: 'line one\nline two\n',
      EQUALS: 'a=b=c',
      EMPTY: '',
      UNICODE: 'é😀\u{fffd}',
      'WEIRD-NAME.x': 'kept by env(1)',
      LONE_SURROGATE: 'a\ud800b',
    };
    // The shell's own environment as exec gave it (env(1) would show what sh exports: sh drops bad names).
    const result = await run(fn, 'cat /proc/$$/environ', { env, maxOutputBytes: 1024 * 1024 });
    expect(result.exitCode).toBe(0);
    const seen = new Map(
      result.stdout
        .text()
        .split('\0')
        .filter(Boolean)
        .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
    );
    for (const [k, v] of Object.entries(env))
      expect(seen.get(k)).toBe(k === 'LONE_SURROGATE' ? 'a\ufffdb' : v);
    for (const f of ['pwned', 'pwned2', 'pwned3']) expect(existsSync(join(tmp.dir, f))).toBe(false);
  });

  it('a NUL byte in the environment is refused as node refuses it (a spawn error, nothing runs)', async () => {
    const result = await run(fn, 'touch ran', { env: { PATH: SH_PATH, BAD: 'a\0b' } });
    expect(result.spawnError).toMatch(/null bytes/);
    expect(existsSync(join(tmp.dir, 'ran'))).toBe(false);
  });

  it('cwd and the umask line', async () => {
    const result = await run(fn, 'pwd; umask', { umask: 0o027 });
    expect(result.stdout.text()).toBe(`${tmp.dir}\n0027\n`);
  });

  it('its own session and process group; only fds 0-2 open (spawner); no signal blocked or ignored (SIGPIPE too)', async () => {
    const result = await run(
      fn,
      // The shell's own mask read by the shell itself (a builtin loop, no child): while it waits for a
      // child, dash blocks every signal for a moment, which a child reading /proc/$$/status may see.
      'while read -r l; do case $l in SigBlk*|SigIgn*) echo "$l";; esac; done < /proc/$$/status; cut -d" " -f5,6 /proc/$$/stat; ls /proc/self/fd | sort -n | tr "\\n" " "; echo',
    );
    const [pgid, sid] = result.stdout.text().split('\n')[2]!.trim().split(/\s+/).map(Number);
    expect(sid).toBe(result.pid);
    expect(pgid).toBe(result.pid);
    // ls's own: 0 1 2 and the dir it reads (3). child_process passes on what the test runner leaked.
    if (mode === 'spawner') expect(result.stdout.text().split('\n')[3]).toBe('0 1 2 3 ');
    expect(result.stdout.text()).toMatch(/SigBlk:\s+0+\n/);
    // sh itself ignores nothing here (it would for SIGINT/SIGQUIT only in a background job)
    expect(result.stdout.text()).toMatch(/SigIgn:\s+0+\n/);
  });

  it('timeout: SIGTERM to the group, then SIGKILL after the grace, a grandchild too', async () => {
    const pidFile = join(tmp.dir, 'grandchild.pid');
    const result = await run(fn, `trap '' TERM; sleep 60 & echo $! > ${pidFile}; while :; do sleep 1; done`, {
      timeoutMs: 500,
      killGraceMs: 300,
    });
    const grandchild = readPid(pidFile);
    if (grandchild) spawned.push(grandchild);
    expect(result).toMatchObject({ timedOut: true, killedBy: 'timeout', signal: 'SIGKILL' });
    expect(grandchild).toBeDefined();
    expect(await waitFor(() => !isAlive(grandchild!))).toBe(true);
  });

  it('an event aborted before the command could start still kills it (its group)', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await run(fn, `echo started > started; sleep 60`, { signal: controller.signal });
    expect(result.killedBy).toBe('budget');
    expect(result.signal).toBe('SIGTERM');
  });

  it('an abort mid-command kills the group', async () => {
    const controller = new AbortController();
    const pidFile = join(tmp.dir, 'bg.pid');
    const pending = run(fn, `sleep 60 & echo $! > ${pidFile}; sleep 60`, { signal: controller.signal });
    expect(await waitFor(() => readPid(pidFile) !== undefined)).toBe(true);
    controller.abort();
    const result = await pending;
    const bg = readPid(pidFile)!;
    spawned.push(bg);
    expect(result.killedBy).toBe('budget');
    expect(await waitFor(() => !isAlive(bg))).toBe(true);
  });

  it('50 MB of output: the result is capped, head and tail kept, the total counted', async () => {
    const result = await run(fn, "printf START; head -c 52428800 /dev/zero | tr '\\0' x; printf END", {
      maxOutputBytes: 64 * 1024,
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.totalBytes).toBe(52_428_800 + 8);
    expect(result.stdout.truncated).toBe(true);
    const text = result.stdout.text();
    expect(text.length).toBeLessThan(64 * 1024 + 200);
    expect(text.startsWith('STARTxxx')).toBe(true);
    expect(text.endsWith('xxxEND')).toBe(true);
    expect(text).toMatch(/\[\.\.\. 52363272 bytes dropped by hookd \.\.\.\]/);
  });

  it('a background child holding the pipes: released after the pipe grace', async () => {
    const pidFile = join(tmp.dir, 'holder.pid');
    const result = await run(fn, `sleep 60 & echo $! > ${pidFile}; echo done`, { pipeGraceMs: 100 });
    const holder = readPid(pidFile);
    if (holder) spawned.push(holder);
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    expect(result.stdout.text()).toBe('done\n');
    expect(isAlive(holder!)).toBe(true); // let go, not killed (as with child_process)
  });

  it('a shell that does not exist: a spawn error, the same as node gives', async () => {
    const result = await run(fn, 'true', { shell: join(tmp.dir, 'no-such-sh') });
    expect(result.exitCode).toBeNull();
    expect(result.spawnError).toBe(`spawn ${join(tmp.dir, 'no-such-sh')} ENOENT`);
  });

  it('a shell that is not executable: EACCES', async () => {
    const sh = join(tmp.dir, 'not-exec');
    writeFileSync(sh, '#!/bin/sh\n');
    chmodSync(sh, 0o644);
    const result = await run(fn, 'true', { shell: sh });
    expect(result.spawnError).toBe(`spawn ${sh} EACCES`);
  });

  it('a missing cwd is runCommand’s own check (nothing is started)', async () => {
    const result = await run(fn, 'true', { cwd: join(tmp.dir, 'gone') });
    expect(result.spawnError).toMatch(/does not exist/);
    expect(result.pid).toBeUndefined();
  });

  it('100 concurrent commands all complete with their own output and stdin', async () => {
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        run(fn, `printf "$N:"; cat; echo >&2 e$N`, {
          env: { PATH: SH_PATH, N: String(i) },
          stdin: Buffer.from(`in${i}`),
        }),
      ),
    );
    results.forEach((r, i) => {
      expect(r.exitCode).toBe(0);
      expect(r.stdout.text()).toBe(`${i}:in${i}`);
      expect(r.stderr.text()).toBe(`e${i}\n`);
    });
  });
});

describe('the spawner itself', () => {
  it('stays small while a command prints 50 MB (its peak RSS)', async () => {
    const s = newSpawner();
    const result = await run(s.spawn, "head -c 52428800 /dev/zero | tr '\\0' x", { maxOutputBytes: 1024 });
    expect(result.stdout.totalBytes).toBe(52_428_800);
    const status = readFileSync(`/proc/${s.pid()}/status`, 'utf8');
    const peakKb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
    expect(peakKb).toBeGreaterThan(0);
    expect(peakKb).toBeLessThan(8 * 1024);
  });

  it('killed mid-command: that command gets a spawn error, its group is killed, it ran exactly once; the next command starts a new spawner', async () => {
    const s = newSpawner();
    const count = join(tmp.dir, 'count');
    const pidFile = join(tmp.dir, 'bg.pid');
    const pending = run(s.spawn, `echo ran >> ${count}; sleep 60 & echo $! > ${pidFile}; wait`);
    expect(await waitFor(() => readPid(pidFile) !== undefined)).toBe(true);
    const first = s.pid()!;
    const bg = readPid(pidFile)!;
    spawned.push(bg, first);
    process.kill(first, 'SIGKILL');
    const result = await pending;
    expect(result.spawnError).toMatch(/spawner died/);
    expect(result.exitCode).toBeNull();
    expect(await waitFor(() => !isAlive(bg))).toBe(true);
    expect(readFileSync(count, 'utf8')).toBe('ran\n');
    expect(warnings.some((w) => /spawner died/.test(w.message))).toBe(true);

    const next = await run(s.spawn, 'echo again');
    expect(next.stdout.text()).toBe('again\n');
    expect(s.pid()).toBeDefined();
    expect(s.pid()).not.toBe(first);
    expect(s.mode()).toBe('spawner');
    expect(readFileSync(count, 'utf8')).toBe('ran\n');
  });

  it('not built: commands go through child_process, said once', async () => {
    const s = newSpawner({ path: join(tmp.dir, 'missing-spawner') });
    const a = await run(s.spawn, 'echo one');
    const b = await run(s.spawn, 'echo two');
    expect([a.stdout.text(), b.stdout.text()]).toEqual(['one\n', 'two\n']);
    expect(s.mode()).toBe('child_process');
    expect(warnings.filter((w) => w.fields.kind === 'spawner')).toHaveLength(1);
  });

  it('a spawner that exits before HELLO: the waiting command runs once, through child_process', async () => {
    const fake = join(tmp.dir, 'fake-spawner');
    writeFileSync(fake, '#!/bin/sh\necho "broken build" >&2\nexit 3\n');
    chmodSync(fake, 0o755);
    const s = newSpawner({ path: fake });
    const count = join(tmp.dir, 'count');
    const result = await run(s.spawn, `echo ran >> ${count}; cat`);
    expect(result.stdout.text()).toBe('{"hook_event_name":"Stop"}');
    expect(readFileSync(count, 'utf8')).toBe('ran\n');
    expect(s.mode()).toBe('child_process');
    expect(warnings[0]?.fields.stderr).toBe('broken build');
  });

  it('a spawner that speaks garbage is killed; the daemon side goes on through child_process', async () => {
    const fake = join(tmp.dir, 'garbage-spawner');
    writeFileSync(fake, '#!/bin/sh\nprintf "\\377\\377\\377\\377garbage"\nexec sleep 60\n');
    chmodSync(fake, 0o755);
    const s = newSpawner({ path: fake });
    const result = await run(s.spawn, 'echo fine');
    expect(result.stdout.text()).toBe('fine\n');
    expect(s.mode()).toBe('child_process');
  });

  it('HOOKD_NO_SPAWNER=1: child_process, no spawner started', async () => {
    const s = newSpawner({ env: { HOOKD_NO_SPAWNER: '1' } });
    const result = await run(s.spawn, 'echo plain');
    expect(result.stdout.text()).toBe('plain\n');
    expect(s.pid()).toBeUndefined();
    expect(s.mode()).toBe('child_process');
  });

  it('close() ends the spawner; a command it started keeps running (its own group)', async () => {
    const s = newSpawner();
    const pidFile = join(tmp.dir, 'cmd.pid');
    const pending = run(s.spawn, `echo $$ > ${pidFile}; exec sleep 60`);
    expect(await waitFor(() => readPid(pidFile) !== undefined)).toBe(true);
    const cmd = readPid(pidFile)!;
    const pid = s.pid()!;
    spawned.push(cmd, pid);
    await s.close();
    expect(isAlive(pid)).toBe(false);
    expect(isAlive(cmd)).toBe(true);
    killHard(cmd);
    await pending;
  });
});

describe('the spawner protocol: a malformed frame ends it with a message (exit 2)', () => {
  const frame = (type: string, id: number, payload: Buffer, length = 5 + payload.length) => {
    const head = Buffer.alloc(9);
    head.writeUInt32BE(length, 0);
    head.write(type, 4, 'latin1');
    head.writeUInt32BE(id, 5);
    return Buffer.concat([head, payload]);
  };
  const spawnPayload = (argc: number, envc: number, stdinLength: number, strings: string, stdin = '') => {
    const counts = Buffer.alloc(12);
    counts.writeUInt32BE(argc, 0);
    counts.writeUInt32BE(envc, 4);
    counts.writeUInt32BE(stdinLength, 8);
    return Buffer.concat([counts, Buffer.from(strings, 'latin1'), Buffer.from(stdin)]);
  };

  async function feed(bytes: Buffer): Promise<{ code: number | null; stderr: string; stdout: Buffer }> {
    const child: ChildProcess = spawn(resolve(SPAWNER), [], { stdio: ['pipe', 'pipe', 'pipe'] });
    spawned.push(child.pid!);
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdin!.on('error', () => {});
    child.stdin!.write(bytes); // left open: the spawner must end on the frame itself, not at EOF
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    child.stdin!.destroy();
    return { code, stderr, stdout: Buffer.concat(out) };
  }

  it.each([
    ['a length under 5', frame('R', 1, Buffer.alloc(0), 4), /bad frame length 4/],
    ['a length over the cap', frame('R', 1, Buffer.alloc(0), 0xffffffff), /bad frame length 4294967295/],
    ['an unknown type', frame('Z', 1, Buffer.alloc(0)), /bad frame \(type 0x5a/],
    ['a RELEASE with a payload', frame('R', 1, Buffer.from('x')), /bad frame \(type 0x52/],
    ['a short SPAWN', frame('S', 1, Buffer.alloc(3)), /short frame/],
    ['argc 0', frame('S', 1, spawnPayload(0, 0, 0, '/bin/true\0/\0')), /bad counts/],
    ['a huge argc', frame('S', 1, spawnPayload(0xffffffff, 0, 0, '/bin/true\0/\0')), /bad counts/],
    ['stdin past the frame', frame('S', 1, spawnPayload(1, 0, 99, '/bin/true\0/\0true\0')), /stdin length/],
    ['strings past the frame', frame('S', 1, spawnPayload(30, 2, 0, '/bin/true\0/\0true\0')), /strings past/],
    ['an unterminated string', frame('S', 1, spawnPayload(1, 0, 0, '/bin/true\0/\0tr')), /unterminated/],
    [
      'bytes after the strings',
      frame('S', 1, spawnPayload(1, 0, 0, '/bin/true\0/\0true\0xx')),
      /between the strings/,
    ],
  ])('%s', async (_name, bytes, message) => {
    const r = await feed(bytes);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^hookd-spawner: /);
    expect(r.stderr).toMatch(message);
    // It said HELLO first, and ran nothing.
    expect(r.stdout.subarray(9).toString('latin1')).toBe('hookd-spawner 1');
  });

  it('a well-formed SPAWN runs; EOF on stdin ends the spawner at once (exit 0)', async () => {
    const marker = join(tmp.dir, 'made');
    const strings = `/bin/sh\0${tmp.dir}\0sh\0-c\0touch made\0PATH=${SH_PATH}\0`;
    const child = spawn(resolve(SPAWNER), [], { stdio: ['pipe', 'pipe', 'pipe'] });
    spawned.push(child.pid!);
    child.stdin.write(frame('S', 7, spawnPayload(3, 1, 0, strings)));
    expect(await waitFor(() => existsSync(marker))).toBe(true);
    child.stdin.end();
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    expect(code).toBe(0);
  });
});

describe("the daemon runs its events' commands through the spawner", () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it.each([
    ['the spawner', {}],
    ['child_process (HOOKD_NO_SPAWNER=1)', { HOOKD_NO_SPAWNER: '1' }],
  ] as Array<[string, Record<string, string>]>)(
    'through %s; no process is left after the daemon stops',
    async (_name, extra) => {
      useClient('native');
      const env = handOffEnv(tmp.dir, extra);
      const seen = join(tmp.dir, 'seen');
      writeFastConfig(env, onToolEvents(`echo "$PPID $(cat /proc/$PPID/comm)" >> '${seen}'`));
      const daemon = await startFastDaemon(env);
      spawned.push(daemon.pid!);
      try {
        for (const tag of ['a', 'b']) {
          const hook = startHook('fast', { env, cwd: tmp.dir, stdin: toolEvent(`sp-${tag}`) });
          spawned.push(hook.child.pid!);
          expect((await hook.done).code).toBe(0);
        }
        const lines = readFileSync(seen, 'utf8').trim().split('\n');
        expect(lines).toHaveLength(2);
        const [ppid, comm] = lines[0]!.split(' ');
        expect(lines[1]).toBe(lines[0]); // one spawner for both events
        if (extra.HOOKD_NO_SPAWNER) {
          expect(Number(ppid)).toBe(daemon.pid);
        } else {
          expect(comm).toBe('hookd-spawner');
          expect(Number(ppid)).not.toBe(daemon.pid);
          spawned.push(Number(ppid));
          await stopDaemon(daemon);
          expect(await waitFor(() => !isAlive(Number(ppid)))).toBe(true);
        }
      } finally {
        await stopDaemon(daemon);
      }
    },
  );
});

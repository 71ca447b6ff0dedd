import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { connect, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';
import { listeningSockets } from '../../helpers/other-user.js';
import { killHard, readPid, waitFor } from '../../helpers/procs.js';
import { BIN, ROOT, ensureBuilt, spawnDaemon, stopDaemon, writeConfig } from './process-helpers.js';
import {
  deadLetters,
  DAEMON_PID_SH,
  CLIENT_KINDS,
  NATIVE_CLIENT,
  currentClient,
  useClient,
  type ClientKind,
} from './fast-client-helpers.js';
import { jsonLines } from '../../helpers/json-lines.js';

// The fast path through real processes and real sockets: the native fast client, the daemon's unix
// socket listener, and the Node path it falls back to. What a daemon that is missing, stopped or killed
// does to an event, a client killed mid-event, hostile bytes and an 8 MiB payload are in
// fast-path-faults.test.ts; the same answer and environment on both paths, in fast-path-table.test.ts.

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
}

function collect(child: ChildProcess, stdin: Buffer): Promise<Ran> {
  const out: Buffer[] = [];
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => out.push(c));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin!.on('error', () => {});
  child.stdin!.end(stdin);
  return new Promise((done) =>
    child.once('close', (code, signal) => done({ code, signal, stdout: Buffer.concat(out), stderr })),
  );
}

/** `/abs/dist/hookd-client --agent droid` (the client of the running block), as an agent runs it. */
function startClient(
  env: Record<string, string>,
  cwd: string,
  umask = '027',
  client = currentClient() === 'native' ? NATIVE_CLIENT : NATIVE_CLIENT,
): ChildProcess {
  // The umask is set by a parent shell, as the agent's own umask would be.
  return spawn('/bin/sh', ['-c', `umask ${umask}; exec "$0" --agent droid`, client], {
    env,
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/**
 * The Node path started the same way as the client, by the same shell: `node dist/hookd.cjs hook --agent
 * droid`. (A bash in between would drop an OLDPWD that names a missing directory, and the two paths
 * would differ only because the test started them differently.)
 */
function startNodePath(env: Record<string, string>, cwd: string, umask = '027'): ChildProcess {
  return spawn(
    '/bin/sh',
    ['-c', `umask ${umask}; exec "$0" "$1" hook --agent droid`, process.execPath, BIN],
    {
      env,
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
}

const event = (tag: string, extra: Record<string, unknown> = {}) =>
  Buffer.from(
    JSON.stringify({
      hook_event_name: 'PreToolUse',
      session_id: 's-fast',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tag,
      ...extra,
    }),
  );

function count(file: string, needle: string): number {
  if (!existsSync(file)) return 0;
  return readFileSync(file, 'utf8').split(needle).length - 1;
}

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let daemon: ChildProcess | undefined;
const extraPids: number[] = [];
const servers: Server[] = [];

function configure(command: string, extra: Record<string, unknown> = {}): void {
  writeConfig(env, {
    hooks: { PreToolUse: [{ hooks: [{ type: 'command', command, timeout: 30, ...extra }] }] },
  });
}
const runtime = () => join(env.XDG_RUNTIME_DIR!, 'hookd');
const fastSocket = () => join(runtime(), 'fast.sock');
const daemonLog = () => join(env.XDG_STATE_HOME!, 'hookd', 'logs', 'daemon.log');
const hookLog = () => join(env.XDG_STATE_HOME!, 'hookd', 'logs', 'hookd.log');

/** A stdin copy as the client writes it (`c.<pid>.<n>` in the runtime dir, 0600). */
function stdinCopy(bytes: Buffer, name = `c.${process.pid}.${Math.floor(Math.random() * 1e9)}`): string {
  mkdirSync(runtime(), { recursive: true, mode: 0o700 });
  const file = join(runtime(), name);
  writeFileSync(file, bytes, { mode: 0o600 });
  return file;
}

/** A protocol-3 request as the client sends it: the head, then cwd, the copy's path and entries. */
function request(copy: string, entries: string[], versions = '3 3'): Buffer {
  const head = `HOOKD-FAST ${versions}\ndroid\n-\n0022\neof\n`;
  return Buffer.from(`${head}${tmp.dir}\0${copy}\0${entries.map((e) => `${e}\0`).join('')}\0`);
}

/** Connects, sends `data`; resolves with everything the daemon said. */
function exchange(data: Buffer, opts: { go?: boolean; until?: (text: string) => boolean } = {}) {
  return new Promise<string>((done) => {
    const s = connect(fastSocket());
    let text = '';
    s.once('connect', () => s.write(data));
    s.on('data', (c: Buffer) => {
      text += c.toString('latin1');
      if (opts.go && text.startsWith('ACK ') && text.includes('\n') && !text.includes('GO')) {
        s.write('GO\n');
        opts.go = false;
      }
      if (opts.until?.(text)) s.destroy();
    });
    s.on('error', () => {});
    s.on('close', () => done(text));
  });
}

beforeAll(() => ensureBuilt());
beforeEach(() => {
  tmp = makeTempDir('hkf-');
  env = isolatedEnv(tmp.dir);
});
afterEach(async () => {
  if (daemon?.pid) {
    try {
      process.kill(daemon.pid, 'SIGCONT');
    } catch {}
  }
  await stopDaemon(daemon);
  daemon = undefined;
  for (const pid of extraPids.splice(0)) killHard(pid);
  for (const server of servers.splice(0)) server.close();
  tmp.cleanup();
});

describe.each(CLIENT_KINDS)('the %s fast client and the daemon listener', (kind: ClientKind) => {
  beforeAll(() => useClient(kind));
  it('the fast socket is private (0600 in the 0700 runtime dir) and the daemon listens on no TCP port', async () => {
    configure('true');
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(fastSocket()));
    expect(statSync(fastSocket()).isSocket()).toBe(true);
    expect(statSync(fastSocket()).mode & 0o777).toBe(0o600);
    expect(statSync(join(env.XDG_RUNTIME_DIR!, 'hookd')).mode & 0o777).toBe(0o700);
    // One event, so that everything the daemon starts for events (its spawner) is running.
    expect((await collect(startClient(env, tmp.dir), event('first'))).code).toBe(0);
    const { tcp, unix } = listeningSockets([daemon.pid!]);
    expect(tcp).toEqual([]);
    expect(unix.sort()).toEqual([fastSocket(), join(runtime(), 'hookd.sock')].sort());
  });

  it('a config edit applies to the next event through the client', async () => {
    configure('cat >> "$OUT"; echo >> "$OUT"');
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(fastSocket()));
    const out = join(tmp.dir, 'runs');
    expect((await collect(startClient({ ...env, OUT: out }, tmp.dir), event('before'))).code).toBe(0);
    configure('cat >> "$OUT.edited"; echo >> "$OUT.edited"');
    expect((await collect(startClient({ ...env, OUT: out }, tmp.dir), event('edited'))).code).toBe(0);
    expect([count(out, 'before'), count(out, 'edited'), count(`${out}.edited`, 'edited')]).toEqual([1, 0, 1]);
  });

  it('the same env, umask, cwd and stdin bytes reach a command through the client and the Node path', async () => {
    configure(
      `cat > "$OUT.stdin"; env > "$OUT.env"; umask > "$OUT.umask"; pwd -P > "$OUT.pwd"; echo ${DAEMON_PID_SH} > "$OUT.ppid"; echo said >&2; exit 2`,
    );
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(fastSocket()));
    // An agent started from a directory that is gone since: both paths pass its OLDPWD on unchanged.
    env.OLDPWD = join(tmp.dir, 'gone');
    const cwd = join(tmp.dir, 'home');
    const bytes = event('same');
    const node = await collect(startNodePath({ ...env, OUT: join(tmp.dir, 'node') }, cwd), bytes);
    expect([node.code, node.stderr]).toEqual([2, 'said\n']);
    expect(readPid(join(tmp.dir, 'node.ppid'))).not.toBe(daemon.pid);
    const vars = (which: string) =>
      readFileSync(join(tmp.dir, `${which}.env`), 'utf8')
        .split('\n')
        .filter((l) => !/^(_|SHLVL|OUT|HOOKD_EVENT_ID)=/.test(l))
        .sort();
    // The client sends its environment as the agent gave it.
    for (const [mode, extra] of [['list', {}]] as const) {
      const fast = await collect(startClient({ ...env, ...extra, OUT: join(tmp.dir, mode) }, cwd), bytes);
      expect([fast.code, fast.stderr], mode).toEqual([2, 'said\n']);
      for (const part of ['stdin', 'umask', 'pwd'])
        expect(readFileSync(join(tmp.dir, `${mode}.${part}`)), `${mode} ${part}`).toEqual(
          readFileSync(join(tmp.dir, `node.${part}`)),
        );
      expect(readFileSync(join(tmp.dir, `${mode}.stdin`))).toEqual(bytes);
      // Through the client the command is the daemon's child; through the Node path, the hook's.
      expect(readPid(join(tmp.dir, `${mode}.ppid`)), mode).toBe(daemon.pid);
      expect(readFileSync(join(tmp.dir, `${mode}.umask`), 'utf8').trim()).toBe('0027');
      expect(vars(mode), mode).toEqual(vars('node'));
      expect(vars(mode), mode).toContain(`OLDPWD=${env.OLDPWD}`);
      // The client's private copies are gone from the runtime dir.
      expect(readdirSync(runtime()).sort(), mode).toEqual(['fast.sock', 'hookd.pid', 'hookd.sock']);
    }
  });

  it('a killed daemon (stale socket, refused connection): the Node path runs it once', async () => {
    configure('cat >> "$OUT"; echo >> "$OUT"');
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(fastSocket()));
    daemon.kill('SIGKILL');
    await new Promise((r) => daemon!.once('exit', r));
    daemon = undefined;
    expect(existsSync(fastSocket())).toBe(true);
    const out = join(tmp.dir, 'runs');
    const ran = await collect(startClient({ ...env, OUT: out }, tmp.dir), event('killed'));
    expect(ran.code).toBe(0);
    expect(count(out, 'killed')).toBe(1);
  });

  it("a command's JSON decision reaches the agent's stdout through the client, as through the Node path", async () => {
    const decision =
      '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no é 😀"}}';
    configure(`printf '%s' '${decision}'`);
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(fastSocket()));
    const fast = await collect(startClient(env, tmp.dir), event('decide'));
    const node = await collect(startNodePath(env, tmp.dir), event('decide'));
    expect({ ...fast, stdout: fast.stdout.toString() }).toEqual({ ...node, stdout: node.stdout.toString() });
    expect(fast.stdout.toString()).toBe(`${decision}\n`);
    expect(fast.code).toBe(0);
  });

  it('a request the daemon takes only after the client gave up (no GO) is never run', async () => {
    configure('cat >> "$OUT"; echo >> "$OUT"');
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(fastSocket()));
    const out = join(tmp.dir, 'runs');
    const copy = stdinCopy(event('late'));
    await new Promise<void>((done) => {
      const s = connect(fastSocket());
      s.on('error', () => {});
      s.once('connect', () => {
        // The daemon stops right after the connection; the client sends, waits in vain, gives up.
        process.kill(daemon!.pid!, 'SIGSTOP');
        s.end(request(copy, [`OUT=${out}`]), () => {
          s.destroy();
          done();
        });
      });
    });
    process.kill(daemon.pid!, 'SIGCONT');
    expect(
      await waitFor(() => readFileSync(daemonLog(), 'utf8').includes('the event was not run here'), 800),
    ).toBe(true);
    // Not run, so not unlinked: the client's fallback (the Node path) owns the copy.
    expect(existsSync(copy)).toBe(true);
    const next = await collect(startClient({ ...env, OUT: out }, tmp.dir), event('next'));
    expect(next.code).toBe(0);
    expect(count(out, 'next')).toBe(1);
    expect(count(out, 'late')).toBe(0);
  });

  it('refuses what is not a fast client request, before reading more, and logs it', async () => {
    configure('cat >> "$OUT"');
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(fastSocket()));
    const copy = stdinCopy(event('hello'));
    const good = request(copy, [`OUT=${tmp.dir}/x`]);
    for (const head of ['GET / HTTP/1.1\n', 'HOOKD-FAST\n', 'HOOKD-FAST 3 3 extra\n', 'hookd-fast 3 3\n']) {
      const reply = await exchange(Buffer.concat([Buffer.from(head), good.subarray(good.indexOf(10) + 1)]));
      expect(reply, head).toBe(
        head.startsWith('HOOKD-FAST\n')
          ? 'DENY version:-client-protocol-,-daemon-3\n'
          : 'DENY not-a-fast-client-request\n',
      );
    }
    await waitFor(() => readFileSync(daemonLog(), 'utf8').includes('request refused'));
    expect(readFileSync(daemonLog(), 'utf8')).toContain('not a fast client request');
    expect(existsSync(`${tmp.dir}/x`)).toBe(false);
  });

  it('caps what a peer may send: a long first line, an endless environment, inline stdin over 64 KiB, a copy over 8 MiB', async () => {
    configure('true');
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(fastSocket()));
    const ask = async (data: Buffer) => (await exchange(data)).split('\n')[0];
    expect(await ask(Buffer.alloc(4096, 'a'))).toBe('DENY not-a-fast-client-request');
    expect(await ask(Buffer.from(`HOOKD-FAST 3 3\n${'2 '.repeat(400)}`))).toBe('DENY header-too-long');
    const endless = request('/x', ['A=x'.repeat(1)]).subarray(0, -1);
    expect(await ask(Buffer.concat([endless, Buffer.from('A=x\0'.repeat(300_000))]))).toBe(
      'DENY environment-too-large',
    );
    const inline = Buffer.concat([request('-', []), Buffer.alloc(64 * 1024 + 1, 'x')]);
    expect(await ask(inline)).toBe('DENY payload-too-large');
    const big = stdinCopy(Buffer.alloc(8 * 1024 * 1024 + 1, 'x'));
    expect(await ask(request(big, []))).toMatch(/^DENY stdin-copy:-8388609-bytes,-over-8388608$/);
  });

  it('stdin reaches the daemon byte for byte, inline (up to 60 KiB, no NUL) or through the copy, in a UTF-8 locale', async () => {
    configure(`cat > "$OUT"; echo ${DAEMON_PID_SH} > "$OUT.ppid"`);
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(fastSocket()));
    // A valid event padded to `size` bytes with 2- and 4-byte characters across the 4 KiB edge.
    const sized = (size: number, tail = '') => {
      const base = event('edge', { pad: '' });
      let pad = '';
      while (Buffer.byteLength(pad) + base.length + Buffer.byteLength(tail) < size)
        pad += 'é😀x'[pad.length % 3];
      const bytes = Buffer.concat([event('edge', { pad }), Buffer.from(tail)]);
      return bytes.subarray(0, Math.max(size, bytes.length));
    };
    const utf8 = { LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
    for (const [i, bytes] of [
      sized(100),
      sized(4095),
      sized(4096),
      sized(4097),
      sized(20_000),
      sized(300, '\n\n \t\r\n'),
      event('\\\\ \\n %s $x `y` \\0'),
    ].entries()) {
      const out = join(tmp.dir, `edge${i}`);
      const ran = await collect(startClient({ ...env, ...utf8, OUT: out }, tmp.dir), bytes);
      expect(ran.code, `payload ${i}`).toBe(0);
      expect(readFileSync(out), `payload ${i}`).toEqual(bytes);
      expect(readPid(`${out}.ppid`), `payload ${i}`).toBe(daemon.pid);
    }
    // A NUL byte (not JSON: kept as a dead letter, byte for byte), early or past 4 KiB.
    const dead = join(env.XDG_STATE_HOME!, 'hookd', 'dead-letter');
    for (const [i, bytes] of [
      Buffer.from('{"a":1}\0{"b":2}'),
      Buffer.concat([Buffer.alloc(5000, 'a'), Buffer.from([0, 0x62])]),
    ].entries()) {
      const ran = await collect(startClient({ ...env, ...utf8 }, tmp.dir), bytes);
      expect(ran.code, `nul ${i}`).toBe(0);
      expect(await waitFor(() => deadLetters(dead).length === i + 1)).toBe(true);
      expect(
        deadLetters(dead).some((k) => k.equals(bytes)),
        `nul ${i}`,
      ).toBe(true);
    }
    expect(readdirSync(runtime()).filter((n) => n.startsWith('c.'))).toEqual([]);
  });

  it('an observe-only event is acknowledged by event id and answered with the ACK; run only after GO', async () => {
    writeConfig(env, {});
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(fastSocket()));
    const post = (tag: string) => event(tag, { hook_event_name: 'PostToolUse' });
    const ask = async (tag: string, go: boolean) => {
      const copy = stdinCopy(post(tag));
      const reply = await exchange(request(copy, [`HOME=${env.HOME}`]), {
        go,
        until: (text) => (go ? false : text.includes('RESULT 0 0 0\n')),
      });
      return { copy, lines: reply.split('\n') };
    };
    const handed = () =>
      jsonLines<{ kind?: string; eventId?: string; handoff?: string }>(hookLog()).filter(
        (r) => r.kind === 'event',
      );
    // The answer comes with the ACK (its in-flight record is written): without a GO it is not run.
    const first = await ask('no-go', false);
    expect(first.lines[0]).toMatch(/^ACK 1 [0-9a-f-]{36}$/);
    expect(first.lines[1]).toBe('RESULT 0 0 0');
    expect(
      await waitFor(() => readFileSync(daemonLog(), 'utf8').includes('the event was not run here'), 800),
    ).toBe(true);
    expect(existsSync(first.copy)).toBe(true);
    expect(handed()).toEqual([]);
    // With a GO the daemon closes the connection (nothing more to say), then hands the event off.
    const second = await ask('go', true);
    const id = second.lines[0]!.split(' ')[2];
    expect(second.lines.slice(1)).toEqual(['RESULT 0 0 0', '']);
    expect(await waitFor(() => handed().length === 1, 800)).toBe(true);
    expect(handed()).toMatchObject([{ eventId: id, handoff: 'acked' }]);
    expect(existsSync(second.copy)).toBe(false);
    // And through the client.
    const ran = await collect(startClient(env, tmp.dir), post('client'));
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    expect(await waitFor(() => handed().length === 2, 800)).toBe(true);
  });

  it('versions: a client older or newer than the daemon is denied before the ACK, falls back once, and it is logged for doctor', async () => {
    configure(`cat >> "$OUT"; echo >> "$OUT"; echo ${DAEMON_PID_SH} >> "$OUT.ppid"`);
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(fastSocket()));
    // A copy of the client that says it is version 1, beside the real dist/ (its Node path).
    const pkg = join(tmp.dir, 'pkg');
    // The client built as version 1 (a real file: it finds hookd.cjs beside its own path).
    mkdirSync(join(pkg, 'dist'), { recursive: true });
    symlinkSync(join(ROOT, 'dist', 'hookd.cjs'), join(pkg, 'dist', 'hookd.cjs'));
    const old = join(pkg, 'dist', 'hookd-client');
    const cc = spawnSync(
      process.env.CC || 'cc',
      ['-DHOOKD_CLIENT_VERSION=1', '-o', old, join(ROOT, 'native', 'hookd-client.c')],
      { encoding: 'utf8' },
    );
    expect(cc.status, cc.stderr).toBe(0);
    const out = join(tmp.dir, 'runs');
    const ran = await collect(startClient({ ...env, OUT: out }, tmp.dir, '022', old), event('old-client'));
    expect(ran.code).toBe(0);
    expect(count(out, 'old-client')).toBe(1);
    expect(readPid(`${out}.ppid`)).not.toBe(daemon.pid); // the Node path ran it
    expect(readdirSync(runtime()).filter((n) => n.startsWith('c.'))).toEqual([]); // it unlinked the copy
    // A newer protocol, raw: denied before anything is read or run.
    const copy = stdinCopy(event('new-protocol'));
    expect(await exchange(request(copy, [`OUT=${out}`], '4 9'))).toBe(
      'DENY version:-client-protocol-4,-daemon-3\n',
    );
    expect(count(out, 'new-protocol')).toBe(0);
    const log = readFileSync(daemonLog(), 'utf8');
    expect(log).toContain('client version 1, daemon serves 3-3');
    expect(log).toContain('client protocol 4, daemon 3');
    const status = JSON.parse(readFileSync(join(runtime(), 'fast-status.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(status).toMatchObject({
      protocol: 3,
      mismatches: 2,
      lastMismatch: { protocol: '4', client: '9' },
    });
    expect(statSync(join(runtime(), 'fast-status.json')).mode & 0o777).toBe(0o600);
  });

  it('a command marked "local": the daemon answers LOCAL and the client runs the Node path, once', async () => {
    configure(`cat >> "$OUT"; echo >> "$OUT"; echo ${DAEMON_PID_SH} > "$OUT.ppid"`, { local: true });
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(fastSocket()));
    const out = join(tmp.dir, 'runs');
    const bytes = event('local');
    const ran = await collect(startClient({ ...env, OUT: out }, tmp.dir), bytes);
    expect(ran.code).toBe(0);
    expect(count(out, 'local')).toBe(1);
    expect(readFileSync(out, 'utf8')).toBe(`${bytes.toString()}\n`);
    // Its parent is the hook (the Node path in the agent's process tree), not the daemon.
    expect(readPid(`${out}.ppid`)).not.toBe(daemon.pid);
    expect(readdirSync(runtime()).filter((n) => n.startsWith('c.'))).toEqual([]);
    expect(readFileSync(daemonLog(), 'utf8')).toContain('marked \\"local\\"');
  });

  it('the stdin copy a request names is checked: a path outside the runtime dir or a symlink is refused, not read', async () => {
    configure('cat >> "$OUT"; echo >> "$OUT"');
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(fastSocket()));
    const out = join(tmp.dir, 'runs');
    const foreign = join(tmp.dir, 'c.1.1');
    writeFileSync(foreign, event('foreign'), { mode: 0o600 });
    const target = join(tmp.dir, 'secret.json');
    writeFileSync(target, event('through-symlink'), { mode: 0o600 });
    const link = join(runtime(), 'c.1.2');
    symlinkSync(target, link);
    const renamed = stdinCopy(event('renamed'), 'stdin.json');
    const ask = async (path: string) =>
      (await exchange(request(path, [`OUT=${out}`]), { go: true })).split('\n')[0];
    expect(await ask(foreign)).toBe('DENY stdin-copy:-not-in-the-private-runtime-dir');
    expect(await ask(`${runtime()}/../../c.1.1`)).toBe('DENY stdin-copy:-not-in-the-private-runtime-dir');
    expect(await ask(link)).toBe('DENY stdin-copy:-a-symlink');
    expect(await ask(renamed)).toBe('DENY stdin-copy:-not-a-stdin-copy-name-(c.<pid>.<n>)');
    expect(existsSync(out)).toBe(false);
    expect([existsSync(foreign), existsSync(target), existsSync(link), existsSync(renamed)]).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it('the daemon sweeps stdin copies older than a minute that killed clients left, and keeps fresh ones', async () => {
    writeConfig(env, {});
    const stale = stdinCopy(Buffer.from('{}'), 'c.11.22');
    const fresh = stdinCopy(Buffer.from('{}'), 'c.33.44');
    const output = stdinCopy(Buffer.from('out'), 'o.11.33');
    const other = stdinCopy(Buffer.from('{}'), 'c.keep');
    const old = new Date(Date.now() - 5 * 60_000);
    for (const f of [stale, output, other]) utimesSync(f, old, old);
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(fastSocket()));
    expect([existsSync(stale), existsSync(output), existsSync(fresh), existsSync(other)]).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });

  it('HOOKD_CLIENT_STDIN_COPY: the Node path unlinks a real copy, and leaves a foreign path or a symlink alone', async () => {
    configure('cat >> "$OUT"; echo >> "$OUT"; env > "$OUT.env"');
    const out = join(tmp.dir, 'runs');
    const run = (path: string, bytes: Buffer) =>
      collect(startNodePath({ ...env, OUT: out, HOOKD_CLIENT_STDIN_COPY: path }, tmp.dir), bytes);
    const copy = stdinCopy(event('copy'));
    expect((await run(copy, readFileSync(copy))).code).toBe(0);
    expect(existsSync(copy)).toBe(false);
    expect(count(out, 'copy')).toBe(1);
    expect(readFileSync(`${out}.env`, 'utf8')).not.toContain('HOOKD_CLIENT_STDIN_COPY');
    const foreign = join(tmp.dir, 'c.1.1');
    writeFileSync(foreign, 'keep');
    const target = join(tmp.dir, 'target');
    writeFileSync(target, 'keep');
    const link = join(runtime(), 'c.1.2');
    symlinkSync(target, link);
    for (const path of [foreign, link]) expect((await run(path, event('other'))).code).toBe(0);
    expect([existsSync(foreign), existsSync(target), existsSync(link)]).toEqual([true, true, true]);
    expect(count(out, 'other')).toBe(2); // the events themselves ran from stdin
    const log = readFileSync(hookLog(), 'utf8');
    expect(log).toContain('not in the private runtime dir');
    expect(log).toContain('not a regular file of this user');
  });
});

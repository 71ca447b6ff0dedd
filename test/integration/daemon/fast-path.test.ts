import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';
import { isAlive, killHard, readPid, waitFor } from '../../helpers/procs.js';
import { BIN, ROOT, ensureBuilt, spawnDaemon, stopDaemon, writeConfig } from './process-helpers.js';

// The fast path of issue 12 through real processes and real sockets: the bash client, the daemon's
// loopback listener, and the Node path it falls back to.

const CLIENT = resolve(ROOT, 'bin/hookd-client.bash');

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

/** `/bin/bash /abs/bin/hookd-client.bash --agent droid`, as an agent runs it. */
function startClient(env: Record<string, string>, cwd: string, umask = '027'): ChildProcess {
  // The umask is set by a parent shell, as the agent's own umask would be.
  return spawn('/bin/sh', ['-c', `umask ${umask}; exec /bin/bash "$0" --agent droid`, CLIENT], {
    env,
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** The Node path started the same way: `node dist/hookd.cjs hook --agent droid`. */
function startNodePath(env: Record<string, string>, cwd: string, umask = '027'): ChildProcess {
  return spawn(
    '/bin/sh',
    [
      '-c',
      `umask ${umask}; exec /bin/bash -c 'exec "$0" "$1" hook --agent droid' "$0" "$1"`,
      process.execPath,
      BIN,
    ],
    { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] },
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

function configure(command: string): void {
  writeConfig(env, {
    daemon: { fastListener: true },
    hooks: { PreToolUse: [{ hooks: [{ type: 'command', command, timeout: 30 }] }] },
  });
}
const listenerFile = () => join(env.XDG_RUNTIME_DIR!, 'hookd', 'hookd.fast');

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

describe('the fast client and the daemon listener (issue 12)', () => {
  it('the listener file is private and the daemon answers on 127.0.0.1 only', async () => {
    configure('true');
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(listenerFile()));
    const { statSync } = await import('node:fs');
    expect(statSync(listenerFile()).mode & 0o777).toBe(0o600);
    expect(statSync(join(env.XDG_RUNTIME_DIR!, 'hookd')).mode & 0o777).toBe(0o700);
    const [port, secret, token] = readFileSync(listenerFile(), 'utf8').trim().split(' ');
    expect(Number(port)).toBeGreaterThan(0);
    expect(secret).toMatch(/^[0-9a-f]{48}$/);
    expect(token).toMatch(/^[0-9a-f]{48}$/);
    expect(token).not.toBe(secret);
    const log = readFileSync(join(env.XDG_STATE_HOME!, 'hookd', 'logs', 'daemon.log'), 'utf8');
    expect(log).not.toContain(secret);
    expect(log).not.toContain(token);
  });

  it('the same env, umask, cwd and stdin bytes reach a command through the client and the Node path', async () => {
    configure(
      'cat > "$OUT.stdin"; env > "$OUT.env"; umask > "$OUT.umask"; pwd -P > "$OUT.pwd"; echo $PPID > "$OUT.ppid"; echo said >&2; exit 2',
    );
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(listenerFile()));
    const cwd = join(tmp.dir, 'home');
    const bytes = event('same');
    const fast = await collect(startClient({ ...env, OUT: join(tmp.dir, 'fast') }, cwd), bytes);
    const node = await collect(startNodePath({ ...env, OUT: join(tmp.dir, 'node') }, cwd), bytes);
    expect([fast.code, fast.stderr]).toEqual([2, 'said\n']);
    expect([node.code, node.stderr]).toEqual([2, 'said\n']);
    for (const part of ['stdin', 'umask', 'pwd'])
      expect(readFileSync(join(tmp.dir, `fast.${part}`)), part).toEqual(
        readFileSync(join(tmp.dir, `node.${part}`)),
      );
    expect(readFileSync(join(tmp.dir, 'fast.stdin'))).toEqual(bytes);
    // Through the client the command is the daemon's child; through the Node path, the hook's.
    expect(readPid(join(tmp.dir, 'fast.ppid'))).toBe(daemon.pid);
    expect(readPid(join(tmp.dir, 'node.ppid'))).not.toBe(daemon.pid);
    // The client's private copies are gone from the runtime dir.
    expect(readdirSync(join(env.XDG_RUNTIME_DIR!, 'hookd')).sort()).toEqual([
      'hookd.fast',
      'hookd.pid',
      'hookd.sock',
    ]);
    expect(readFileSync(join(tmp.dir, 'fast.umask'), 'utf8').trim()).toBe('0027');
    const vars = (which: string) =>
      readFileSync(join(tmp.dir, `${which}.env`), 'utf8')
        .split('\n')
        .filter((l) => !/^(_|SHLVL|OUT|HOOKD_EVENT_ID)=/.test(l))
        .sort();
    expect(vars('fast')).toEqual(vars('node'));
  });

  it('falls back to the Node path when no listener file exists; the command runs once', async () => {
    configure('cat >> "$OUT"; echo >> "$OUT"');
    const out = join(tmp.dir, 'runs');
    const ran = await collect(startClient({ ...env, OUT: out }, tmp.dir), event('nolistener'));
    expect(ran.code).toBe(0);
    expect(count(out, 'nolistener')).toBe(1);
  });

  it('a killed daemon (stale listener file, refused connection): the Node path runs it once', async () => {
    configure('cat >> "$OUT"; echo >> "$OUT"');
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(listenerFile()));
    daemon.kill('SIGKILL');
    await new Promise((r) => daemon!.once('exit', r));
    daemon = undefined;
    expect(existsSync(listenerFile())).toBe(true);
    const out = join(tmp.dir, 'runs');
    const ran = await collect(startClient({ ...env, OUT: out }, tmp.dir), event('killed'));
    expect(ran.code).toBe(0);
    expect(count(out, 'killed')).toBe(1);
  });

  it('a stopped daemon (SIGSTOP): the client falls back after its bounded wait; resumed, the daemon does not run it again', async () => {
    configure('cat >> "$OUT"; echo >> "$OUT"');
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(listenerFile()));
    const out = join(tmp.dir, 'runs');
    process.kill(daemon.pid!, 'SIGSTOP');
    const ran = await collect(
      startClient({ ...env, OUT: out, HOOKD_CLIENT_WAIT_S: '1' }, tmp.dir),
      event('hung'),
    );
    expect(ran.code).toBe(0);
    expect(count(out, 'hung')).toBe(1);
    process.kill(daemon.pid!, 'SIGCONT');
    // The next event through the daemon is answered after the stale connection was seen and dropped.
    const next = await collect(startClient({ ...env, OUT: out }, tmp.dir), event('after'));
    expect(next.code).toBe(0);
    expect(count(out, 'after')).toBe(1);
    expect(count(out, 'hung')).toBe(1);
  });

  it('a request the daemon takes only after the client gave up (no GO) is never run', async () => {
    configure('cat >> "$OUT"; echo >> "$OUT"');
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(listenerFile()));
    const [port, , token] = readFileSync(listenerFile(), 'utf8').trim().split(' ');
    const out = join(tmp.dir, 'runs');
    const body = event('late');
    await new Promise<void>((done) => {
      const s = connect(Number(port), '127.0.0.1');
      s.on('error', () => {});
      s.once('data', () => {
        // The daemon stops right after its greeting; the client sends, waits in vain, gives up.
        process.kill(daemon!.pid!, 'SIGSTOP');
        s.write(`${token}\ndroid\n0022\n1\n${body.length}\n${tmp.dir}\0OUT=${out}\0\0`);
        s.end(body, () => {
          s.destroy();
          done();
        });
      });
    });
    process.kill(daemon.pid!, 'SIGCONT');
    const log = join(env.XDG_STATE_HOME!, 'hookd', 'logs', 'daemon.log');
    expect(await waitFor(() => readFileSync(log, 'utf8').includes('the event was not run here'), 800)).toBe(
      true,
    );
    const next = await collect(startClient({ ...env, OUT: out }, tmp.dir), event('next'));
    expect(next.code).toBe(0);
    expect(count(out, 'next')).toBe(1);
    expect(count(out, 'late')).toBe(0);
  });

  it('a daemon killed after its acknowledgement: no fallback, the command ran once', async () => {
    const pidFile = join(tmp.dir, 'cmd.pid');
    configure(`cat >> "$OUT"; echo >> "$OUT"; echo $$ > ${pidFile}; exec sleep 300`);
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(listenerFile()));
    const out = join(tmp.dir, 'runs');
    const client = startClient({ ...env, OUT: out }, tmp.dir);
    const done = collect(client, event('acked'));
    expect(await waitFor(() => readPid(pidFile) !== undefined, 800)).toBe(true);
    extraPids.push(readPid(pidFile)!);
    daemon.kill('SIGKILL');
    const ran = await done;
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('daemon went away');
    expect(count(out, 'acked')).toBe(1);
  });

  it('a client killed mid-event kills the event commands (process group)', async () => {
    const pidFile = join(tmp.dir, 'cmd.pid');
    configure(`echo $$ > ${pidFile}; sleep 300 & echo $! > ${pidFile}.child; wait`);
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(listenerFile()));
    const client = startClient(env, tmp.dir);
    const done = collect(client, event('abandoned'));
    expect(await waitFor(() => readPid(`${pidFile}.child`) !== undefined, 800)).toBe(true);
    const pids = [readPid(pidFile)!, readPid(`${pidFile}.child`)!];
    extraPids.push(...pids);
    client.kill('SIGKILL');
    await done;
    expect(await waitFor(() => pids.every((p) => !isAlive(p)), 800)).toBe(true);
  });

  it('a stale port bound by another process receives nothing; the Node path runs the event', async () => {
    configure('cat >> "$OUT"; echo >> "$OUT"');
    const out = join(tmp.dir, 'runs');
    for (const greeting of ['', 'HOOKD-FAST1 not-the-secret\n']) {
      let received = 0;
      const server = createServer((s: Socket) => {
        s.on('data', (c: Buffer) => (received += c.length));
        s.on('error', () => {});
        if (greeting) s.write(greeting);
      });
      servers.push(server);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      const port = (server.address() as { port: number }).port;
      const { mkdirSync } = await import('node:fs');
      mkdirSync(join(env.XDG_RUNTIME_DIR!, 'hookd'), { recursive: true, mode: 0o700 });
      writeFileSync(listenerFile(), `${port} ${'a'.repeat(48)} ${'b'.repeat(48)}\n`, { mode: 0o600 });
      const tag = `stale${greeting.length}`;
      const ran = await collect(
        startClient({ ...env, OUT: out, HOOKD_CLIENT_WAIT_S: '1' }, tmp.dir),
        event(tag),
      );
      expect(ran.code).toBe(0);
      expect(count(out, tag)).toBe(1);
      expect(received).toBe(0);
    }
  });

  it('refuses a request with a missing or wrong token, and logs it without the token', async () => {
    configure('cat >> "$OUT"');
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(listenerFile()));
    const [port] = readFileSync(listenerFile(), 'utf8').trim().split(' ');
    for (const header of [`${'0'.repeat(48)}\ndroid\n0022\n1\n2\n`, `droid\n0022\n1\n2\n`, '\n']) {
      const reply = await new Promise<string>((done) => {
        const s = connect(Number(port), '127.0.0.1');
        let text = '';
        let sent = false;
        s.on('data', (c: Buffer) => {
          text += c.toString('latin1');
          if (!sent && text.includes('\n')) {
            sent = true;
            s.write(header);
            s.write(Buffer.from(`${tmp.dir}\0OUT=x\0\0{}`));
          }
        });
        s.on('error', () => {});
        s.on('close', () => done(text));
      });
      expect(reply.split('\n')[1]).toMatch(/^DENY /);
    }
    await waitFor(() =>
      readFileSync(join(env.XDG_STATE_HOME!, 'hookd', 'logs', 'daemon.log'), 'utf8').includes(
        'request refused',
      ),
    );
    const log = readFileSync(join(env.XDG_STATE_HOME!, 'hookd', 'logs', 'daemon.log'), 'utf8');
    expect(log).toContain('bad token');
    expect(log).not.toContain('0'.repeat(48));
    expect(existsSync(`${tmp.dir}/x`)).toBe(false);
  });

  it('caps what a peer may send: a long first line, an endless environment, a payload over 8 MiB', async () => {
    configure('true');
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(listenerFile()));
    const [port, , token] = readFileSync(listenerFile(), 'utf8').trim().split(' ');
    const ask = (data: Buffer) =>
      new Promise<string>((done) => {
        const s = connect(Number(port), '127.0.0.1');
        let text = '';
        s.once('data', (c: Buffer) => {
          text += c.toString('latin1');
          s.on('data', (more: Buffer) => (text += more.toString('latin1')));
          s.write(data);
        });
        s.on('error', () => {});
        s.on('close', () => done(text.split('\n')[1] ?? ''));
      });
    expect(await ask(Buffer.alloc(4096, 'a'))).toBe('DENY header-too-long');
    const head = (len: number) => `${token}\ndroid\n0022\n1\n${len}\n`;
    expect(await ask(Buffer.from(`${head(2)}/\0${'A=x\0'.repeat(300_000)}`))).toBe(
      'DENY environment-too-large',
    );
    expect(await ask(Buffer.from(head(8 * 1024 * 1024 + 1)))).toBe('DENY payload-too-large');
  });

  it('hostile bytes in env and payload reach the command unchanged and are never evaluated', async () => {
    configure('cat > "$OUT.stdin"; printf %s "$HOSTILE" > "$OUT.env"; echo $PPID > "$OUT.ppid"');
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(listenerFile()));
    const pwned = join(tmp.dir, 'pwned');
    const hostile = `$(touch ${pwned}) \`touch ${pwned}\` '"; touch ${pwned}; \n\\0 %s %n \t${'\u00e9\u{1F600}'}`;
    const bytes = event(hostile, { tool_input: { command: `$(touch ${pwned})\n'\`"` } });
    const out = join(tmp.dir, 'h');
    const ran = await collect(startClient({ ...env, OUT: out, HOSTILE: hostile }, tmp.dir), bytes);
    expect(ran.code).toBe(0);
    expect(readFileSync(`${out}.stdin`)).toEqual(bytes);
    expect(readFileSync(`${out}.env`, 'utf8')).toBe(hostile);
    expect(existsSync(pwned)).toBe(false);
    expect(readPid(`${out}.ppid`)).toBe(daemon.pid);
  });

  it('an 8 MiB payload passes', async () => {
    configure('wc -c > "$OUT"; echo $PPID > "$OUT.ppid"');
    daemon = await spawnDaemon(env);
    await waitFor(() => existsSync(listenerFile()));
    const head = event('big');
    const filler = 8 * 1024 * 1024 - head.length - 16;
    const bytes = event('big', { pad: 'x'.repeat(filler) });
    expect(bytes.length).toBeLessThanOrEqual(8 * 1024 * 1024);
    const out = join(tmp.dir, 'size');
    const ran = await collect(startClient({ ...env, OUT: out }, tmp.dir), bytes);
    expect(ran.code).toBe(0);
    expect(Number(readFileSync(out, 'utf8').trim())).toBe(bytes.length);
    expect(readPid(`${out}.ppid`)).toBe(daemon.pid); // run by the daemon, not through the fallback
  });
});

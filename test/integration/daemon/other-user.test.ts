import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  childrenOf,
  firstLine,
  listeningSockets,
  makeSharedDir,
  OTHER_UID,
  otherUserProblem,
  spawnAsOther,
  writeOtherUserScript,
} from '../../helpers/other-user.js';
import { isAlive } from '../../helpers/procs.js';
import { waitFor } from './helpers.js';
import { killQuietly, stopDaemon, useProcessCleanup } from './process-helpers.js';
import { handOffEnv, startFastDaemon, startHook, writeFastConfig } from './fast-client-helpers.js';

// Another local user (uid 65534) against the user's daemon and fast client: it connects to everything the
// daemon listens on, squats it after the daemon died, and plants a runtime dir of its own. Whatever it
// does, the user's guard still blocks and it receives no byte of the event.

const problem = otherUserProblem();
const { pids, cleanups } = useProcessCleanup();
let shared: ReturnType<typeof makeSharedDir>;
let env: Record<string, string>;
let script: string;

const GUARD = `grep -q 'rm -rf' && { echo 'blocked by the guard' >&2; exit 2; }; exit 0`;
const RM_EVENT = JSON.stringify({
  session_id: 's-other',
  hook_event_name: 'PreToolUse',
  tool_name: 'Execute',
  tool_input: { command: 'rm -rf /' },
});

beforeEach(() => {
  shared = makeSharedDir();
  // The user's own dirs live under a folder every user may enter: only hookd's own checks keep them out.
  env = handOffEnv(shared.dir);
  writeFastConfig(env, {
    PreToolUse: [{ matcher: 'Execute', hooks: [{ type: 'command', command: GUARD, timeout: 30 }] }],
  });
  script = writeOtherUserScript(shared.dir);
});
afterEach(() => shared.cleanup());

async function runGuard(extra: Record<string, string> = {}) {
  const h = startHook('fast', { env: { ...env, ...extra }, cwd: shared.dir, stdin: RM_EVENT });
  pids.push(h.child.pid!);
  return h.done;
}

/** Starts the other user's squatter on these targets; resolves with what it could bind. */
async function squat(spec: { tcp: number[]; unix: string[]; greeting?: string }, log: string) {
  writeFileSync(log, '');
  chownSync(log, OTHER_UID, OTHER_UID);
  const child = spawnAsOther(script, ['squat', JSON.stringify(spec), log]);
  pids.push(child.pid!);
  cleanups.push(() => killQuietly(child.pid));
  return JSON.parse(await firstLine(child)) as Record<string, string>;
}

describe.skipIf(problem !== undefined)('another local user', () => {
  it('reads nothing from the daemon, and squatting what it listened on after a kill -9 gets no event byte', async () => {
    const daemon = await startFastDaemon(env);
    cleanups.push(() => stopDaemon(daemon));
    // One event through the fast path first, so that everything the daemon starts (its spawner) runs.
    const warm = await runGuard();
    expect(warm.code).toBe(2);
    const family = [daemon.pid!, ...childrenOf(daemon.pid!)];
    const listening = listeningSockets(family);
    expect(listening.unix.length).toBeGreaterThan(0);

    // Connecting: no greeting, no secret, nothing; the unix sockets are out of its reach.
    const probe = spawnAsOther(script, ['probe', JSON.stringify({ ...listening, waitMs: 1500 })]);
    pids.push(probe.pid!);
    const seen = JSON.parse(await firstLine(probe)) as Record<string, { error?: string; bytes: string }>;
    for (const port of listening.tcp) expect(seen[String(port)]?.bytes, `TCP port ${port}`).toBe('');
    for (const path of listening.unix) expect(seen[path]?.error, path).toBe('EACCES');
    const greeting = Object.values(seen).find((s) => s.bytes)?.bytes;

    // The daemon dies uncleanly; the other user takes what it held and answers "allow".
    killQuietly(daemon.pid);
    await waitFor(() => family.every((p) => !isAlive(p)), 20_000, 'the daemon and its spawner to die');
    const log = join(shared.dir, 'squatter.log');
    const bound = await squat({ ...listening, ...(greeting ? { greeting } : {}) }, log);
    for (const path of listening.unix) expect(bound[path], path).not.toBe('bound');

    const result = await runGuard();
    expect(result.stderr.toString()).toContain('blocked by the guard');
    expect(result.code).toBe(2);
    expect(readFileSync(log, 'latin1')).toBe('');
  });

  it('a runtime dir in a shared place that another user owns is never used, whatever it holds', async () => {
    // The other user made the runtime dir first (a /tmp/runtime-$USER, a shared XDG_RUNTIME_DIR) and
    // planted a listener file and a socket of its own in it.
    const runtime = join(shared.dir, 'shared-run');
    mkdirSync(runtime, { mode: 0o700 });
    chownSync(runtime, OTHER_UID, OTHER_UID);
    const log = join(shared.dir, 'squatter.log');
    const bound = await squat(
      {
        tcp: [0],
        unix: [join(runtime, 'fast.sock'), join(runtime, 'hookd.sock')],
        greeting: 'HOOKD-FAST planted\n',
      },
      log,
    );
    expect(
      Object.values(bound).every((b) => b.startsWith('bound')),
      JSON.stringify(bound),
    ).toBe(true);
    const port = bound['0']!.slice('bound:'.length);
    // Its listener file as protocol 2 clients read it (port, secret, token), written by the other user.
    const planter = spawn('setpriv', [
      `--reuid=${OTHER_UID}`,
      `--regid=${OTHER_UID}`,
      '--clear-groups',
      '--',
      '/bin/sh',
      '-c',
      `umask 077; echo "${port} planted token 2 1" > '${runtime}/hookd.fast'; chmod 777 '${runtime}'`,
    ]);
    await new Promise((r) => planter.once('exit', r));
    expect(existsSync(join(runtime, 'hookd.fast'))).toBe(true);

    const result = await runGuard({ HOOKD_RUNTIME_DIR: runtime });
    expect(result.stderr.toString()).toContain('blocked by the guard');
    expect(result.code).toBe(2);
    expect(readFileSync(log, 'latin1')).toBe('');
  });

  it('a socket in the private runtime dir whose listener runs as another user gets no event byte', async () => {
    // The dir is the user's and private, but the process behind the socket is not the user's (it bound
    // the path, then became another user before it listened): only the peer's credentials tell.
    const runtime = env.HOOKD_RUNTIME_DIR!;
    mkdirSync(runtime, { recursive: true, mode: 0o700 });
    chmodSync(runtime, 0o700);
    const log = join(shared.dir, 'peer.log');
    writeFileSync(log, '');
    chmodSync(log, 0o666);
    const python = spawn('python3', [
      '-c',
      [
        'import os, socket, sys',
        's = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)',
        `s.bind(sys.argv[1]); os.setgroups([]); os.setgid(${OTHER_UID}); os.setuid(${OTHER_UID}); s.listen(64)`,
        "print('ready', flush=True)",
        'while True:',
        '    c, _ = s.accept()',
        '    data = c.recv(65536)',
        "    open(sys.argv[2], 'ab').write(data)",
        "    c.sendall(b'ACK 1 x\\nRESULT 0 2 0\\n{}')",
        '    c.close()',
      ].join('\n'),
      join(runtime, 'fast.sock'),
      log,
    ]);
    pids.push(python.pid!);
    cleanups.push(() => killQuietly(python.pid));
    expect(await firstLine(python)).toBe('ready');

    const result = await runGuard();
    expect(result.stderr.toString()).toContain('blocked by the guard');
    expect(result.code).toBe(2);
    expect(readFileSync(log, 'latin1')).toBe('');
  });
});
